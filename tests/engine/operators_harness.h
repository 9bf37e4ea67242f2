// OperatorHarness: runs one catalog operator subtask outside the runtime, for the operator unit
// tests (like Flink's OneInputStreamOperatorTestHarness). It owns the operator's context, heap
// keyed backend and operator state store, sets the current key before each record as the
// runtime does, fires event-time timers on watermarks, collects the output, and takes and
// restores snapshots in memory (keyed records filtered by key group; list state dealt
// round-robin, union state to all, committables by old subtask % new parallelism), so restore
// and rescale can be tested without files. Header-only; test code.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operator_coordinator.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/operator_state_snapshot.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/value_codec.h"

namespace ckpt::engine::testing {

class CollectingOutput final : public Output {
 public:
  base::Status Collect(Record& record) override {
    records.push_back(record);
    return base::Status::OK();
  }
  base::Status EmitWatermark(int64_t watermark) override {
    watermarks.push_back(watermark);
    watermark_positions.push_back(records.size());
    return base::Status::OK();
  }
  std::vector<Record> records;
  std::vector<int64_t> watermarks;
  // records.size() when each watermark was emitted (records before it precede it).
  std::vector<size_t> watermark_positions;
};

// The state of one subtask, copied out of the frozen snapshots.
struct SubtaskSnapshot {
  uint32_t subtask = 0;
  std::vector<pb::StateDescriptor> keyed_states;
  struct KeyedEntry {
    uint32_t key_group;
    uint32_t state_index;
    std::string key, ns, user_key, value;
  };
  std::vector<KeyedEntry> keyed;
  struct OperatorEntries {
    pb::StateDescriptor descriptor;
    std::vector<format::Value> elements;                                 // list / union
    std::vector<std::pair<format::Value, format::Value>> broadcast;      // broadcast
  };
  std::vector<OperatorEntries> operator_states;
  std::vector<pb::SinkCommittable> committables;
};

inline base::Result<google::protobuf::Struct> ParamsFromJson(const std::string& json) {
  google::protobuf::Struct s;
  auto st = google::protobuf::util::JsonStringToMessage(json, &s);
  if (!st.ok()) return base::Status::InvalidArgument("bad params JSON: " + std::string(st.message()));
  return s;
}

struct HarnessOptions {
  uint32_t subtask = 0;
  uint32_t parallelism = 1;
  uint32_t max_parallelism = 128;
  bool keyed = false;
  std::string uid = "op";
  std::string job_id_hex = "00000000000000000000000000000001";
  uint32_t attempt_number = 0;
  bool checkpointing_enabled = true;
  // The operator's coordinator (shared by the subtasks of one "attempt"), if its kind has one.
  OperatorCoordinator* coordinator = nullptr;
};

class OperatorHarness {
 public:
  // Creates `kind` from the built-in registry with `params_json`.
  static base::Result<std::unique_ptr<OperatorHarness>> Create(const std::string& kind,
                                                               const std::string& params_json,
                                                               HarnessOptions options = {}) {
    CKPT_ASSIGN_OR_RETURN(google::protobuf::Struct params, ParamsFromJson(params_json));
    OperatorParams p("operator '" + options.uid + "' (kind " + kind + ")", params);
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<Operator> op,
                          OperatorRegistry::Builtin().Create(kind, p));
    auto h = std::unique_ptr<OperatorHarness>(new OperatorHarness());
    h->op_ = std::move(op);
    h->options_ = options;
    h->kind_ = kind;
    h->params_ = std::move(p);
    return h;
  }

  // InitializeState (restoring from `restore`, the snapshots of the old subtasks, if non-empty)
  // then Open.
  base::Status Initialize(const std::vector<SubtaskSnapshot>& restore = {}) {
    const std::string owner = options_.uid + " (" + std::to_string(options_.subtask + 1) + "/" +
                              std::to_string(options_.parallelism) + ")";
    if (options_.keyed) {
      keyed_ = std::make_unique<HeapKeyedStateBackend>(
          options_.max_parallelism,
          format::RangeForSubtask(options_.max_parallelism, options_.parallelism,
                                  options_.subtask),
          owner);
    }
    operator_state_ = std::make_unique<OperatorStateStore>(owner);
    OperatorContextInit init;
    init.job_id_hex = options_.job_id_hex;
    init.name = options_.uid;
    init.uid = options_.uid;
    init.kind = kind_;
    init.subtask_index = options_.subtask;
    init.parallelism = options_.parallelism;
    init.max_parallelism = options_.max_parallelism;
    init.attempt_number = options_.attempt_number;
    init.checkpointing_enabled = options_.checkpointing_enabled;
    init.restored_checkpoint_id = restore.empty() ? -1 : 1;
    init.params = params_;
    init.output = &output_;
    init.keyed_state = keyed_.get();
    init.operator_state = operator_state_.get();
    init.timer_service = keyed_ ? keyed_->timer_service() : nullptr;
    init.coordinator = options_.coordinator;
    if (!restore.empty()) CKPT_RETURN_IF_ERROR(Restore(restore, &init));
    ctx_ = std::make_unique<OperatorContext>(std::move(init));
    CKPT_RETURN_IF_ERROR(op_->InitializeState(*ctx_, !restore.empty()));
    return op_->Open(*ctx_);
  }

