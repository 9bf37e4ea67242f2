// directory-source: the lines of the files of a directory, where WHICH subtask reads WHICH file
// is decided at run time by an operator coordinator (Flink's FLIP-27 split enumerator): an idle
// reader asks for the next file. The coordinator's state — the files not yet handed out — is
// snapshotted at the checkpoint trigger into OperatorState.coordinator_state; each reader keeps
// its files and offsets in operator list state.
//
// Consistency: the coordinator is snapshotted before the barriers enter the sources, so a file
// handed out between that moment and a reader's barrier is both "unassigned" in the coordinator
// state and "owned" in the reader's state. After a restore every reader therefore first
// registers the files it restored, the coordinator drops them from its unassigned list, and no
// file is handed out before all readers of the attempt have registered.
#include <deque>
#include <mutex>
#include <set>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operator_coordinator.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/format/value_codec.h"
#include "operators/builtin_kinds.h"
#include "operators/file_split_state.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

constexpr char kRegister[] = "register";
constexpr char kNext[] = "next";

class DirectoryEnumerator final : public OperatorCoordinator {
 public:
  DirectoryEnumerator(std::string dir, uint32_t parallelism)
      : dir_(std::move(dir)), parallelism_(parallelism) {}

  base::Status Restore(const std::string& state) override {
    std::lock_guard<std::mutex> lock(mu_);
    unassigned_.clear();
    registered_.clear();  // every reader of the new attempt registers again
    initialized_ = true;
    if (state.empty()) return Discover();  // a fresh start
    base::Result<format::Value> v = format::DecodeValueExact(StateType(), state);
    if (!v.ok()) return v.status().WithContext("directory-source coordinator state");
    for (const format::Value& e : std::get<format::List>(v->v).elements) {
      unassigned_.push_back(std::get<std::string>(e.v));
    }
    return base::Status::OK();
  }

  // "register\n<path>\n<path>..." -> "ok"; "next" -> "split\n<path>" | "wait" | "done".
  base::Result<std::string> HandleRequest(uint32_t subtask, const std::string& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (request.rfind(kRegister, 0) == 0) {
      registered_.insert(subtask);
      size_t start = request.find('\n');
      while (start != std::string::npos) {
        const size_t end = request.find('\n', start + 1);
        const std::string path = request.substr(start + 1, end == std::string::npos
                                                                ? std::string::npos
                                                                : end - start - 1);
        std::erase(unassigned_, path);
        start = end;
      }
      return std::string("ok");
    }
    if (request == kNext) {
      if (!initialized_) {  // never restored: a fresh start
        initialized_ = true;
        CKPT_RETURN_IF_ERROR(Discover());
      }
      if (registered_.size() < parallelism_) return std::string("wait");
      if (unassigned_.empty()) return std::string("done");
      std::string path = std::move(unassigned_.front());
      unassigned_.pop_front();
      return "split\n" + path;
    }
    return base::Status::InvalidArgument("directory-source enumerator: unknown request from "
                                         "subtask " + std::to_string(subtask));
  }

  base::Result<std::string> SnapshotState(int64_t checkpoint_id) override {
    (void)checkpoint_id;
    std::lock_guard<std::mutex> lock(mu_);
    if (!initialized_) {
      initialized_ = true;
      CKPT_RETURN_IF_ERROR(Discover());
    }
    format::List list;
    for (const std::string& p : unassigned_) list.elements.push_back(format::Value(p));
    return format::EncodeValue(StateType(), format::Value(std::move(list)));
  }

  static pb::TypeDescriptor StateType() { return format::types::List(format::types::String()); }

 private:
  // Lists the directory once per job (not per attempt: restores use the snapshotted list).
  base::Status Discover() {
    base::Result<std::vector<std::string>> files = ListInputFiles(base::Fs::Default(), dir_);
    if (!files.ok()) return files.status().WithContext("directory-source enumerator");
    unassigned_.assign(files->begin(), files->end());
    return base::Status::OK();
  }

