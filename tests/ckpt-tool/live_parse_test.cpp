// The live parsers (ops/src/live) on captured answer bodies: Flink 1.20 / 2.x and ckpt-engine
// shapes, missing and mistyped fields, and hostile sizes and nesting. Every error must be
// Corruption naming the request and the field.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "ckpt/ops/live.h"

namespace ckpt::ops {
namespace {

// Expects Corruption whose message contains every one of `parts`.
template <class T>
void ExpectLiveCorruption(const base::Result<T>& r, std::initializer_list<const char*> parts) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kCorruption) << r.status().ToString();
  for (const char* p : parts) {
    EXPECT_NE(r.status().message().find(p), std::string::npos)
        << "'" << p << "' not in: " << r.status().message();
  }
}

// Trimmed from a Flink 2.3 MiniCluster's answer (file: URIs, "NaN" percentiles, nulls).
constexpr const char* kLiveFlinkStatistics = R"({
 "counts": {"restored": 0, "total": 45, "in_progress": 1, "completed": 41, "failed": 3},
 "summary": {"checkpointed_size": {"min": 1748, "max": 2824, "avg": 2799, "p50": 2824.0, "p90": 2824.0, "p95": 2824.0, "p99": 2824.0, "p999": 2824.0},
             "end_to_end_duration": {"min": 0, "max": 0, "avg": 0, "p50": "NaN", "p90": "NaN", "p95": "NaN", "p99": "NaN", "p999": "NaN"}},
 "latest": {"completed": {"className": "completed", "id": 44, "status": "COMPLETED", "is_savepoint": false, "savepointFormat": null,
                          "checkpoint_type": "UNALIGNED_CHECKPOINT", "external_path": "file:/tmp/f/checkpoints/4396/chk-44", "discarded": false},
            "savepoint": {"className": "completed", "id": 13, "status": "COMPLETED", "is_savepoint": true, "savepointFormat": "CANONICAL",
                          "checkpoint_type": "SAVEPOINT", "external_path": "file:/tmp/f/savepoints/savepoint-439697-45b207b0f9a9", "discarded": false},
            "failed": null, "restored": {"id": 12, "restore_timestamp": 1796285610000, "is_savepoint": true, "external_path": "file:/tmp/sp-12"}},
 "history": [
   {"className": "in_progress", "id": 45, "status": "IN_PROGRESS", "is_savepoint": false, "trigger_timestamp": 1796285618975,
    "num_subtasks": 4, "num_acknowledged_subtasks": 1, "checkpoint_type": "UNALIGNED_CHECKPOINT", "tasks": {}},
   {"className": "completed", "id": 44, "status": "COMPLETED", "is_savepoint": false, "trigger_timestamp": 1796285618875,
    "latest_ack_timestamp": 1796285618885, "checkpointed_size": 2824, "state_size": 2824, "end_to_end_duration": 10,
    "alignment_buffered": 0, "processed_data": 0, "persisted_data": 18460, "num_subtasks": 4, "num_acknowledged_subtasks": 4,
    "checkpoint_type": "UNALIGNED_CHECKPOINT", "tasks": {},
    "external_path": "file:/tmp/f/checkpoints/4396/chk-44", "discarded": false},
   {"className": "failed", "id": 1, "status": "FAILED", "is_savepoint": false, "failure_timestamp": 1796285610000,
    "failure_message": "Checkpoint expired before completing."}]})";

TEST(LiveParseTest, ReadsFlinksCheckpointStatistics) {
  base::Result<LiveCheckpoints> c = ParseCheckpointingStatistics(kLiveFlinkStatistics);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->counts.total, 45);
  EXPECT_EQ(c->counts.in_progress, 1);
  EXPECT_EQ(c->counts.completed, 41);
  EXPECT_EQ(c->counts.failed, 3);
  ASSERT_EQ(c->history.size(), 3u);
  EXPECT_EQ(c->history[0].status, "IN_PROGRESS");
  EXPECT_EQ(c->history[0].external_path, "");
  EXPECT_EQ(c->history[1].id, 44);
  EXPECT_EQ(c->history[1].persisted_bytes, 18460);
  EXPECT_EQ(c->history[1].external_path, "file:/tmp/f/checkpoints/4396/chk-44");
  EXPECT_EQ(c->history[2].failure_message, "Checkpoint expired before completing.");
  ASSERT_TRUE(c->latest_savepoint.has_value());
  EXPECT_TRUE(c->latest_savepoint->is_savepoint);
  EXPECT_EQ(c->latest_savepoint->id, 13);
  EXPECT_FALSE(c->latest_failed.has_value());
  EXPECT_EQ(c->restored_id, 12);
  EXPECT_EQ(c->restored_path, "file:/tmp/sp-12");
  ASSERT_EQ(c->summary.size(), 2u);
  EXPECT_EQ(c->summary[0].metric, "checkpointed_size");
  EXPECT_EQ(c->summary[0].values[0], 1748);
  EXPECT_EQ(c->summary[1].metric, "end_to_end_duration");
  EXPECT_TRUE(std::isnan(c->summary[1].values[3]));  // "NaN"
}

