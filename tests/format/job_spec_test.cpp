#include "ckpt/format/job_spec.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

const std::string kSpecPath = "jobs/orders.json";

constexpr const char* kValid = R"({
  "name": "orders",
  "parallelism": 2,
  "operators": [
    {"id": "src", "kind": "sequence-source", "uid": "src-uid", "params": {"rate": 100}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum-uid", "maxParallelism": 64},
    {"id": "sink", "kind": "file-sink", "name": "Files", "parallelism": 1}
  ],
  "edges": [
    {"from": "src", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "REBALANCE"}
  ],
  "checkpointing": {"intervalMs": 1000}
})";

TEST(JobSpecTest, ParsesAndFillsDefaults) {
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec, ParseJobSpec(kValid, kSpecPath));
  ASSERT_EQ(spec.operators_size(), 3);
  EXPECT_EQ(spec.operators(0).name(), "src");
  EXPECT_EQ(spec.operators(0).parallelism(), 2u);
  EXPECT_EQ(spec.operators(0).max_parallelism(), 128u);
  EXPECT_EQ(spec.operators(1).max_parallelism(), 64u);
  EXPECT_EQ(spec.operators(2).name(), "Files");
  EXPECT_EQ(spec.operators(2).parallelism(), 1u);
  EXPECT_EQ(spec.operators(0).params().fields().at("rate").number_value(), 100);
  EXPECT_EQ(spec.checkpointing().interval_ms(), 1000u);
  EXPECT_EQ(spec.checkpointing().mode(), pb::ALIGNED_EXACTLY_ONCE);
  EXPECT_EQ(spec.checkpointing().timeout_ms(), 600000u);
  EXPECT_EQ(spec.checkpointing().max_concurrent(), 1u);
  EXPECT_EQ(spec.checkpointing().num_retained(), 1u);
  EXPECT_EQ(spec.checkpointing().retention(), pb::NO_EXTERNALIZED);
  EXPECT_EQ(spec.restart().max_attempts(), 3u);
  EXPECT_EQ(spec.restart().delay_ms(), 1000u);
}

// The network settings of unaligned checkpoints and debloating, in the checkpointing section.
TEST(JobSpecTest, CheckpointingCarriesUnalignedAndDebloatSettings) {
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec, ParseJobSpec(R"({
    "name": "j",
    "operators": [{"id": "src", "kind": "sequence-source", "uid": "src"}],
    "checkpointing": {"mode": "ALIGNED_WITH_TIMEOUT", "aligned_checkpoint_timeout_ms": 250,
                      "max_subtasks_per_channel_state_file": 2, "debloat": true,
                      "debloatTargetMs": 500, "debloat_period_ms": 100, "min_buffer_bytes": 512}
  })",
                                                      kSpecPath));
  const pb::CheckpointSpec& cp = spec.checkpointing();
  EXPECT_EQ(cp.mode(), pb::ALIGNED_WITH_TIMEOUT);
  EXPECT_EQ(cp.aligned_checkpoint_timeout_ms(), 250u);
  EXPECT_EQ(cp.max_subtasks_per_channel_state_file(), 2u);
  EXPECT_TRUE(cp.debloat());
  EXPECT_EQ(cp.debloat_target_ms(), 500u);
  EXPECT_EQ(cp.debloat_period_ms(), 100u);
  EXPECT_EQ(cp.min_buffer_bytes(), 512u);
}

TEST(JobSpecTest, DefaultMaxParallelismFollowsFlink) {
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec, ParseJobSpec(R"({"name":"j","parallelism":200,"operators":[
                         {"id":"a","kind":"k"}]})",
                                                      kSpecPath));
  EXPECT_EQ(spec.operators(0).max_parallelism(), 512u);
  EXPECT_EQ(spec.restart().max_attempts(), 0u);  // checkpointing off
}

TEST(JobSpecTest, UnknownFieldIsNamed) {
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k","paralelism":2}]})", kSpecPath),
      kInvalidArgument, "paralelism");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","bogus":1})", kSpecPath), kInvalidArgument, kSpecPath);
}

