// OperatorContext: what the runtime gives one operator subtask — identity, params, output, the
// state stores of the state backend, the current key, time and the operator's coordinator.
// Owned by the task and used only from its thread (except where noted).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/engine/operator_params.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/record.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

class KeyedStateBackend;
class OperatorStateStore;
class TimerService;
class OperatorCoordinator;

// The fields the runtime fills when it sets up a subtask.
struct OperatorContextInit {
  std::string job_id_hex;
  std::string name;
  std::string uid;
  std::string kind;
  format::OperatorId operator_id;
  uint32_t subtask_index = 0;
  uint32_t parallelism = 1;
  uint32_t max_parallelism = 128;
  // Restarts of the job so far (0 for the first run); the same for all operators of an attempt.
  uint32_t attempt_number = 0;
  pb::CheckpointingMode checkpointing_mode = pb::ALIGNED_EXACTLY_ONCE;
  // Periodic checkpoints or savepoints can happen (a checkpoint directory is configured).
  bool checkpointing_enabled = false;
  // Checkpoint the state was restored from; -1 when starting empty.
  int64_t restored_checkpoint_id = -1;
  // Restored committables this subtask owns (RestorePlan::Committables); empty when fresh.
  std::vector<pb::SinkCommittable> restored_committables;
  OperatorParams params;
  Output* output = nullptr;
  std::function<bool()> should_yield;  // ShouldYield; set by the runtime
  KeyedStateBackend* keyed_state = nullptr;
  OperatorStateStore* operator_state = nullptr;
  TimerService* timer_service = nullptr;
  OperatorCoordinator* coordinator = nullptr;
};

class OperatorContext {
 public:
  explicit OperatorContext(OperatorContextInit init) : init_(std::move(init)) {}
  OperatorContext(const OperatorContext&) = delete;
  OperatorContext& operator=(const OperatorContext&) = delete;

  const std::string& job_id_hex() const { return init_.job_id_hex; }
  const std::string& name() const { return init_.name; }
  const std::string& uid() const { return init_.uid; }
  const std::string& kind() const { return init_.kind; }
  const format::OperatorId& operator_id() const { return init_.operator_id; }
  uint32_t subtask_index() const { return init_.subtask_index; }
  uint32_t parallelism() const { return init_.parallelism; }
  uint32_t max_parallelism() const { return init_.max_parallelism; }
  uint32_t attempt_number() const { return init_.attempt_number; }
  pb::CheckpointingMode checkpointing_mode() const { return init_.checkpointing_mode; }
  bool checkpointing_enabled() const { return init_.checkpointing_enabled; }
  const OperatorParams& params() const { return init_.params; }

  // Where the operator emits; never null once the task runs.
  Output& output() { return *init_.output; }
  // Sources: whether PollNext should end its batch before the next record — the task has no
  // free output buffer, or a mail (a checkpoint trigger) waits. Checked before each record
  // after the first, it keeps a backpressured source from blocking in the middle of a batch,
  // where it could serve no barrier (FLINK-14396); PollNext then returns
  // kMoreAvailable and is called again once the task can emit. False outside a running task.
  bool ShouldYield() const { return init_.should_yield && init_.should_yield(); }

  // Keyed state of the current key; null unless the operator is keyed (HASH input).
  KeyedStateBackend* keyed_state() { return init_.keyed_state; }
  // Operator (non-keyed) state: list (split), union, broadcast. Never null.
  OperatorStateStore* operator_state() { return init_.operator_state; }
  // Event- and processing-time timers of the current key; null unless keyed.
  TimerService* timer_service() { return init_.timer_service; }
  // The operator's coordinator, or null if its kind has none. Thread-safe object.
  OperatorCoordinator* coordinator() { return init_.coordinator; }

  bool is_restored() const { return init_.restored_checkpoint_id >= 0; }
  int64_t restored_checkpoint_id() const { return init_.restored_checkpoint_id; }
  const std::vector<pb::SinkCommittable>& restored_committables() const {
    return init_.restored_committables;
  }

  // The key of the record being processed (or of the firing timer); Void outside keyed
  // processing. Valid until the next record; copy it if needed later.
  const format::Value& current_key() const { return current_key_; }
  std::string_view current_encoded_key() const { return current_encoded_key_; }
  uint32_t current_key_group() const { return current_key_group_; }

  // Event time: the last watermark the operator received (kNoTimestamp before the first).
  int64_t current_watermark() const { return current_watermark_; }
  // Wall-clock milliseconds since the Unix epoch (processing time).
  static int64_t CurrentProcessingTimeMs();

  // Runtime only: sets the current key (also set in the keyed backend by the runtime).
  void SetCurrentKeyForRuntime(const format::Value& key, std::string_view encoded,
                               uint32_t key_group) {
    current_key_ = key;
    current_encoded_key_.assign(encoded);
    current_key_group_ = key_group;
  }
  // Runtime only.
  void SetCurrentWatermarkForRuntime(int64_t watermark) { current_watermark_ = watermark; }
  void SetOutputForRuntime(Output* output) { init_.output = output; }
  void SetYieldForRuntime(std::function<bool()> should_yield) {
    init_.should_yield = std::move(should_yield);
  }

 private:
  OperatorContextInit init_;
  format::Value current_key_;
  std::string current_encoded_key_;
  uint32_t current_key_group_ = 0;
  int64_t current_watermark_ = kNoTimestamp;
};

}  // namespace ckpt::engine