  base::Status Process(Record record, uint32_t input = 0) {
    if (keyed_) CKPT_RETURN_IF_ERROR(SetKey(record.key));
    return input == 0 ? op_->ProcessElement(record) : op_->ProcessElement2(record);
  }

  base::Status Watermark(int64_t watermark) {
    if (keyed_) {
      CKPT_RETURN_IF_ERROR(keyed_->timer_service()->AdvanceWatermark(
          watermark, [this](const Timer& t) {
            ctx_->SetCurrentKeyForRuntime(keyed_->current_key(), keyed_->current_encoded_key(),
                                          keyed_->current_key_group());
            return op_->OnTimer(t);
          }));
    }
    ctx_->SetCurrentWatermarkForRuntime(watermark);
    CKPT_RETURN_IF_ERROR(op_->ProcessWatermark(watermark));
    return output_.EmitWatermark(watermark);  // the runtime forwards it after the operator
  }

  base::Result<SourceStatus> Poll() {
    auto* source = dynamic_cast<SourceOperator*>(op_.get());
    if (source == nullptr) return base::Status::Internal("not a source");
    return source->PollNext();
  }

  // Polls until end of input (or `max_polls`).
  base::Status RunSourceToEnd(int max_polls = 1000000) {
    for (int i = 0; i < max_polls; ++i) {
      CKPT_ASSIGN_OR_RETURN(SourceStatus s, Poll());
      if (s == SourceStatus::kEndOfInput) return base::Status::OK();
    }
    return base::Status::Internal("source did not end");
  }

  base::Result<SubtaskSnapshot> Snapshot(int64_t checkpoint_id) {
    CKPT_RETURN_IF_ERROR(op_->SnapshotState(checkpoint_id));
    SubtaskSnapshot snap;
    snap.subtask = options_.subtask;
    snap.committables = op_->SnapshotCommittables(checkpoint_id);
    if (keyed_) {
      std::unique_ptr<KeyedStateSnapshot> ks = keyed_->Snapshot();
      snap.keyed_states = ks->states();
      const format::KeyGroupRange range = ks->key_group_range();
      for (uint32_t g = range.start; g <= range.end; ++g) {
        CKPT_RETURN_IF_ERROR(ks->ForEachRecord(g, [&](const format::KeyedRecord& r) {
          snap.keyed.push_back({g, r.state_index, std::string(r.key), std::string(r.ns),
                                std::string(r.user_key), std::string(r.value)});
          return base::Status::OK();
        }));
      }
    }
    std::unique_ptr<OperatorStateSnapshot> os = operator_state_->Snapshot();
    for (uint32_t i = 0; i < os->states().size(); ++i) {
      SubtaskSnapshot::OperatorEntries e;
      e.descriptor = os->states()[i];
      CKPT_RETURN_IF_ERROR(os->ForEachRecord(i, [&](const format::OperatorRecord& r) {
        if (e.descriptor.kind() == pb::STATE_BROADCAST) {
          CKPT_ASSIGN_OR_RETURN(format::Value k,
                                format::DecodeValueExact(e.descriptor.user_key_type(), r.key));
          CKPT_ASSIGN_OR_RETURN(format::Value v,
                                format::DecodeValueExact(e.descriptor.value_type(), r.value));
          e.broadcast.emplace_back(std::move(k), std::move(v));
        } else {
          CKPT_ASSIGN_OR_RETURN(format::Value v,
                                format::DecodeValueExact(e.descriptor.value_type(), r.value));
          e.elements.push_back(std::move(v));
        }
        return base::Status::OK();
      }));
      snap.operator_states.push_back(std::move(e));
    }
    return snap;
  }

  base::Status NotifyComplete(int64_t checkpoint_id) {
    return op_->NotifyCheckpointComplete(checkpoint_id);
  }
  base::Status Finish() { return op_->Finish(); }
  void Close() { op_->Close(); }

