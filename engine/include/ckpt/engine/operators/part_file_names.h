// Names of the two-phase-commit file sink's part files: a file being written is
// `.part-<uid>-<subtask>-<n>.inprogress` (a dot file, skipped by readers); a committed file is
// `part-<uid>-<subtask>-<n>`. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt::engine::operators {

struct PartFileName {
  std::string uid;        // the sink operator's uid (may itself contain '-')
  uint32_t subtask = 0;   // the writing subtask's index
  uint64_t n = 0;         // per-subtask sequence number of the part file
  bool in_progress = false;
  bool operator==(const PartFileName&) const = default;
};

// ".part-<uid>-<subtask>-<n>.inprogress"
std::string InProgressFileName(std::string_view uid, uint32_t subtask, uint64_t n);
// "part-<uid>-<subtask>-<n>"
std::string FinalFileName(std::string_view uid, uint32_t subtask, uint64_t n);

// Parses either form. Returns nullopt for any other name (including malformed numbers), so a
// directory listing can be filtered without errors. The uid is whatever precedes the last two
// '-'-separated numbers.
std::optional<PartFileName> ParsePartFileName(std::string_view file_name);

}  // namespace ckpt::engine::operators