TEST(LiveParseTest, StatisticsWithoutCountsOrWithMistypedFieldsAreRefused) {
  ExpectLiveCorruption(ParseCheckpointingStatistics(R"({"history": []})"),
                       {"GET /jobs/:jobid/checkpoints", "counts is missing"});
  ExpectLiveCorruption(ParseCheckpointingStatistics(R"({"counts": []})"),
                       {"counts is a array, not an object"});
  ExpectLiveCorruption(
      ParseCheckpointingStatistics(R"({"counts": {}, "history": [{"id": "7", "status": "COMPLETED"}]})",
                                   "GET /jobs/ab/checkpoints"),
      {"GET /jobs/ab/checkpoints", "history[0].id is a string, not a number"});
  ExpectLiveCorruption(ParseCheckpointingStatistics(R"({"counts": {}, "history": [{"id": 7}]})"),
                       {"history[0].status is missing"});
  ExpectLiveCorruption(ParseCheckpointingStatistics(R"({"counts": {}, "history": [3]})"),
                       {"history[0] is a number, not an object"});
  ExpectLiveCorruption(
      ParseCheckpointingStatistics(
          R"({"counts": {}, "history": [{"id": 1, "status": "COMPLETED", "num_subtasks": 1e12}]})"),
      {"history[0].num_subtasks is 1000000000000, out of range"});
  ExpectLiveCorruption(
      ParseCheckpointingStatistics(
          R"({"counts": {"total": 18446744073709551615}})"),
      {"counts.total is 18446744073709551615, out of range"});
  ExpectLiveCorruption(
      ParseCheckpointingStatistics(R"({"counts": {"total": 1.5}})"),
      {"counts.total is 1.5, not an integer"});
  ExpectLiveCorruption(
      ParseCheckpointingStatistics(
          R"({"counts": {}, "summary": {"state_size": {"p50": "lots"}}})"),
      {"summary.state_size.p50 is a string", "not a number"});
  ExpectLiveCorruption(
      ParseCheckpointingStatistics(R"({"counts": {}, "latest": {"completed": {"id": 1}}})"),
      {"latest.completed.status is missing"});
}

TEST(LiveParseTest, NotJsonOrNotAnObjectNamesTheRequest) {
  ExpectLiveCorruption(ParseJobsOverview("<html>502 Bad Gateway</html>", "GET /jobs/overview"),
                       {"GET /jobs/overview", "not JSON", "<html>"});
  ExpectLiveCorruption(ParseJobsOverview("[1, 2]"), {"GET /jobs/overview", "a JSON array"});
  ExpectLiveCorruption(ParseJobsOverview(""), {"not JSON"});
  ExpectLiveCorruption(ParseJobsOverview(R"({"jobs": [)"), {"not JSON"});
}