  const std::string dir_;
  const uint32_t parallelism_;
  std::mutex mu_;
  std::deque<std::string> unassigned_;
  std::set<uint32_t> registered_;
  bool initialized_ = false;
};

class DirectorySource final : public SourceOperator {
 public:
  explicit DirectorySource(int64_t batch_size) : batch_size_(batch_size) {}

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    CKPT_ASSIGN_OR_RETURN(state_, ctx.operator_state()->GetListState(FileSplitsDescriptor()));
    if (restoring) {
      for (const format::Value& v : state_.Get()) {
        CKPT_ASSIGN_OR_RETURN(FileSplit s, DecodeFileSplit(v, label_));
        reader_.Add(std::move(s));
      }
    }
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    if (ctx.coordinator() == nullptr) {
      return base::Status::Internal(label_ + ": directory-source runs without its coordinator");
    }
    std::string request = kRegister;
    for (const FileSplit& s : reader_.splits()) request += "\n" + s.path;
    return ctx.coordinator()->HandleRequest(ctx.subtask_index(), request).status();
  }

  base::Result<SourceStatus> PollNext() override {
    if (stopped_) return SourceStatus::kEndOfInput;
    base::Result<int64_t> emitted = reader_.EmitLines(*ctx_, batch_size_);
    if (!emitted.ok()) return emitted.status().WithContext(label_);
    if (*emitted > 0) return SourceStatus::kMoreAvailable;
    if (exhausted_) return SourceStatus::kEndOfInput;
    CKPT_ASSIGN_OR_RETURN(std::string reply,
                          ctx_->coordinator()->HandleRequest(ctx_->subtask_index(), kNext));
    if (reply == "wait") return SourceStatus::kNothingAvailable;
    if (reply == "done") {
      exhausted_ = true;
      return SourceStatus::kEndOfInput;
    }
    if (reply.rfind("split\n", 0) != 0) {
      return base::Status::Internal(label_ + ": unexpected coordinator reply '" + reply + "'");
    }
    reader_.Add({reply.substr(6), 0});
    return SourceStatus::kMoreAvailable;
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
  const int64_t batch_size_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  OperatorListState state_;
  FileSplitReader reader_;
  bool exhausted_ = false;
  bool stopped_ = false;
};

base::Status CheckParams(const OperatorParams& params, std::string* path, int64_t* batch) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"path", "batch_size"}));
  CKPT_ASSIGN_OR_RETURN(*path, params.RequireString("path"));
  if (path->empty()) return params.Error("path", "must not be empty");
  CKPT_ASSIGN_OR_RETURN(*batch, GetIntInRange(params, "batch_size", 1000, 1, 1 << 20));
  return base::Status::OK();
}

}  // namespace

base::Status RegisterDirectorySource(OperatorRegistry& registry) {
  OperatorKind kind;
  kind.kind = "directory-source";
  kind.description =
      "lines of a directory's files; an operator coordinator hands files to idle readers and "
      "keeps the unassigned files as coordinator state";
  kind.factory = [](const OperatorParams& params) -> base::Result<std::unique_ptr<Operator>> {
    std::string path;
    int64_t batch = 0;
    CKPT_RETURN_IF_ERROR(CheckParams(params, &path, &batch));
    return std::unique_ptr<Operator>(std::make_unique<DirectorySource>(batch));
  };
  kind.coordinator_factory = [](const OperatorParams& params, uint32_t parallelism)
      -> base::Result<std::unique_ptr<OperatorCoordinator>> {
    std::string path;
    int64_t batch = 0;
    CKPT_RETURN_IF_ERROR(CheckParams(params, &path, &batch));
    return std::unique_ptr<OperatorCoordinator>(
        std::make_unique<DirectoryEnumerator>(std::move(path), parallelism));
  };
  return registry.Register(std::move(kind));
}

}  // namespace ckpt::engine::operators
