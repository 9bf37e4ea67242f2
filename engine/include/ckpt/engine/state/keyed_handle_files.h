// RebaseKeyedHandleFiles: rewrites every file index a keyed-state handle refers to (key-groups
// file, RocksDB SST and meta files, a changelog handle's materialized handles and segments), for
// code that merges handles' file tables. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <functional>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

// `map` returns the new index of an old one, or an error that is returned as is.
base::Status RebaseKeyedHandleFiles(pb::KeyedStateHandle* handle,
                                    const std::function<base::Result<uint32_t>(uint32_t)>& map);

}  // namespace ckpt::engine