TEST(LiveParseTest, HostileSizesAndNestingAreBounded) {
  std::string deep = R"({"counts": {}, "x": )";
  for (int i = 0; i < 100000; ++i) deep += '[';
  for (int i = 0; i < 100000; ++i) deep += ']';
  deep += '}';
  ExpectLiveCorruption(ParseCheckpointingStatistics(deep), {"nests deeper than 64 levels"});
  ExpectLiveCorruption(ParseCheckpointConfig(deep), {"nests deeper than 64 levels"});
  // Brackets inside strings are text, not nesting.
  const std::string brackets = R"({"counts": {}, "history": [{"id": 1, "status": "FAILED", )"
                               R"("failure_message": "\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{{{{{{{{{{"}]})";
  base::Result<LiveCheckpoints> text = ParseCheckpointingStatistics(brackets);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->history[0].failure_message.substr(0, 3), "\"[[");

  std::string big = R"({"counts": {}, "pad": ")";
  big.append(kLiveMaxBodyBytes, 'x');
  big += "\"}";
  ExpectLiveCorruption(ParseCheckpointingStatistics(big), {"more than the 64 MiB limit"});

  // Many small entries are fine below the limit.
  std::string many = R"({"jobs": [)";
  for (int i = 0; i < 20000; ++i) {
    if (i) many += ',';
    many += R"({"jid": "j)" + std::to_string(i) + R"(", "name": "n", "state": "RUNNING"})";
  }
  many += "]}";
  base::Result<std::vector<LiveJob>> jobs = ParseJobsOverview(many);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_EQ(jobs->size(), 20000u);
}

TEST(LiveParseTest, ReadsTheJobsOverviewAndRequiresIdNameAndState) {
  base::Result<std::vector<LiveJob>> jobs = ParseJobsOverview(
      R"({"jobs": [{"jid": "fedcba9876543210fedcba9876543210", "name": "keyed-sum", "state": "RUNNING",
                    "start-time": 1796285610000, "end-time": -1, "duration": 5, "tasks": {"running": 4}},
                   {"jid": "0123", "name": "old", "state": "FINISHED"}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].id, "fedcba9876543210fedcba9876543210");
  EXPECT_EQ((*jobs)[0].start_time_ms, 1796285610000);
  EXPECT_EQ((*jobs)[1].state, "FINISHED");
  EXPECT_EQ((*jobs)[1].start_time_ms, 0);
  ExpectLiveCorruption(ParseJobsOverview(R"({})"), {"jobs is missing"});
  ExpectLiveCorruption(ParseJobsOverview(R"({"jobs": null})"), {"jobs is null"});
  ExpectLiveCorruption(ParseJobsOverview(R"({"jobs": [{"jid": "a", "name": "n"}]})"),
                       {"jobs[0].state is missing"});
  ExpectLiveCorruption(ParseJobsOverview(R"({"jobs": [{"jid": 5, "name": "n", "state": "RUNNING"}]})"),
                       {"jobs[0].jid is a number, not a string"});
}

TEST(LiveParseTest, ReadsVerticesDetailsAndSubtasks) {
  base::Result<std::vector<LiveVertex>> v = ParseJobVertices(
      R"({"jid": "j", "vertices": [{"id": "5e69", "name": "Source: seq -> slow", "parallelism": 2},
                                   {"id": "239c", "name": "sum -> sink: Writer", "parallelism": 2}]})");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[1].name, "sum -> sink: Writer");
  EXPECT_EQ((*v)[1].parallelism, 2);
  ExpectLiveCorruption(ParseJobVertices(R"({"vertices": [{"name": "x"}]})"),
                       {"GET /jobs/:jobid", "vertices[0].id is missing"});

  base::Result<std::vector<LiveTaskStats>> tasks = ParseCheckpointDetails(
      R"({"id": 13, "status": "COMPLETED", "tasks": {
      "5e69": {"id": 13, "status": "COMPLETED", "state_size": 530, "num_subtasks": 2, "num_acknowledged_subtasks": 2},
      "239c": {"id": 13, "status": "COMPLETED", "state_size": 1218, "num_subtasks": 2, "num_acknowledged_subtasks": 1}}})");
  ASSERT_TRUE(tasks.ok()) << tasks.status().ToString();
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[0].vertex_id, "239c");  // sorted by vertex id
  EXPECT_EQ((*tasks)[0].acknowledged, 1);
  EXPECT_EQ((*tasks)[1].state_bytes, 530);
  ExpectLiveCorruption(ParseCheckpointDetails(R"({"id": 13})"), {"tasks is missing"});
  ExpectLiveCorruption(ParseCheckpointDetails(R"({"tasks": {"v": []}})"),
                       {"tasks.v is a array, not an object"});

  base::Result<std::vector<LiveSubtaskStats>> subtasks = ParseSubtaskDetails(
      R"({"id": 45, "status": "IN_PROGRESS", "subtasks": [
      {"index": 0, "ack_timestamp": 1796285612802, "end_to_end_duration": 26, "checkpointed_size": 581,
       "state_size": 581, "checkpoint": {"sync": 1, "async": 8}, "alignment": {"buffered": 0, "processed": 0, "persisted": 8528, "duration": 3},
       "start_delay": 14, "unaligned_checkpoint": true, "aborted": false, "status": "completed"},
      {"className": "pending_or_failed", "index": 1, "status": "pending_or_failed"}]})");
  ASSERT_TRUE(subtasks.ok()) << subtasks.status().ToString();
  ASSERT_EQ(subtasks->size(), 2u);
  EXPECT_EQ((*subtasks)[0].async_ms, 8);
  EXPECT_EQ((*subtasks)[0].alignment_ms, 3);
  EXPECT_EQ((*subtasks)[0].persisted_bytes, 8528);
  EXPECT_TRUE((*subtasks)[0].unaligned);
  EXPECT_EQ((*subtasks)[1].index, 1);
  EXPECT_EQ((*subtasks)[1].status, "pending_or_failed");
  EXPECT_EQ((*subtasks)[1].sync_ms, 0);
  ExpectLiveCorruption(ParseSubtaskDetails(R"({"subtasks": [{"status": "completed"}]})"),
                       {"subtasks[0].index is missing"});
  ExpectLiveCorruption(ParseSubtaskDetails(R"({"subtasks": [{"index": 0, "checkpoint": 5}]})"),
                       {"subtasks[0].checkpoint is a number, not an object"});
}

