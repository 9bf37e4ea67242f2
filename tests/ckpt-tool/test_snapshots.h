// Snapshots for ops tests, written with ckpt::format only (never the engine): the format's
// canonical sample savepoint, a checkpoint root with incremental checkpoints sharing files and an
// unaligned checkpoint with channel state, plus helpers to damage files and rewrite metadata.
// Deterministic (fixed ids, timestamps, data). Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "ckpt/base/status.h"
#include "ckpt/format/proto.h"

namespace ckpt::testing {

// The job id of every test snapshot (format/tools/sample_snapshot.h).
std::string SampleJobIdHex();

// Writes the canonical stop-with-savepoint (4 operators: source with coordinator and list state,
// keyed aggregate with value/list/map/timers, union-state watermark tracker, file sink with
// committables) into `dir`.
base::Status WriteSampleSavepoint(const std::string& dir);

// Writes `<root>/<job>/chk-1` (full; keyed files in shared/), `<root>/<job>/chk-2` (incremental:
// references chk-1's shared files and adds its own), `<root>/<job>/chk-3` without _metadata
// (incomplete), and `<root>/<job>/shared/`, `<root>/<job>/taskowned/`.
base::Status WriteSampleCheckpointRoot(const std::string& root);

// Writes an unaligned checkpoint of a 2-operator job (source -> keyed counter over HASH,
// parallelism 2) with input-channel state in a CHANNEL_STATE file, into `dir`.
base::Status WriteUnalignedCheckpoint(const std::string& dir);

// Writes a canonical savepoint of the counter job whose keyed container stores one key (key 5)
// under a neighbouring key group (inside the subtask's range, so only --deep can see it).
base::Status WriteMisplacedKeySavepoint(const std::string& dir);

// The job spec of the checkpoint root and unaligned snapshots (numbers -> counter over HASH).
std::string CounterJobSpec();

// Reads `<dir>/_metadata`, lets `edit` change it and writes it back (replacing the old one).
base::Status RewriteMetadata(const std::string& dir,
                             const std::function<void(pb::CheckpointMetadata&)>& edit);

// Damage helpers (test failures via ADD_FAILURE if the file cannot be changed).
void FlipByte(const std::string& path, uint64_t offset);
void TruncateFile(const std::string& path, uint64_t size);
void AppendBytes(const std::string& path, const std::string& bytes);

// Writes a job spec JSON file.
void WriteTextFile(const std::string& path, const std::string& text);

// The sample savepoint's job spec (JSON), for --against tests.
std::string SampleSavepointJobSpec();

// Every regular file under `root` (path relative to it) with its bytes: to check that an
// operation left its input untouched.
std::map<std::string, std::string> FileTree(const std::string& root);

}  // namespace ckpt::testing
