// The canonical sample savepoint: what `ckpt-format-demo` writes and prints and what
// `ckpt-fixture-gen` freezes as fixtures/v1/savepoint. Fixed job id, timestamps and data (no
// randomness, no clock), so writing twice gives identical bytes. Header-only, see
// snapshot_builder.h.
#pragma once

#include <string>
#include <vector>

#include "snapshot_builder.h"

namespace ckpt::format::sample {

// The sample job, also written as fixtures/v1/savepoint.job.json.
inline constexpr char kSavepointJobSpec[] = R"({
  "name": "orders-per-user",
  "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801",
  "parallelism": 2,
  "maxParallelism": 128,
  "operators": [
    {"id": "source", "kind": "sequence-source", "uid": "orders-source", "name": "Orders source"},
    {"id": "aggregate", "kind": "keyed-aggregate", "uid": "per-user-aggregate",
     "name": "Per-user aggregate"},
    {"id": "watermarks", "kind": "watermark-tracker", "uid": "watermark-tracker",
     "name": "Watermark tracker"},
    {"id": "sink", "kind": "file-sink", "uid": "file-sink", "name": "File sink", "parallelism": 1,
     "params": {"path": "/tmp/ckpt-out"}}
  ],
  "edges": [
    {"from": "source", "to": "aggregate", "partitioning": "HASH"},
    {"from": "aggregate", "to": "watermarks", "partitioning": "FORWARD"},
    {"from": "watermarks", "to": "sink", "partitioning": "REBALANCE"}
  ],
  "checkpointing": {"intervalMs": 1000}
}
)";

inline constexpr int64_t kSavepointCheckpointId = 42;
inline constexpr int kSavepointUsers = 24;

// The user key of sample user `i`: "user-00" ... "user-23".
inline std::string SampleUser(int i) {
  return std::string("user-") + static_cast<char>('0' + i / 10) + static_cast<char>('0' + i % 10);
}

// Types of the aggregate's states, in declaration order.
inline pb::TypeDescriptor CoordinatorType() {
  return types::Tuple({types::List(types::Tuple({types::Int64(), types::String(), types::Int64()},
                                                {"subtask", "split", "position"})),
                       types::Int64()},
                      {"assigned_splits", "unassigned_splits"});
}

inline base::Status WriteSourceState(SnapshotBuilder& b, pb::OperatorState* op) {
  pb::CheckpointMetadata& m = b.metadata();
  *op->add_states() = State("offsets", pb::STATE_OPERATOR_LIST, types::Int64());
  // Coordinator: which split each subtask reads and how far it got, TUPLE-typed, inline.
  List assigned;
  for (int64_t s = 0; s < 2; ++s) {
    assigned.elements.push_back(Tuple{{Value(s), Value("orders-" + std::to_string(s)),
                                       Value(int64_t{1000} + 250 * s)}});
  }
  CKPT_ASSIGN_OR_RETURN(std::string coord,
                        Enc(CoordinatorType(), Tuple{{Value(std::move(assigned)), Value(int64_t{2})}}));
  pb::CoordinatorState* cs = op->mutable_coordinator_state();
  cs->set_inline_data(coord);
  *cs->mutable_type() = CoordinatorType();
  cs->set_size_bytes(coord.size());
  for (uint32_t s = 0; s < 2; ++s) {
    CKPT_ASSIGN_OR_RETURN(std::string v1, Enc(types::Int64(), int64_t{1000} + 250 * s));
    CKPT_ASSIGN_OR_RETURN(
        pb::OperatorStateHandle h,
        WriteOperatorState(b, "orders-source-" + std::to_string(s) + "-operator.state",
                           pb::EXCLUSIVE, m.checkpoint_id(),
                           {{0, "offsets", pb::STATE_OPERATOR_LIST, {v1}}}));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_operator_state() = h;
  }
  return base::Status::OK();
}

