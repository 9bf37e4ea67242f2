// The Prometheus text exposition (format 0.0.4) of the job's checkpointing and task metrics, with the
// names and labels Flink's PrometheusReporter gives them: flink_jobmanager_job_<metric>{job_id,
// job_name, host}. Plain function, thread-safe.
#pragma once

#include <string>

#include "ckpt/engine/job_runner.h"

namespace ckpt::engine::rest {

// The content type of the exposition.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

// numberOfCheckpoints, numberOfInProgressCheckpoints, numberOfCompletedCheckpoints,
// numberOfFailedCheckpoints, lastCheckpointDuration, lastCheckpointSize, lastCheckpointFullSize,
// lastCheckpointProcessedData, lastCheckpointPersistedData, lastCompletedCheckpointId,
// lastCheckpointRestoreTimestamp (each -1 while there is none, as Flink's gauges), numRestarts
// and uptime, all gauges as in Flink; then, with task metrics on, every subtask's task metrics
// as flink_taskmanager_job_task_<name>{job_id, job_name, task_id, task_name, subtask_index,
// task_attempt_id, task_attempt_num, tm_id, host} (numRecordsIn/Out, numBytesIn/Out, their
// *PerSecond rates, busy/idle/backPressuredTimeMsPerSecond, accumulated*Time, watermarks,
// checkpointStartDelayNanos, checkpointAlignmentTime).
std::string PrometheusText(const JobRunner& job, const std::string& host, int64_t now_ms);

}  // namespace ckpt::engine::rest