TEST(JobSpecTest, SyntaxErrorNamesFile) {
  ASSERT_STATUS(ParseJobSpec("{\"name\": ", kSpecPath), kInvalidArgument, kSpecPath);
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","edges":[{"from":"a","to":"b","partitioning":"ZIGZAG"}]})",
                   kSpecPath),
      kInvalidArgument, kSpecPath);
}

// Every error points at the line and column of what it names, as compilers do, so that an
// editor jumps there.
TEST(JobSpecTest, ErrorsGiveLineAndColumn) {
  const std::string missing_comma = "{\n  \"name\": \"j\"\n  \"operators\": []\n}\n";
  ASSERT_STATUS(ParseJobSpec(missing_comma, kSpecPath), kInvalidArgument,
                kSpecPath + ":3:3: not valid JSON: expected ',' or '}' after a member");
  ASSERT_STATUS(ParseJobSpec("{\"name\": ", kSpecPath), kInvalidArgument, kSpecPath + ":1:10:");
  ASSERT_STATUS(ParseJobSpec("{\"name\": \"j\"} extra", kSpecPath), kInvalidArgument,
                kSpecPath + ":1:15: not valid JSON: expected the end of the text");
  ASSERT_STATUS(ParseJobSpec("[1, 2,\n\n  ]", kSpecPath), kInvalidArgument,
                kSpecPath + ":3:3: not valid JSON: expected a value");
  const std::string spec = R"({
  "name": "j",
  "operators": [
    {"id": "a", "kind": "sequence-source"},
    {"id": "b", "kind": "keyed-sum", "parallelism": 0},
    {"id": "c", "kind": "keyed-sum"}
  ]
})";
  ASSERT_STATUS(ParseJobSpec(spec, kSpecPath), kInvalidArgument,
                kSpecPath + ":5:53: operators[1] ('b').parallelism: 0 is not a parallelism");
  std::string no_id = spec;
  no_id.replace(no_id.find(", \"parallelism\": 0"), 18, "");
  no_id.replace(no_id.find("\"id\": \"c\", "), 11, "");
  ASSERT_STATUS(ParseJobSpec(no_id, kSpecPath), kInvalidArgument,
                kSpecPath + ":6:5: operators[2].id: required field is missing");
  std::string typo = no_id;
  typo.replace(typo.find("{\"kind\": \"keyed-sum\"}"), 21, R"({"id": "c", "kindd": 1})");
  ASSERT_STATUS(ParseJobSpec(typo, kSpecPath), kInvalidArgument, kSpecPath + ":6:26: not a valid job spec: (operators[2]) kindd");
  std::string bad_value = no_id;
  bad_value.replace(bad_value.find("\"j\""), 3, "7");
  ASSERT_STATUS(ParseJobSpec(bad_value, kSpecPath), kInvalidArgument, kSpecPath + ":2:11:");
  // A message whose field cannot be found keeps the plain path.
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j"})", kSpecPath), kInvalidArgument,
                kSpecPath + ":1:1: operators: a job needs at least one");
}

TEST(JobSpecTest, MissingRequiredFieldsAreNamed) {
  ASSERT_STATUS(ParseJobSpec(R"({"operators":[{"id":"a","kind":"k"}]})", kSpecPath),
                kInvalidArgument, "name: required");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"kind":"k"}]})", kSpecPath),
                kInvalidArgument, "operators[0].id: required");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a"}]})", kSpecPath),
                kInvalidArgument, "operators[0] ('a').kind: required");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j"})", kSpecPath), kInvalidArgument, "operators");
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"},{"id":"b","kind":"k"}],
                                 "edges":[{"from":"a","to":"b"}]})",
                   kSpecPath),
      kInvalidArgument, "edges[0].partitioning");
}

TEST(JobSpecTest, DuplicateIdsAndUidsAreNamed) {
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"},{"id":"a","kind":"k"}]})",
                   kSpecPath),
      kInvalidArgument, "operators[1] ('a').id: duplicate id");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k","uid":"u"},
                                                         {"id":"b","kind":"k","uid":"u"}]})",
                             kSpecPath),
                kInvalidArgument, "duplicate uid 'u', also used by operators[0] ('a')");
}

TEST(JobSpecTest, DanglingEdgesAreNamed) {
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"}],
                                 "edges":[{"from":"a","to":"ghost","partitioning":"FORWARD"}]})",
                             kSpecPath),
                kInvalidArgument, "edges[0].to: no operator has id 'ghost'");
}

