// SharedStateRegistry: reference counts of the SHARED files (incremental RocksDB SSTs in the
// job's shared/ directory) of the retained checkpoints (Flink's SharedStateRegistry). A file is
// handed back for deletion only when the last retained checkpoint referencing it is released,
// and never if any snapshot the engine does not own (restored in NO_CLAIM mode, a savepoint it
// did not take) referenced it. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ckpt::engine {

class SharedStateRegistry {
 public:
  // Adds the references of snapshot `snapshot` (its directory) to `paths` (resolved paths;
  // duplicates count once). `owned` false: the files are never handed back for deletion (sticky).
  void Register(const std::string& snapshot, const std::vector<std::string>& paths, bool owned);
  // Drops the references of `snapshot`; returns the files no retained snapshot references any
  // more and that may be deleted. Unknown snapshots return nothing.
  std::vector<std::string> Release(const std::string& snapshot);
  // Retained checkpoints referencing `path` (0 if unknown).
  uint32_t ReferenceCount(const std::string& path) const;
  // Every registered file, for tests and tools.
  std::vector<std::string> Files() const;

 private:
  struct Entry {
    uint32_t references = 0;
    bool protected_ = false;  // referenced by a snapshot the engine does not own
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> files_;
  std::map<std::string, std::set<std::string>> by_snapshot_;
};

}  // namespace ckpt::engine
