// TimerService: ordered, deduplicated timer sets (one per time domain) with copy-on-write.
#include "ckpt/engine/state/timer_service.h"

#include <utility>

#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::BackendCore;
using state_internal::TimerEntry;
using state_internal::TimerSet;

TimerService::TimerService(BackendCore* core) : core_(core) {}
TimerService::~TimerService() = default;

namespace {

TimerEntry CurrentTimer(const BackendCore& c, int64_t timestamp) {
  TimerEntry t;
  t.timestamp = timestamp;
  t.key = c.current_encoded_key;
  t.ns = c.current_ns;
  t.key_group = c.current_key_group;
  t.key_value = c.current_key;
  return t;
}

base::Status Register(BackendCore* c, bool event_time, int64_t timestamp) {
  if (!c->key_in_range) return c->NotOwned();
  const TimerSet& current = *(event_time ? c->event_timers : c->processing_timers).table;
  TimerEntry t = CurrentTimer(*c, timestamp);
  if (current.count(t) != 0) return base::Status::OK();  // deduplicated, no copy-on-write
  if (c->timer_observer) c->timer_observer(event_time, t, true);
  c->WriteTimers(event_time)->insert(std::move(t));
  return base::Status::OK();
}

base::Status Delete(BackendCore* c, bool event_time, int64_t timestamp) {
  if (!c->key_in_range) return c->NotOwned();
  const TimerSet& current = *(event_time ? c->event_timers : c->processing_timers).table;
  TimerEntry probe;
  probe.timestamp = timestamp;
  probe.key = c->current_encoded_key;
  probe.ns = c->current_ns;
  probe.key_group = c->current_key_group;
  if (current.count(probe) == 0) return base::Status::OK();
  c->WriteTimers(event_time)->erase(probe);
  if (c->timer_observer) c->timer_observer(event_time, probe, false);
  return base::Status::OK();
}

base::Status Fire(BackendCore* c, bool event_time, int64_t up_to,
                  const TimerService::TimerCallback& fire) {
  auto& slot = event_time ? c->event_timers : c->processing_timers;
  while (!slot.table->empty() && slot.table->begin()->timestamp <= up_to) {
    TimerSet* set = c->WriteTimers(event_time);
    TimerEntry t = std::move(set->extract(set->begin()).value());
    if (c->timer_observer) c->timer_observer(event_time, t, false);
    // Make the timer's key and namespace current, as the runtime does for records.
    c->current_key = std::move(t.key_value);
    c->current_encoded_key = std::move(t.key);
    c->current_key_group = t.key_group;
    c->key_in_range = c->range.Contains(t.key_group);
    c->kg_index = c->key_in_range ? t.key_group - c->range.start : 0;
    c->key_hash = state_internal::HashBytes(c->current_encoded_key);
    c->current_ns = t.ns;
    c->ns_hash = state_internal::HashBytes(c->current_ns);
    c->UpdateHash();
    ++c->key_version;
    Timer timer;
    timer.domain = event_time ? TimeDomain::kEventTime : TimeDomain::kProcessingTime;
    timer.timestamp = t.timestamp;
    timer.ns = std::move(t.ns);
    CKPT_RETURN_IF_ERROR(fire(timer));
  }
  return base::Status::OK();
}

}  // namespace

base::Status TimerService::RegisterEventTimeTimer(int64_t timestamp) {
  return Register(core_, true, timestamp);
}
base::Status TimerService::RegisterProcessingTimeTimer(int64_t timestamp) {
  return Register(core_, false, timestamp);
}
base::Status TimerService::DeleteEventTimeTimer(int64_t timestamp) {
  return Delete(core_, true, timestamp);
}
base::Status TimerService::DeleteProcessingTimeTimer(int64_t timestamp) {
  return Delete(core_, false, timestamp);
}

base::Status TimerService::AdvanceWatermark(int64_t watermark, const TimerCallback& fire) {
  if (watermark > core_->watermark) core_->watermark = watermark;
  return Fire(core_, true, watermark, fire);
}

base::Status TimerService::FireProcessingTimers(int64_t now_ms, const TimerCallback& fire) {
  return Fire(core_, false, now_ms, fire);
}

std::optional<int64_t> TimerService::NextProcessingTimerMs() const {
  const TimerSet& s = *core_->processing_timers.table;
  if (s.empty()) return std::nullopt;
  return s.begin()->timestamp;
}

std::optional<int64_t> TimerService::NextEventTimerMs() const {
  const TimerSet& s = *core_->event_timers.table;
  if (s.empty()) return std::nullopt;
  return s.begin()->timestamp;
}

int64_t TimerService::current_watermark() const { return core_->watermark; }
size_t TimerService::NumEventTimers() const { return core_->event_timers.table->size(); }
size_t TimerService::NumProcessingTimers() const {
  return core_->processing_timers.table->size();
}

void TimerService::SetNamespaceType(pb::TypeDescriptor type) {
  core_->timer_ns_type = std::move(type);
  core_->timer_ns_type_set = true;
}

}  // namespace ckpt::engine
