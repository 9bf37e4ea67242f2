// Where in a file a reader's error says it failed, for the hex view's mark. Pure function, any
// thread.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>

namespace ckpt::inspector {

// The byte offset an error message names: "...: at byte N: ..." / "at offset N" (the readers'
// own wording), or, for a file cut short ("truncated: N bytes, ..."), N, the first byte the file
// lacks. nullopt when the message names no offset.
std::optional<uint64_t> errorByteOffset(const QString& message);

}  // namespace ckpt::inspector
