// state entries: entry counts from the key-group index (exact only where a record is an entry
// and one keyed state fills the container) and the key filters a dump of a state accepts.
#include "ckpt/ops/state_entries.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ckpt/base/fs.h"
#include "ckpt/ops/dump.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ops_write_testutil.h"

namespace ckpt::ops {
namespace {

Snapshot LoadStateEntriesFixture(const std::string& rel) {
  auto s = LoadSnapshot(base::Fs::Default(), testing::FixturePath(rel));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : Snapshot{};
}

TEST(StateEntriesTest, KindsWithOneEntryPerRecord) {
  for (StateKind k : {StateKind::kValue, StateKind::kMap, StateKind::kReducing,
                      StateKind::kAggregating}) {
    EXPECT_TRUE(HasExactEntryCount(k)) << StateKindName(k);
  }
  for (StateKind k : {StateKind::kList, StateKind::kTimers, StateKind::kOperatorList,
                      StateKind::kOperatorUnion, StateKind::kBroadcast, StateKind::kUnspecified}) {
    EXPECT_FALSE(HasExactEntryCount(k)) << StateKindName(k);
  }
}

TEST(StateEntriesTest, OneValueStateCountsExactlyWhatDumpEmits) {
  testing::TempDir tmp;
  const std::string job = testing::opsw::CounterJobDir(tmp.Sub("root"));
  ASSERT_OK(testing::opsw::WriteCounterCheckpoint(job, 1));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), job + "/chk-1"));
  ASSERT_OK_AND_ASSIGN(StateEntryCount count, CountStateEntries(s, "counter"));
  EXPECT_TRUE(count.keyed);
  EXPECT_TRUE(count.exact) << count.not_exact_reason;
  EXPECT_TRUE(count.not_exact_reason.empty());
  uint64_t sum = 0;
  for (const auto& [group, n] : count.key_group_entries) {
    EXPECT_GT(n, 0u) << "key group " << group << " recorded as empty is left out";
    sum += n;
  }
  EXPECT_EQ(count.entries, sum);
  DumpOptions options;
  options.operator_ref = "counter";
  uint64_t dumped = 0;
  ASSERT_OK(Dump(base::Fs::Default(), s, options, [&](const DumpEntry& e) {
              if (e.key_group) ++dumped;
              return base::Status::OK();
            }).status());
  EXPECT_EQ(dumped, 40u);
  EXPECT_EQ(count.entries, dumped);
}

TEST(StateEntriesTest, ChangelogHandlesAreNotExact) {
  Snapshot s = LoadStateEntriesFixture("v1/checkpoints/" + testing::kFixtureV1Job + "/chk-2");
  ASSERT_OK_AND_ASSIGN(StateEntryCount count, CountStateEntries(s, "count-per-key"));
  EXPECT_TRUE(count.keyed);
  EXPECT_FALSE(count.exact);
  EXPECT_NE(count.not_exact_reason.find("subtask 0"), std::string::npos) << count.not_exact_reason;
  EXPECT_FALSE(count.key_group_entries.empty())
      << "every key group of the handles may hold entries";
}

TEST(StateEntriesTest, SeveralKeyedStatesInOneContainerAreNotExact) {
  Snapshot s = LoadStateEntriesFixture("v1/savepoint");
  ASSERT_OK_AND_ASSIGN(StateEntryCount all, CountStateEntries(s, "per-user-aggregate"));
  EXPECT_TRUE(all.keyed);
  EXPECT_FALSE(all.exact);
  EXPECT_NE(all.not_exact_reason.find("4 keyed states"), std::string::npos) << all.not_exact_reason;
  EXPECT_EQ(all.entries, 120u);  // 30 + 90 records in the two containers' indexes
  ASSERT_OK_AND_ASSIGN(StateEntryCount one,
                       CountStateEntries(s, "per-user-aggregate", "order-count"));
  EXPECT_FALSE(one.exact);
}

TEST(StateEntriesTest, OperatorStateIsNotCountedPerKeyGroup) {
  Snapshot s = LoadStateEntriesFixture("v1/savepoint");
  ASSERT_OK_AND_ASSIGN(StateEntryCount count, CountStateEntries(s, "orders-source"));
  EXPECT_FALSE(count.keyed);
  EXPECT_FALSE(count.exact);
  EXPECT_TRUE(count.key_group_entries.empty());
}

TEST(StateEntriesTest, KeyFiltersNeedKeyedState) {
  Snapshot s = LoadStateEntriesFixture("v1/savepoint");
  ASSERT_OK_AND_ASSIGN(KeyFilterSupport keyed,
                       KeyFilterSupportOf(s, "per-user-aggregate", "order-count"));
  EXPECT_TRUE(keyed.exact_key);
  EXPECT_TRUE(keyed.key_group);
  EXPECT_EQ(keyed.key_type, "string");
  ASSERT_OK_AND_ASSIGN(KeyFilterSupport op, KeyFilterSupportOf(s, "orders-source"));
  EXPECT_FALSE(op.exact_key);
  EXPECT_FALSE(op.key_group);
  EXPECT_NE(op.reason.find("no keyed state"), std::string::npos) << op.reason;
  ASSERT_OK_AND_ASSIGN(KeyFilterSupport list, KeyFilterSupportOf(s, "orders-source", "offsets"));
  EXPECT_NE(list.reason.find("'offsets' is not keyed"), std::string::npos) << list.reason;
}

