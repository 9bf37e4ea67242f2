// Building one attempt: operator chains -> tasks per subtask, input channels per upstream
// subtask, one RecordWriter per output edge of each chain.
#include "job_attempt.h"

#include <map>
#include <set>

namespace ckpt::engine::runtime {
namespace {

struct GraphView {
  std::map<std::string, const pb::OperatorSpec*> spec_by_id;
  std::map<std::string, const pb::OperatorInfo*> op_by_bytes;   // operator_id bytes -> info
  std::map<uint32_t, std::vector<const pb::OperatorInfo*>> chains;  // chain_index -> ops
  std::map<std::string, std::vector<const pb::EdgeInfo*>> inputs;   // target id -> edges
};

GraphView View(const pb::JobSpec& spec, const pb::JobGraph& graph) {
  GraphView v;
  for (const pb::OperatorSpec& o : spec.operators()) v.spec_by_id[o.id()] = &o;
  for (const pb::OperatorInfo& o : graph.operators()) {
    v.op_by_bytes[o.operator_id()] = &o;
    v.chains[o.chain_index()].push_back(&o);
  }
  for (auto& [index, ops] : v.chains) {
    (void)index;
    std::sort(ops.begin(), ops.end(), [](const pb::OperatorInfo* a, const pb::OperatorInfo* b) {
      return a->position_in_chain() < b->position_in_chain();
    });
  }
  for (const pb::EdgeInfo& e : graph.edges()) v.inputs[e.target_operator_id()].push_back(&e);
  return v;
}

bool IsKeyed(const GraphView& v, const pb::OperatorInfo& op) {
  auto it = v.inputs.find(op.operator_id());
  if (op.position_in_chain() != 0 || it == v.inputs.end() || it->second.empty()) return false;
  for (const pb::EdgeInfo* e : it->second) {
    if (e->partitioning() != pb::HASH) return false;
  }
  return true;
}

OperatorParams ParamsOf(const pb::OperatorSpec& spec) {
  return OperatorParams(OperatorLabel(spec), spec.params());
}

}  // namespace

std::string OperatorLabel(const pb::OperatorSpec& spec) {
  return "operator '" + spec.id() + "' (kind " + spec.kind() + ")";
}

base::Status ValidateOperators(const pb::JobSpec& spec, const pb::JobGraph& graph,
                               const OperatorRegistry& registry) {
  GraphView v = View(spec, graph);
  for (const pb::OperatorInfo& info : graph.operators()) {
    auto sit = v.spec_by_id.find(info.spec_id());
    if (sit == v.spec_by_id.end()) {
      return base::Status::Internal("job graph operator '" + info.spec_id() + "' not in spec");
    }
    const pb::OperatorSpec& os = *sit->second;
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<Operator> op, registry.Create(os.kind(), ParamsOf(os)));
    std::set<uint32_t> inputs;
    auto it = v.inputs.find(info.operator_id());
    if (it != v.inputs.end()) {
      for (const pb::EdgeInfo* e : it->second) inputs.insert(e->target_input());
    }
    const uint32_t want = op->NumInputs();
    const std::string label = OperatorLabel(os);
    if (want == 0 && !inputs.empty()) {
      return base::Status::InvalidArgument(label + " is a source and cannot have input edges");
    }
    if (want == 1 && (inputs.empty() || inputs.count(1) != 0)) {
      return base::Status::InvalidArgument(
          label + (inputs.empty() ? " has no input edge (edges[].to must name it)"
                                  : " has one input; edges[].input must be 0"));
    }
    if (want == 2 && (inputs.count(0) == 0 || inputs.count(1) == 0)) {
      return base::Status::InvalidArgument(label +
                                           " has two inputs: it needs edges with input 0 and 1");
    }
    if (op->RequiresKeyedInput() && !IsKeyed(v, info)) {
      return base::Status::InvalidArgument(
          label + " keeps keyed state: every edge into it must have partitioning HASH");
    }
  }
  return base::Status::OK();
}

