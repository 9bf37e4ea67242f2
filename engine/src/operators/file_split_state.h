// The state both file sources keep per file split: (path, offset of the next line to emit),
// offset -1 once the file is done. As operator list state it is redistributed round-robin on a
// rescale. Private to engine/src/operators.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/operator_list_state.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"
#include "operators/line_reader.h"

namespace ckpt::engine::operators {

inline constexpr int64_t kSplitDone = -1;

struct FileSplit {
  std::string path;
  int64_t offset = 0;  // kSplitDone when finished
};

pb::StateDescriptor FileSplitsDescriptor();
format::Value EncodeFileSplit(const FileSplit& split);
// Corruption naming `owner` if the value is not a (string, int64) tuple.
base::Result<FileSplit> DecodeFileSplit(const format::Value& value, const std::string& owner);

// Emits lines of a sequence of file splits, one file at a time, tracking offsets.
class FileSplitReader {
 public:
  void Add(FileSplit split) { splits_.push_back(std::move(split)); }
  const std::vector<FileSplit>& splits() const { return splits_; }
  bool HasUnfinished() const;

  // Emits up to `max_lines` lines of the first unfinished split as Record(line) through `out`.
  // Returns the number emitted; 0 means every split is done. NotFound/IOError from the file.
  // Stops early, after at least one line, when `ctx.ShouldYield()` (backpressure, a mail).
  base::Result<int64_t> EmitLines(OperatorContext& ctx, int64_t max_lines);

  // Current positions for a snapshot.
  std::vector<format::Value> StateEntries() const;

 private:
  std::vector<FileSplit> splits_;
  size_t current_ = 0;  // index of the split `reader_` reads
  std::unique_ptr<LineReader> reader_;
  std::string line_;
  Record record_;
};

}  // namespace ckpt::engine::operators