  Operator* op() { return op_.get(); }
  OperatorContext* ctx() { return ctx_.get(); }
  KeyedStateBackend* keyed() { return keyed_.get(); }
  CollectingOutput& output() { return output_; }
  std::vector<Record>& records() { return output_.records; }

 private:
  OperatorHarness() = default;

  base::Status SetKey(const format::Value& key) {
    key_scratch_.clear();
    CKPT_RETURN_IF_ERROR(EncodeRecordKey(key, &key_scratch_));
    const uint32_t group = KeyGroupOfEncodedKey(key_scratch_, options_.max_parallelism);
    keyed_->SetCurrentKey(key, key_scratch_, group);
    ctx_->SetCurrentKeyForRuntime(key, key_scratch_, group);
    return base::Status::OK();
  }

  base::Status Restore(const std::vector<SubtaskSnapshot>& old, OperatorContextInit* init) {
    if (keyed_) {
      std::vector<pb::StateDescriptor> states;
      for (const SubtaskSnapshot& s : old) {
        if (!s.keyed_states.empty()) {
          states = s.keyed_states;
          break;
        }
      }
      if (!states.empty()) {
        CKPT_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, keyed_->DeclareRestoredStates(states));
        const format::KeyGroupRange range = keyed_->key_group_range();
        for (const SubtaskSnapshot& s : old) {
          for (const auto& e : s.keyed) {
            if (!range.Contains(e.key_group)) continue;
            format::KeyedRecord r{e.state_index, e.key, e.ns, e.user_key, e.value};
            CKPT_RETURN_IF_ERROR(keyed_->RestoreRecord(ids[e.state_index], e.key_group, r));
          }
        }
      }
    }
    // Operator state, by name, as RestorePlan deals it.
    std::vector<std::string> names;
    for (const SubtaskSnapshot& s : old) {
      for (const auto& e : s.operator_states) {
        if (std::find(names.begin(), names.end(), e.descriptor.name()) == names.end()) {
          names.push_back(e.descriptor.name());
        }
      }
    }
    for (const std::string& name : names) {
      pb::StateDescriptor d;
      std::vector<format::Value> all;
      std::vector<std::pair<format::Value, format::Value>> broadcast;
      for (const SubtaskSnapshot& s : old) {
        for (const auto& e : s.operator_states) {
          if (e.descriptor.name() != name) continue;
          d = e.descriptor;
          all.insert(all.end(), e.elements.begin(), e.elements.end());
          if (broadcast.empty()) broadcast = e.broadcast;
        }
      }
      if (d.kind() == pb::STATE_BROADCAST) {
        CKPT_RETURN_IF_ERROR(operator_state_->RestoreBroadcastState(d, std::move(broadcast)));
        continue;
      }
      std::vector<format::Value> mine;
      if (d.kind() == pb::STATE_OPERATOR_LIST && old.size() == options_.parallelism) {
        // Same parallelism: every subtask gets back exactly its own entries.
        for (const SubtaskSnapshot& s : old) {
          if (s.subtask != options_.subtask) continue;
          for (const auto& e : s.operator_states) {
            if (e.descriptor.name() == name) mine = e.elements;
          }
        }
        CKPT_RETURN_IF_ERROR(operator_state_->RestoreListState(d, std::move(mine)));
        continue;
      }
      for (size_t i = 0; i < all.size(); ++i) {
        if (d.kind() == pb::STATE_OPERATOR_UNION || i % options_.parallelism == options_.subtask) {
          mine.push_back(all[i]);
        }
      }
      CKPT_RETURN_IF_ERROR(operator_state_->RestoreListState(d, std::move(mine)));
    }
    for (const SubtaskSnapshot& s : old) {
      if (s.subtask % options_.parallelism != options_.subtask) continue;
      init->restored_committables.insert(init->restored_committables.end(),
                                         s.committables.begin(), s.committables.end());
    }
    return base::Status::OK();
  }

  std::unique_ptr<Operator> op_;
  HarnessOptions options_;
  std::string kind_;
  OperatorParams params_;
  std::unique_ptr<KeyedStateBackend> keyed_;
  std::unique_ptr<OperatorStateStore> operator_state_;
  std::unique_ptr<OperatorContext> ctx_;
  CollectingOutput output_;
  std::string key_scratch_;
};

// Record helpers.
inline Record KV(format::Value key, format::Value value, int64_t ts = kNoTimestamp) {
  return Record(std::move(key), std::move(value), ts);
}

}  // namespace ckpt::engine::testing