TEST(LiveParseTest, FlattensTheConfigurationSortedByPath) {
  base::Result<LiveConfig> c = ParseCheckpointConfig(
      R"({"mode": "exactly_once", "interval": 100, "timeout": 600000.5,
          "externalization": {"enabled": true, "delete_on_cancellation": false},
          "state_backend": null, "tolerable_failed_checkpoints": [1, 2]})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const LiveConfig want = {{"externalization.delete_on_cancellation", "false"},
                           {"externalization.enabled", "true"},
                           {"interval", "100"},
                           {"mode", "exactly_once"},
                           {"state_backend", "\u2014"},
                           {"timeout", "600000.5"},
                           {"tolerable_failed_checkpoints", "[1,2]"}};
  EXPECT_EQ(*c, want);
}

TEST(LiveParseTest, ReadsTriggersAndOperationStatuses) {
  base::Result<std::string> id = ParseTriggerId(R"({"request-id": "a1b2"})");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, "a1b2");
  ExpectLiveCorruption(ParseTriggerId(R"({"requestId": "a1b2"})", "POST /jobs/j/savepoints"),
                       {"POST /jobs/j/savepoints", "request-id is missing"});

  base::Result<LiveOperation> running = ParseOperationStatus(R"({"status": {"id": "IN_PROGRESS"}})");
  ASSERT_TRUE(running.ok()) << running.status().ToString();
  EXPECT_FALSE(running->completed);

  base::Result<LiveOperation> done = ParseOperationStatus(
      R"({"status": {"id": "COMPLETED"}, "operation": {"location": "/sp/savepoint-1", "checkpointId": 9}})");
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_TRUE(done->completed);
  EXPECT_EQ(done->location, "/sp/savepoint-1");
  EXPECT_EQ(done->checkpoint_id, 9);
  EXPECT_FALSE(done->failure.has_value());

  base::Result<LiveOperation> failed = ParseOperationStatus(
      R"({"status": {"id": "COMPLETED"}, "operation": {"failure-cause": {"class": "x.Y", "stack-trace": "x.Y: disk full"}}})");
  ASSERT_TRUE(failed.ok()) << failed.status().ToString();
  ASSERT_TRUE(failed->failure.has_value());
  EXPECT_EQ(*failed->failure, "x.Y: disk full");
  base::Result<LiveOperation> bare = ParseOperationStatus(
      R"({"status": {"id": "COMPLETED"}, "operation": {"failure-cause": {"class": "x.Y"}}})");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->failure.value_or(""), R"({"class":"x.Y"})");

  ExpectLiveCorruption(ParseOperationStatus(R"({"status": {}})"), {"status.id is missing"});
  ExpectLiveCorruption(ParseOperationStatus(R"({"status": "COMPLETED"})"),
                       {"status is a string, not an object"});
}

TEST(LiveParseTest, ErrorTextKeepsFlinksMessageLine) {
  const std::string flink =
      R"({"errors": ["org.apache.flink.runtime.rest.handler.RestHandlerException: Could not find checkpointing statistics for checkpoint 99.\n\tat org.apache.flink.X.y(X.java:1)\n"]})";
  EXPECT_EQ(LiveErrorText(flink, true), "Could not find checkpointing statistics for checkpoint 99.");
  EXPECT_NE(LiveErrorText(flink, false).find("RestHandlerException"), std::string::npos);
  const std::string internal =
      R"({"errors": ["Internal server error.", "<Exception on server side:\njava.lang.IllegalStateException: boom\n\tat a.b(C.java:1)\n\nEnd of exception on server side>"]})";
  EXPECT_EQ(LiveErrorText(internal, true), "Internal server error.; boom");
  EXPECT_EQ(LiveErrorText(R"({"errors": ["Job 00 not found", "second"]})", false),
            "Job 00 not found; second");
  EXPECT_EQ(LiveErrorText("plain text", true), "plain text");
  const std::string huge(5000, 'h');
  EXPECT_EQ(LiveErrorText(huge, false).size(), 1003u);  // an excerpt
  const std::string deep(100000, '[');
  EXPECT_EQ(LiveErrorText(deep, true), std::string(1000, '[') + "...");
}

}  // namespace
}  // namespace ckpt::ops
