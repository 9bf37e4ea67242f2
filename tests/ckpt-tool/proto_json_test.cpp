// Tests of AppendProtoJson (ops/src/model/proto_json.cpp): byte-identical to protobuf's own
// JSON printer (BinaryToJsonString over a deterministic serialization, always printing primitive
// fields, proto field names) on every frozen fixture and on edge-case values.
#include "model/proto_json.h"

#include <gtest/gtest.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <memory>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/proto.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::ops::internal {
namespace {

std::string ProtobufJson(const google::protobuf::Message& m) {
  std::string binary;
  {
    google::protobuf::io::StringOutputStream stream(&binary);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver(
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          "type.googleapis.com", google::protobuf::DescriptorPool::generated_pool()));
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  EXPECT_TRUE(google::protobuf::util::BinaryToJsonString(
                  resolver.get(), "type.googleapis.com/" + m.GetDescriptor()->full_name(), binary,
                  &json, options)
                  .ok());
  return json;
}

// Context around the first difference, for a readable failure.
std::string FirstDiff(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i == a.size() && i == b.size()) return "";
  const size_t from = i < 60 ? 0 : i - 60;
  return "at " + std::to_string(i) + "\n  ours:     " + a.substr(from, 120) +
         "\n  protobuf: " + b.substr(from, 120);
}

std::string Ours(const google::protobuf::Message& m) {
  std::string out;
  AppendProtoJson(m, &out);
  return out;
}

TEST(ProtoJsonTest, MatchesProtobufOnEveryFixture) {
  const std::string job = "1a2b3c4d5e6f708192a3b4c5d6e7f801";
  for (const std::string& rel : std::vector<std::string>{"v1/savepoint", "v1/checkpoints/" + job + "/chk-1",
                                "v1/checkpoints/" + job + "/chk-2", "v1/unaligned/" + job + "/chk-5"}) {
    ASSERT_OK_AND_ASSIGN(pb::CheckpointMetadata m,
                         format::ReadMetadataFile(base::Fs::Default(),
                                                  testing::FixturePath(rel) + "/_metadata"));
    EXPECT_EQ(FirstDiff(Ours(m), ProtobufJson(m)), "") << rel;
  }
}

TEST(ProtoJsonTest, MatchesProtobufOnEdgeCases) {
  pb::CheckpointMetadata m;
  m.set_job_name("quote\" backslash\\ ctrl\x01 tab\t nl\n utf8 \xc3\xa9 <b>& del\x7f ls\xe2\x80\xa8 ps\xe2\x80\xa9 /");
  m.set_job_id(std::string("\x00\xff\x10", 3));  // base64 with padding
  m.set_engine_name("ab");
  m.set_checkpoint_id(-5);
  m.set_trigger_timestamp(INT64_MAX);
  (*m.mutable_properties())["z"] = "1";
  (*m.mutable_properties())["a"] = "2";
  (*m.mutable_properties())[""] = "3";
  auto* op = m.add_operators();
  op->set_operator_id(std::string(16, 'x'));
  op->mutable_coordinator_state()->set_file_index(0);  // oneof member equal to its default
  auto* st = op->add_subtasks();
  st->set_subtask_index(3);
  auto* kg = st->add_keyed_state()->mutable_key_groups();
  kg->add_key_group_offsets(UINT64_MAX);
  kg->add_key_group_record_counts(0);
  auto* rocks = st->add_keyed_state()->mutable_rocksdb();
  (*rocks->mutable_column_families())["s"] = "cf";
  m.mutable_files()->Add()->set_checksum_xxh3(UINT64_MAX);
  m.set_mode(static_cast<pb::CheckpointingMode>(99));  // unknown enum value
  EXPECT_EQ(FirstDiff(Ours(m), ProtobufJson(m)), "");
  EXPECT_EQ(FirstDiff(Ours(pb::CheckpointMetadata()), ProtobufJson(pb::CheckpointMetadata())), "");
}

}  // namespace
}  // namespace ckpt::ops::internal