TEST(JobSpecTest, CycleNamesItsOperators) {
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","operators":[{"id":"s","kind":"k"},{"id":"a","kind":"k"},
                                   {"id":"b","kind":"k"},{"id":"c","kind":"k"}],
                                 "edges":[{"from":"s","to":"a","partitioning":"REBALANCE"},
                                          {"from":"a","to":"b","partitioning":"REBALANCE"},
                                          {"from":"b","to":"c","partitioning":"REBALANCE"},
                                          {"from":"c","to":"a","partitioning":"REBALANCE","input":1}]})",
                   kSpecPath),
      kInvalidArgument, "cycle 'a' -> 'b' -> 'c' -> 'a'");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"}],
                                 "edges":[{"from":"a","to":"a","partitioning":"FORWARD"}]})",
                             kSpecPath),
                kInvalidArgument, "'a' feeds itself");
}

TEST(JobSpecTest, ForwardNeedsEqualParallelism) {
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k","parallelism":2},
                                   {"id":"b","kind":"k","parallelism":3}],
                                 "edges":[{"from":"a","to":"b","partitioning":"FORWARD"}]})",
                             kSpecPath),
                kInvalidArgument, "edges[0].partitioning: FORWARD from 'a' (parallelism 2)");
}

TEST(JobSpecTest, ParallelismAboveMaxIsNamed) {
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k","parallelism":300,
                                                          "maxParallelism":256}]})",
                             kSpecPath),
                kInvalidArgument, "operators[0] ('a').parallelism");
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k","maxParallelism":40000}]})",
                   kSpecPath),
      kInvalidArgument, "max_parallelism");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","parallelism":300,"maxParallelism":256,
                                 "operators":[{"id":"a","kind":"k"}]})",
                             kSpecPath),
                kInvalidArgument, "operators[0] ('a').parallelism (inherited from the job)");
}

TEST(JobSpecTest, InputIndexMustBeZeroOrOne) {
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"},{"id":"b","kind":"k"}],
                                 "edges":[{"from":"a","to":"b","partitioning":"HASH","input":2}]})",
                   kSpecPath),
      kInvalidArgument, "edges[0].input: 2");
}

TEST(JobSpecTest, JobIdMustBeHex) {
  ASSERT_STATUS(
      ParseJobSpec(R"({"name":"j","jobId":"xyz","operators":[{"id":"a","kind":"k"}]})", kSpecPath),
      kInvalidArgument, "job_id");
}

TEST(JobSpecTest, ReadsFileAndReportsMissing) {
  testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK(base::WriteFileAtomic(fs, dir.Sub("job.json"), kValid));
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec, ReadJobSpecFile(fs, dir.Sub("job.json")));
  EXPECT_EQ(spec.name(), "orders");
  ASSERT_STATUS(ReadJobSpecFile(fs, dir.Sub("missing.json")), kNotFound, "");
}

TEST(JobSpecTest, StateBackendFieldsParseAndBadValuesAreNamed) {
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec,
                       ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"}],
                       "state_backend":"rocksdb","incremental":true,"changelog":true,
                       "stateLocalDir":"/var/tmp/x","changelog_materialization_interval_ms":500})",
                                    kSpecPath));
  EXPECT_EQ(spec.state_backend(), "rocksdb");
  EXPECT_TRUE(spec.incremental());
  EXPECT_TRUE(spec.changelog());
  EXPECT_EQ(spec.state_local_dir(), "/var/tmp/x");
  EXPECT_EQ(spec.changelog_materialization_interval_ms(), 500u);
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"}],
                                 "state_backend":"rocks"})",
                             kSpecPath),
                kInvalidArgument, "state_backend: unknown state backend 'rocks'");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"}],
                                 "state_backend":"heap","incremental":true})",
                             kSpecPath),
                kInvalidArgument, "incremental");
  ASSERT_STATUS(ParseJobSpec(R"({"name":"j","operators":[{"id":"a","kind":"k"}],
                                 "changelog":"on"})",
                             kSpecPath),
                kInvalidArgument, "changelog");
}

}  // namespace
}  // namespace ckpt::format