TEST(StateEntriesTest, UnknownOperatorOrStateIsNotFound) {
  Snapshot s = LoadStateEntriesFixture("v1/savepoint");
  auto op = CountStateEntries(s, "no-such-operator");
  ASSERT_FALSE(op.ok());
  EXPECT_TRUE(op.status().IsNotFound());
  auto state = KeyFilterSupportOf(s, "per-user-aggregate", "no-such-state");
  ASSERT_FALSE(state.ok());
  EXPECT_TRUE(state.status().IsNotFound());
  EXPECT_NE(state.status().message().find("no-such-state"), std::string::npos);
}

// The engine's sequence source ("numbers") keeps its splits as tuples with named fields: each field is a
// column, named as value_json names it, in value_json's order.
TEST(StateEntriesTest, NamedTupleValueListsItsFieldsInJsonOrder) {
  Snapshot s = LoadStateEntriesFixture("engine-v1/savepoint-e0e1e2-30e19071c9cd");
  ASSERT_OK_AND_ASSIGN(StateValueFieldList fields,
                       StateValueFields(base::Fs::Default(), s, "numbers", "splits"));
  EXPECT_EQ(fields.layout, StateValueFieldList::Layout::kObjectMember);
  ASSERT_EQ(fields.names, (std::vector<std::string>{"split", "next", "end"}));
  DumpOptions options;
  options.operator_ref = "numbers";
  options.state = "splits";
  std::vector<std::string> values;
  ASSERT_OK(Dump(base::Fs::Default(), s, options, [&](const DumpEntry& e) {
              values.push_back(e.value_json);
              return base::Status::OK();
            }).status());
  ASSERT_FALSE(values.empty());
  for (const std::string& v : values) {
    size_t at = 0;
    for (const std::string& name : fields.names) {
      const size_t found = v.find("\"" + name + "\":", at);
      ASSERT_NE(found, std::string::npos) << name << " in " << v;
      at = found + 1;
    }
  }
}

TEST(StateEntriesTest, ScalarValuesAndSeveralStatesHaveNoFields) {
  Snapshot s = LoadStateEntriesFixture("engine-v1/savepoint-e0e1e2-30e19071c9cd");
  for (const OperatorInfo& op : s.operators) {
    for (const StateInfo& st : op.states) {
      if (st.name == "splits") continue;
      ASSERT_OK_AND_ASSIGN(StateValueFieldList fields,
                           StateValueFields(base::Fs::Default(), s, op.id_hex, st.name));
      if (st.value_type.rfind("tuple", 0) == 0) continue;
      EXPECT_TRUE(fields.names.empty()) << op.id_hex << " " << st.name << " " << st.value_type;
      EXPECT_EQ(fields.layout, StateValueFieldList::Layout::kNone);
    }
  }
}

TEST(StateEntriesTest, ValueFieldsOfAnUndeclaredStateIsNotFound) {
  Snapshot s = LoadStateEntriesFixture("engine-v1/savepoint-e0e1e2-30e19071c9cd");
  EXPECT_EQ(StateValueFields(base::Fs::Default(), s, "numbers", "no-such-state")
                .status()
                .code(),
            base::StatusCode::kNotFound);
}

// A Flink keyed value state of a Pojo: its fields are the Pojo's, named and ordered as the
// decoded value_json objects name them.
TEST(StateEntriesTest, FlinkPojoValueListsItsFields) {
  Snapshot s = LoadStateEntriesFixture("flink/table-state");
  ASSERT_OK_AND_ASSIGN(StateValueFieldList fields,
                       StateValueFields(base::Fs::Default(), s, "keyed-state-process-uid",
                                        "KeyedPojoValue"));
  EXPECT_EQ(fields.layout, StateValueFieldList::Layout::kObjectMember);
  ASSERT_FALSE(fields.names.empty());
  EXPECT_NE(std::find(fields.names.begin(), fields.names.end(), "publicLong"), fields.names.end());
  DumpOptions options;
  options.operator_ref = "keyed-state-process-uid";
  options.state = "KeyedPojoValue";
  int objects = 0;
  ASSERT_OK(Dump(base::Fs::Default(), s, options, [&](const DumpEntry& e) {
              if (e.value_json.empty() || e.value_json.front() != '{') return base::Status::OK();
              ++objects;
              size_t at = 0;
              for (const std::string& name : fields.names) {
                const size_t found = e.value_json.find("\"" + name + "\":", at);
                EXPECT_NE(found, std::string::npos) << name << " in " << e.value_json;
                if (found != std::string::npos) at = found + 1;
              }
              return base::Status::OK();
            }).status());
  EXPECT_GT(objects, 0);
  // Its primitive sibling has no fields.
  ASSERT_OK_AND_ASSIGN(StateValueFieldList primitive,
                       StateValueFields(base::Fs::Default(), s, "keyed-state-process-uid",
                                        "KeyedPrimitiveValue"));
  EXPECT_TRUE(primitive.names.empty());
}

}  // namespace
}  // namespace ckpt::ops
