#include "operators/file_split_state.h"

#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"

namespace ckpt::engine::operators {

pb::StateDescriptor FileSplitsDescriptor() {
  return OperatorListStateDescriptor(
      "file-splits",
      format::types::Tuple({format::types::String(), format::types::Int64()}, {"path", "offset"}));
}

format::Value EncodeFileSplit(const FileSplit& split) {
  return format::Tuple{{format::Value(split.path), format::Value(split.offset)}};
}

base::Result<FileSplit> DecodeFileSplit(const format::Value& value, const std::string& owner) {
  const auto* t = std::get_if<format::Tuple>(&value.v);
  if (t == nullptr || t->fields.size() != 2 ||
      !std::holds_alternative<std::string>(t->fields[0].v) ||
      !std::holds_alternative<int64_t>(t->fields[1].v)) {
    return base::Status::Corruption(owner + ": restored state 'file-splits' has a malformed entry");
  }
  return FileSplit{std::get<std::string>(t->fields[0].v), std::get<int64_t>(t->fields[1].v)};
}

bool FileSplitReader::HasUnfinished() const {
  for (const FileSplit& s : splits_) {
    if (s.offset != kSplitDone) return true;
  }
  return false;
}

base::Result<int64_t> FileSplitReader::EmitLines(OperatorContext& ctx, int64_t max_lines) {
  Output& out = ctx.output();
  while (true) {
    if (!reader_) {
      while (current_ < splits_.size() && splits_[current_].offset == kSplitDone) ++current_;
      if (current_ == splits_.size()) return int64_t{0};
      FileSplit& s = splits_[current_];
      CKPT_ASSIGN_OR_RETURN(reader_, LineReader::Open(base::Fs::Default(), s.path,
                                                      static_cast<uint64_t>(s.offset)));
    }
    int64_t emitted = 0;
    while (emitted < max_lines) {
      if (emitted > 0 && ctx.ShouldYield()) return emitted;  // the split stays open
      CKPT_ASSIGN_OR_RETURN(bool more, reader_->Next(&line_));
      if (!more) break;
      record_.key = format::Value();
      record_.value = format::Value(line_);
      record_.timestamp = kNoTimestamp;
      CKPT_RETURN_IF_ERROR(out.Collect(record_));
      ++emitted;
      splits_[current_].offset = static_cast<int64_t>(reader_->offset());
    }
    if (emitted == max_lines) return emitted;
    splits_[current_].offset = kSplitDone;  // end of this file
    reader_.reset();
    if (emitted > 0) return emitted;
  }
}

std::vector<format::Value> FileSplitReader::StateEntries() const {
  std::vector<format::Value> out;
  out.reserve(splits_.size());
  for (const FileSplit& s : splits_) out.push_back(EncodeFileSplit(s));
  return out;
}

}  // namespace ckpt::engine::operators
