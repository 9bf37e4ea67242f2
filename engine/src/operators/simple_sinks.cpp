// print and discard: the two stateless sinks. print writes "<prefix><subtask>> <line>" to stdout
// or stderr (as Flink's print sink does when parallelism > 1); discard drops everything and is
// the sink of benchmarks and of jobs whose result is state.
#include <cstdio>
#include <mutex>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

// Subtasks of all print sinks share the process's stdout/stderr: one line is written under this
// lock so lines never interleave.
std::mutex& PrintMutex() {
  static std::mutex mu;
  return mu;
}

class PrintSink final : public Operator {
 public:
  PrintSink(std::string prefix, bool to_stderr, bool with_timestamp)
      : prefix_(std::move(prefix)), to_stderr_(to_stderr), with_timestamp_(with_timestamp) {}

  base::Status Open(OperatorContext& ctx) override {
    line_prefix_ = prefix_;
    if (ctx.parallelism() > 1) line_prefix_ += std::to_string(ctx.subtask_index() + 1) + "> ";
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    line_.assign(line_prefix_);
    AppendRecordLine(record, with_timestamp_, &line_);
    line_.push_back('\n');
    std::lock_guard<std::mutex> lock(PrintMutex());
    FILE* out = to_stderr_ ? stderr : stdout;
    if (std::fwrite(line_.data(), 1, line_.size(), out) != line_.size()) {
      return base::Status::IOError("print sink: writing to " +
                                   std::string(to_stderr_ ? "stderr" : "stdout") + " failed");
    }
    return base::Status::OK();
  }

  base::Status SnapshotState(int64_t checkpoint_id) override {
    (void)checkpoint_id;
    Flush();
    return base::Status::OK();
  }
  base::Status Finish() override {
    Flush();
    return base::Status::OK();
  }
  void Close() override { Flush(); }

 private:
  void Flush() {
    std::lock_guard<std::mutex> lock(PrintMutex());
    std::fflush(to_stderr_ ? stderr : stdout);
  }

  const std::string prefix_;
  const bool to_stderr_;
  const bool with_timestamp_;
  std::string line_prefix_;
  std::string line_;
};

class DiscardSink final : public Operator {
 public:
  base::Status Open(OperatorContext& ctx) override {
    (void)ctx;
    return base::Status::OK();
  }
  base::Status ProcessElement(Record& record) override {
    (void)record;
    return base::Status::OK();
  }
};

base::Result<std::unique_ptr<Operator>> CreatePrint(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"prefix", "stream", "with_timestamp"}));
  CKPT_ASSIGN_OR_RETURN(std::string prefix, params.GetString("prefix", ""));
  CKPT_ASSIGN_OR_RETURN(size_t stream,
                        GetEnumParam(params, "stream", "stdout", {"stdout", "stderr"}));
  CKPT_ASSIGN_OR_RETURN(bool with_timestamp, params.GetBool("with_timestamp", false));
  return std::unique_ptr<Operator>(
      std::make_unique<PrintSink>(std::move(prefix), stream == 1, with_timestamp));
}

base::Result<std::unique_ptr<Operator>> CreateDiscard(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({}));
  return std::unique_ptr<Operator>(std::make_unique<DiscardSink>());
}

}  // namespace

base::Status RegisterSimpleSinks(OperatorRegistry& registry) {
  CKPT_RETURN_IF_ERROR(registry.Register(
      {"print", "writes each record as a line to stdout (or stderr)", CreatePrint, nullptr}));
  return registry.Register({"discard", "drops every record", CreateDiscard, nullptr});
}

}  // namespace ckpt::engine::operators
