// TimerService: event-time and processing-time timers of one KeyedStateBackend, per (key,
// namespace, timestamp), deduplicated and ordered by timestamp (then key and namespace bytes).
// Timers are keyed state: they live in the backend's key groups, are snapshotted with it as two
// STATE_TIMERS states ("_timers/event-time", "_timers/processing-time") and restored and
// re-split by key group like any keyed state. Copy-on-write as the backend: a snapshot freezes
// the timer sets; the first timer change after it copies a set the snapshot still holds.
// Not thread-safe: the backend's thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "ckpt/base/status.h"
#include "ckpt/engine/operator.h"  // Timer, TimeDomain
#include "ckpt/format/proto.h"

namespace ckpt::engine {

namespace state_internal {
struct BackendCore;
}  // namespace state_internal

class TimerService {
 public:
  using TimerCallback = std::function<base::Status(const Timer&)>;

  explicit TimerService(state_internal::BackendCore* core);
  ~TimerService();

  // Register/delete a timer for the backend's current key and namespace. Registering an existing
  // timer is a no-op; deleting an absent one too. FailedPrecondition if the current key group is
  // not owned by the backend.
  base::Status RegisterEventTimeTimer(int64_t timestamp);
  base::Status RegisterProcessingTimeTimer(int64_t timestamp);
  base::Status DeleteEventTimeTimer(int64_t timestamp);
  base::Status DeleteProcessingTimeTimer(int64_t timestamp);

  // Fires, in timestamp order, every event-time timer with timestamp <= `watermark`: each is
  // removed, the backend's current key and namespace are set to the timer's, then `fire` runs
  // (it may register new timers; those due are fired in the same call). Stops at and returns the
  // first error of `fire`. Remembers the watermark (current_watermark()).
  base::Status AdvanceWatermark(int64_t watermark, const TimerCallback& fire);
  // The same for processing-time timers with timestamp <= `now_ms`.
  base::Status FireProcessingTimers(int64_t now_ms, const TimerCallback& fire);

  // Earliest pending timer, if any (the runtime schedules a wake-up for processing time).
  std::optional<int64_t> NextProcessingTimerMs() const;
  std::optional<int64_t> NextEventTimerMs() const;
  // Highest watermark passed to AdvanceWatermark; INT64_MIN before the first.
  int64_t current_watermark() const;

  size_t NumEventTimers() const;
  size_t NumProcessingTimers() const;

  // Type the timers' namespaces are declared with in snapshots. Default: VOID if every timer
  // has the empty namespace, otherwise the namespace type of the first registered keyed state
  // with a non-VOID namespace, otherwise BYTES.
  void SetNamespaceType(pb::TypeDescriptor type);

 private:
  state_internal::BackendCore* core_;
};

}  // namespace ckpt::engine