base::Result<std::unique_ptr<JobAttempt>> JobAttempt::Build(const pb::JobSpec& spec,
                                                            const pb::JobGraph& graph,
                                                            const OperatorRegistry& registry,
                                                            TaskEnvironment env,
                                                            std::function<void()> wake) {
  std::unique_ptr<JobAttempt> a(new JobAttempt());
  a->wake_ = std::move(wake);
  a->env_ = std::make_unique<TaskEnvironment>(std::move(env));
  a->env_->graph = graph;
  a->channel_state_files_ =
      std::make_unique<ChannelStateFiles>(a->env_->network.max_subtasks_per_channel_state_file);
  a->env_->channel_state_files = a->channel_state_files_.get();
  JobAttempt* self = a.get();
  a->env_->on_failure = [self](uint32_t, const base::Status& st, bool retryable) {
    self->ReportFailure(st, retryable);
  };
  a->env_->on_end_of_data = [self](uint32_t) {
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      ++self->progress_.end_of_data;
    }
    self->wake_();
  };
  a->env_->on_finished = [self](uint32_t) {
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      ++self->progress_.finished;
    }
    self->wake_();
  };
  GraphView v = View(spec, graph);

  // Operator coordinators (job-level logic), restored from the snapshot if any.
  for (const pb::OperatorInfo& info : graph.operators()) {
    const pb::OperatorSpec& os = *v.spec_by_id.at(info.spec_id());
    const OperatorKind* kind = registry.Find(os.kind());
    if (kind == nullptr || !kind->coordinator_factory) continue;
    CKPT_ASSIGN_OR_RETURN(format::OperatorId id, format::OperatorId::FromBytes(info.operator_id()));
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<OperatorCoordinator> c,
                          kind->coordinator_factory(ParamsOf(os), info.parallelism()));
    std::string state;
    if (a->env_->restore) {
      CKPT_ASSIGN_OR_RETURN(std::optional<std::string> restored,
                            a->env_->restore->CoordinatorState(id));
      if (restored) state = std::move(*restored);
    }
    CKPT_RETURN_IF_ERROR(c->Restore(state));
    a->coordinators_[id] = std::move(c);
  }

  // Input channels of each chain head: per inbound edge, one channel per upstream subtask
  // (FORWARD: only the same subtask). channel_of[{edge, upstream subtask, downstream subtask}].
  std::map<std::string, uint32_t> chain_by_op;
  for (const pb::OperatorInfo& o : graph.operators()) chain_by_op[o.operator_id()] = o.chain_index();
  std::map<std::tuple<const pb::EdgeInfo*, uint32_t, uint32_t>, uint32_t> channel_of;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> channel_inputs;  // (chain, s)
  std::map<std::pair<uint32_t, uint32_t>, size_t> out_channels;                   // (chain, s)
  for (const pb::EdgeInfo& e : graph.edges()) {
    uint32_t from = chain_by_op.at(e.source_operator_id());
    uint32_t to = chain_by_op.at(e.target_operator_id());
    if (from == to) continue;  // chained
    uint32_t pf = v.chains.at(from).front()->parallelism();
    uint32_t pt = v.chains.at(to).front()->parallelism();
    for (uint32_t d = 0; d < pt; ++d) {
      for (uint32_t u = 0; u < pf; ++u) {
        if (e.partitioning() == pb::FORWARD && u != d) continue;
        auto& inputs = channel_inputs[{to, d}];
        channel_of[{&e, u, d}] = static_cast<uint32_t>(inputs.size());
        inputs.push_back(e.target_input());
        ++out_channels[{from, u}];
      }
    }
  }

  // Tasks.
  std::map<std::pair<uint32_t, uint32_t>, StreamTask*> task_of;
  for (const auto& [chain_index, ops] : v.chains) {
    const uint32_t p = ops.front()->parallelism();
    for (uint32_t s = 0; s < p; ++s) {
      std::vector<ChainedOperator> chain;
      for (const pb::OperatorInfo* info : ops) {
        const pb::OperatorSpec& os = *v.spec_by_id.at(info->spec_id());
        ChainedOperator c;
        c.info = *info;
        c.params = ParamsOf(os);
        CKPT_ASSIGN_OR_RETURN(c.op, registry.Create(os.kind(), c.params));
        c.keyed = IsKeyed(v, *info);
        CKPT_ASSIGN_OR_RETURN(format::OperatorId id,
                              format::OperatorId::FromBytes(info->operator_id()));
        auto cit = a->coordinators_.find(id);
        if (cit != a->coordinators_.end()) c.coordinator = cit->second.get();
        chain.push_back(std::move(c));
      }
      auto task = std::make_unique<StreamTask>(
          a->env_.get(), static_cast<uint32_t>(a->tasks_.size()), s, p, std::move(chain),
          channel_inputs[{chain_index, s}], out_channels[{chain_index, s}]);
      task_of[{chain_index, s}] = task.get();
      if (task->is_source()) a->sources_.push_back(task.get());
      a->tasks_.push_back(std::move(task));
    }
  }

  // Writers: every edge leaving a chain, for every upstream subtask.
  for (const pb::EdgeInfo& e : graph.edges()) {
    uint32_t from = chain_by_op.at(e.source_operator_id());
    uint32_t to = chain_by_op.at(e.target_operator_id());
    if (from == to) continue;
    uint32_t pf = v.chains.at(from).front()->parallelism();
    uint32_t pt = v.chains.at(to).front()->parallelism();
    uint32_t target_max_p = v.op_by_bytes.at(e.target_operator_id())->max_parallelism();
    for (uint32_t u = 0; u < pf; ++u) {
      std::vector<ChannelTarget> targets;
      for (uint32_t d = 0; d < pt; ++d) {
        auto it = channel_of.find({&e, u, d});
        if (it == channel_of.end()) continue;
        targets.push_back({task_of.at({to, d})->inbox(), it->second});
      }
      StreamTask* up = task_of.at({from, u});
      up->AddWriter(std::make_unique<RecordWriter>(e.partitioning(), std::move(targets),
                                                   up->pool(), u, pf, target_max_p));
    }
  }
  a->progress_.total = static_cast<uint32_t>(a->tasks_.size());
  return a;
}

JobAttempt::~JobAttempt() { CancelAndJoin(); }

void JobAttempt::Start() {
  for (auto& t : tasks_) t->Start();
}

void JobAttempt::CancelAndJoin() {
  for (auto& t : tasks_) t->Cancel();
  for (auto& t : tasks_) t->Join();
  // Buffers cross tasks (a reader holds its upstream's): return them all before any task and
  // its pool is destroyed.
  for (auto& t : tasks_) t->ReleaseBuffers();
}

JobAttempt::Progress JobAttempt::progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return progress_;
}

void JobAttempt::ReportFailure(const base::Status& status, bool retryable) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The first failure is the cause, unless a later one is permanent: that decides that the
    // job cannot restart.
    if (!progress_.failure || (!retryable && progress_.failure_retryable)) {
      progress_.failure = status;
      progress_.failure_retryable = retryable;
    }
  }
  wake_();
}

}  // namespace ckpt::engine::runtime