inline base::Status WriteAggregateState(SnapshotBuilder& b, pb::OperatorState* op) {
  pb::CheckpointMetadata& m = b.metadata();
  const pb::TypeDescriptor key = types::String();
  *op->add_states() = State("order-count", pb::STATE_VALUE, types::Int64(), key);
  *op->add_states() = State("recent-items", pb::STATE_LIST, types::String(), key);
  *op->add_states() =
      State("spend-by-category", pb::STATE_MAP, types::Double(), key, types::String());
  *op->add_states() =
      State("event-time-timers", pb::STATE_TIMERS, types::Void(), key, types::Int64());
  static const char* kCategories[] = {"books", "games", "music", "tools"};
  std::vector<std::vector<KeyedEntry>> per_subtask(op->parallelism());
  for (int u = 0; u < kSavepointUsers; ++u) {
    CKPT_ASSIGN_OR_RETURN(std::string k, Enc(key, SampleUser(u)));
    const uint32_t group = KeyGroupForKey(k, op->max_parallelism());
    auto& out = per_subtask[SubtaskForKeyGroup(op->max_parallelism(), op->parallelism(), group)];
    CKPT_ASSIGN_OR_RETURN(std::string count, Enc(types::Int64(), int64_t{u} * 3 + 1));
    out.push_back({group, k, 0, "", count});
    List items;
    for (int i = 0; i <= u % 3; ++i) items.elements.push_back("item-" + std::to_string(u * 10 + i));
    // A keyed LIST record holds the whole list (the value is a LIST of the element type).
    CKPT_ASSIGN_OR_RETURN(std::string list, Enc(types::List(types::String()), items));
    out.push_back({group, k, 1, "", list});
    for (int c = 0; c < 2; ++c) {
      CKPT_ASSIGN_OR_RETURN(std::string cat, Enc(types::String(), kCategories[(u + c) % 4]));
      CKPT_ASSIGN_OR_RETURN(std::string spend, Enc(types::Double(), 10.5 * (u + 1) + c * 0.25));
      out.push_back({group, k, 2, cat, spend});
    }
    CKPT_ASSIGN_OR_RETURN(std::string ts, Enc(types::Int64(), kBaseTimestampMs + 60000 * (u + 1)));
    out.push_back({group, k, 3, ts, ""});
  }
  for (uint32_t s = 0; s < op->parallelism(); ++s) {
    const KeyGroupRange range = RangeForSubtask(op->max_parallelism(), op->parallelism(), s);
    CKPT_ASSIGN_OR_RETURN(
        pb::KeyedStateHandle h,
        WriteKeyGroups(b, "per-user-aggregate-" + std::to_string(s) + "-keyed.state",
                       pb::EXCLUSIVE, m.checkpoint_id(), range, std::move(per_subtask[s])));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_keyed_state() = h;
  }
  return base::Status::OK();
}

inline pb::TypeDescriptor WatermarkType() {
  return types::Tuple({types::Int64(), types::Int64()}, {"subtask", "watermark"});
}

inline base::Status WriteWatermarkState(SnapshotBuilder& b, pb::OperatorState* op) {
  *op->add_states() = State("watermarks", pb::STATE_OPERATOR_UNION, WatermarkType());
  for (uint32_t s = 0; s < op->parallelism(); ++s) {
    CKPT_ASSIGN_OR_RETURN(std::string v,
                          Enc(WatermarkType(), Tuple{{Value(int64_t{s}),
                                                      Value(kBaseTimestampMs + 30000 + 5000 * s)}}));
    CKPT_ASSIGN_OR_RETURN(
        pb::OperatorStateHandle h,
        WriteOperatorState(b, "watermark-tracker-" + std::to_string(s) + "-operator.state",
                           pb::EXCLUSIVE, b.metadata().checkpoint_id(),
                           {{0, "watermarks", pb::STATE_OPERATOR_UNION, {v}}}));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_operator_state() = h;
  }
  return base::Status::OK();
}

inline void WriteSinkState(const pb::CheckpointMetadata& m, pb::OperatorState* op) {
  pb::SubtaskState* st = op->add_subtasks();
  st->set_subtask_index(0);
  for (int n = 0; n < 2; ++n) {
    // The contents the pending part files would have; only their size and checksum are recorded.
    const std::string contents = "part " + std::to_string(n) + " of checkpoint " +
                                 std::to_string(m.checkpoint_id()) + "\n";
    pb::SinkCommittable* c = st->add_committables();
    c->set_pending_path("/tmp/ckpt-out/.part-file-sink-0-" + std::to_string(n) + ".inprogress");
    c->set_final_path("/tmp/ckpt-out/part-file-sink-0-" + std::to_string(n));
    c->set_size_bytes(contents.size());
    c->set_checksum_xxh3(base::Xxh3(contents));
    c->set_checkpoint_id(m.checkpoint_id());
  }
}

// Writes the canonical stop-with-savepoint of the 4-operator sample job into `snapshot_dir`
// (created; must not already hold a _metadata). Returns the metadata it published.
inline base::Result<pb::CheckpointMetadata> WriteSampleSavepoint(base::Fs& fs,
                                                                 const std::string& snapshot_dir) {
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(StartMetadata(kSavepointJobSpec, kSavepointCheckpointId, pb::SAVEPOINT, &m));
  m.set_savepoint_format(pb::CANONICAL);
  m.set_checkpoint_type(pb::FULL);
  m.set_post_action(pb::POST_ACTION_STOP);
  m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
  pb::RestoreInfo* r = m.mutable_restored_from();
  r->set_path("/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-40");
  r->set_checkpoint_id(40);
  r->set_kind(pb::CHECKPOINT);
  r->set_claim_mode(pb::NO_CLAIM);
  SnapshotBuilder b(fs, snapshot_dir, &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(snapshot_dir));
  CKPT_RETURN_IF_ERROR(WriteSourceState(b, AddOperatorState(&m, "source")));
  CKPT_RETURN_IF_ERROR(WriteAggregateState(b, AddOperatorState(&m, "aggregate")));
  CKPT_RETURN_IF_ERROR(WriteWatermarkState(b, AddOperatorState(&m, "watermarks")));
  WriteSinkState(m, AddOperatorState(&m, "sink"));
  FillMetrics(&m);
  CKPT_RETURN_IF_ERROR(b.Publish());
  return m;
}

}  // namespace ckpt::format::sample
