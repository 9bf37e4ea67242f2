// text-file-source: the lines of a file, or of every file of a directory (files dealt to the
// subtasks round-robin by name), each as a string record. The byte offset of the next line of
// each file is operator list state, so a restore re-emits exactly the lines after the snapshot.
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "operators/builtin_kinds.h"
#include "operators/file_split_state.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

class TextFileSource final : public SourceOperator {
 public:
  TextFileSource(std::string path, int64_t batch_size)
      : path_(std::move(path)), batch_size_(batch_size) {}

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    CKPT_ASSIGN_OR_RETURN(state_, ctx.operator_state()->GetListState(FileSplitsDescriptor()));
    if (restoring) {
      for (const format::Value& v : state_.Get()) {
        CKPT_ASSIGN_OR_RETURN(FileSplit s, DecodeFileSplit(v, label_));
        reader_.Add(std::move(s));
      }
      return base::Status::OK();
    }
    base::Result<base::FileInfo> info = base::Fs::Default().Stat(path_);
    if (!info.ok()) return info.status().WithContext(label_ + ": params.path");
    std::vector<std::string> files;
    if (info->is_dir) {
      CKPT_ASSIGN_OR_RETURN(files, ListInputFiles(base::Fs::Default(), path_));
    } else {
      files.push_back(path_);
    }
    for (size_t i = 0; i < files.size(); ++i) {
      if (i % ctx.parallelism() == ctx.subtask_index()) reader_.Add({files[i], 0});
    }
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Result<SourceStatus> PollNext() override {
    if (stopped_) return SourceStatus::kEndOfInput;
    base::Result<int64_t> emitted = reader_.EmitLines(*ctx_, batch_size_);
    if (!emitted.ok()) return emitted.status().WithContext(label_);
    return *emitted == 0 ? SourceStatus::kEndOfInput : SourceStatus::kMoreAvailable;
  }

  base::Status SnapshotState(int64_t checkpoint_id) override {
    (void)checkpoint_id;
    state_.Update(reader_.StateEntries());
    return base::Status::OK();
  }

  void Stop(bool drain) override {
    (void)drain;
    stopped_ = true;
  }

 private:
  const std::string path_;
  const int64_t batch_size_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  OperatorListState state_;
  FileSplitReader reader_;
  bool stopped_ = false;
};

base::Result<std::unique_ptr<Operator>> CreateTextFileSource(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"path", "batch_size"}));
  CKPT_ASSIGN_OR_RETURN(std::string path, params.RequireString("path"));
  if (path.empty()) return params.Error("path", "must not be empty");
  CKPT_ASSIGN_OR_RETURN(int64_t batch, GetIntInRange(params, "batch_size", 1000, 1, 1 << 20));
  return std::unique_ptr<Operator>(std::make_unique<TextFileSource>(std::move(path), batch));
}

}  // namespace

base::Status RegisterTextFileSource(OperatorRegistry& registry) {
  return registry.Register(
      {"text-file-source",
       "lines of a file or of a directory's files (dealt round-robin); byte offsets in operator "
       "state",
       CreateTextFileSource, nullptr});
}

}  // namespace ckpt::engine::operators
