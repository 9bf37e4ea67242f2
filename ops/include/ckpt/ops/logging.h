// Library log silencing: the libraries ops reads through (protobuf) log malformed input (e.g.
// invalid UTF-8 in a corrupt `_metadata`) to stderr before returning the parse failure that ops
// reports as a Corruption naming the file. Both faces call this once at start so users see only
// ops' message. Not thread-safe with concurrent parsing: call before starting work.
#pragma once

namespace ckpt::ops {

// Discards the logs of the libraries below ops (today protobuf's). Idempotent.
void SilenceLibraryLogs();

}  // namespace ckpt::ops
