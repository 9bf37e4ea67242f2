#include "ckpt/format/metadata_codec.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

using google::protobuf::util::MessageDifferencer;

const std::string kMetadataPath = "/snap/chk-7/_metadata";

// Every field family of the schema set to a non-default value, so a round trip that drops or
// mangles any of them fails.
pb::CheckpointMetadata FullyPopulated() {
  pb::CheckpointMetadata m;
  m.set_format_version(kFormatVersion);
  m.set_engine_name("ckpt-engine");
  m.set_engine_version("0.1.0");
  m.set_job_id(std::string(16, '\x5a'));
  m.set_job_name("orders");
  m.set_checkpoint_id(7);
  m.set_kind(pb::SAVEPOINT);
  m.set_savepoint_format(pb::CANONICAL);
  m.set_checkpoint_type(pb::INCREMENTAL);
  m.set_post_action(pb::POST_ACTION_STOP);
  m.set_mode(pb::ALIGNED_WITH_TIMEOUT);
  auto* r = m.mutable_restored_from();
  r->set_path("/sp/savepoint-5a5a5a-0123456789ab");
  r->set_checkpoint_id(3);
  r->set_kind(pb::SAVEPOINT);
  r->set_claim_mode(pb::CLAIM);
  r->set_allow_non_restored_state(true);
  m.set_trigger_timestamp(1700000000000);
  m.set_completion_timestamp(1700000000123);
  const std::string a = OperatorId::FromUid("a").ToBytes();
  const std::string b = OperatorId::FromUid("b").ToBytes();
  auto* g = m.mutable_job_graph();
  auto* oa = g->add_operators();
  oa->set_operator_id(a);
  oa->set_uid("a");
  oa->set_name("Source A");
  oa->set_kind("sequence-source");
  oa->set_parallelism(2);
  oa->set_max_parallelism(128);
  oa->set_chain_index(0);
  oa->set_position_in_chain(0);
  oa->set_spec_id("src");
  auto* ob = g->add_operators();
  ob->set_operator_id(b);
  ob->set_kind("keyed-sum");
  ob->set_parallelism(2);
  ob->set_max_parallelism(128);
  ob->set_chain_index(1);
  ob->set_position_in_chain(1);
  auto* e = g->add_edges();
  e->set_source_operator_id(a);
  e->set_target_operator_id(b);
  e->set_partitioning(pb::HASH);
  e->set_target_input(1);
  for (int i = 0; i < 4; ++i) {
    auto* f = m.add_files();
    f->set_path("f" + std::to_string(i));
    f->set_scope(i == 3 ? pb::SHARED : pb::EXCLUSIVE);
    f->set_kind(static_cast<pb::FileKind>(i + 1));
    f->set_size_bytes(100 + i);
    f->set_checksum_xxh3(0xfeedface00000000ull + i);
    f->set_compression(pb::COMPRESSION_ZSTD);
    f->set_created_by_checkpoint_id(i == 3 ? 5 : 7);
  }
  auto* ext = m.add_files();
  ext->set_path("/data/external/blob");
  ext->set_scope(pb::EXTERNAL);

  auto* os = m.add_operators();
  os->set_operator_id(b);
  os->set_parallelism(2);
  os->set_max_parallelism(128);
  os->set_fully_finished(true);
  auto* sd = os->add_states();
  sd->set_name("counts");
  sd->set_kind(pb::STATE_MAP);
  sd->mutable_key_type()->set_kind(pb::TypeDescriptor::STRING);
  sd->mutable_namespace_type()->set_kind(pb::TypeDescriptor::VOID);
  sd->mutable_user_key_type()->set_kind(pb::TypeDescriptor::INT64);
  auto* vt = sd->mutable_value_type();
  vt->set_kind(pb::TypeDescriptor::TUPLE);
  vt->add_elements()->set_kind(pb::TypeDescriptor::DOUBLE);
  vt->add_elements()->set_kind(pb::TypeDescriptor::PROTO);
  vt->mutable_elements(1)->set_proto_message_name("x.Y");
  vt->mutable_elements(1)->set_proto_descriptor_set("\x0a\x00", 2);
  vt->add_field_names("d");
  vt->add_field_names("p");
  sd->set_serializer_version(3);
  sd->set_timer_domain("event-time");
  auto* cs = os->mutable_coordinator_state();
  cs->set_inline_data("splits");
  cs->mutable_type()->set_kind(pb::TypeDescriptor::BYTES);
  cs->set_size_bytes(6);

  auto* st = os->add_subtasks();
  st->set_subtask_index(1);
  st->set_finished(true);
  auto* kg = st->add_keyed_state()->mutable_key_groups();
  kg->set_key_group_start(64);
  kg->set_key_group_end(66);
  kg->set_file_index(0);
  for (uint64_t v : {0, 10, 20}) kg->add_key_group_offsets(v);
  for (uint64_t v : {1, 2, 3}) kg->add_key_group_record_counts(v);
  auto* rdb = st->add_keyed_state()->mutable_rocksdb();
  rdb->set_key_group_start(64);
  rdb->set_key_group_end(127);
  rdb->set_backend_id("db-1");
  rdb->add_sst_files()->set_local_name("000012.sst");
  rdb->mutable_sst_files(0)->set_file_index(3);
  rdb->add_meta_files()->set_local_name("MANIFEST-000005");
  rdb->mutable_meta_files(0)->set_file_index(1);
  (*rdb->mutable_column_families())["counts"] = "cf-counts";
  (*rdb->mutable_column_families())["another"] = "cf-another";
  auto* cl = st->add_keyed_state()->mutable_changelog();
  cl->set_key_group_start(64);
  cl->set_key_group_end(127);
  cl->set_materialization_id(4);
  *cl->add_materialized() = st->keyed_state(0);
  auto* seg = cl->add_segments();
  seg->mutable_slice()->set_file_index(2);
  seg->mutable_slice()->set_offset(5);
  seg->mutable_slice()->set_length(50);
  seg->set_from_sequence(10);
  seg->set_to_sequence(20);
  auto* oh = st->add_operator_state();
  oh->set_file_index(1);
  auto* part = oh->add_partitions();
  part->set_state_name("offsets");
  part->set_distribution(pb::STATE_OPERATOR_UNION);
  part->add_entry_offsets(0);
  part->add_entry_offsets(9);
  auto* in = st->add_input_channel_state();
  in->set_gate_index(1);
  in->set_channel_index(2);
  in->add_buffers()->set_file_index(2);
  in->mutable_buffers(0)->set_offset(100);
  in->mutable_buffers(0)->set_length(32);
  in->set_size_bytes(32);
  auto* outc = st->add_output_channel_state();
  outc->set_partition_index(0);
  outc->set_subpartition_index(1);
  outc->add_buffers()->set_file_index(2);
  outc->set_size_bytes(0);
  auto* c = st->add_committables();
  c->set_pending_path("/out/.part-b-1-0.inprogress");
  c->set_final_path("/out/part-b-1-0");
  c->set_size_bytes(77);
  c->set_checksum_xxh3(0x1234);
  c->set_checkpoint_id(7);
  auto* sm = st->mutable_metrics();
  sm->set_ack_timestamp(1700000000100);
  sm->set_end_to_end_duration(100);
  sm->set_state_size(1000);
  sm->set_checkpointed_size(400);
  sm->set_sync_duration(1);
  sm->set_async_duration(20);
  sm->set_alignment_duration(3);
  sm->set_start_delay(4);
  sm->set_processed_data(55);
  sm->set_persisted_data(66);
  sm->set_unaligned_checkpoint(true);

  auto* cm = m.mutable_metrics();
  cm->set_trigger_timestamp(1700000000000);
  cm->set_latest_ack_timestamp(1700000000100);
  cm->set_end_to_end_duration(123);
  cm->set_state_size(5000);
  cm->set_checkpointed_size(2000);
  cm->set_processed_data(55);
  cm->set_persisted_data(66);
  cm->set_num_subtasks(4);
  cm->set_num_acknowledged_subtasks(4);
  cm->set_is_unaligned(true);
  cm->set_alignment_timeout(30000);
  m.set_retention(pb::RETAIN_ON_CANCELLATION);
  (*m.mutable_properties())["execution.checkpointing.interval"] = "1000";
  (*m.mutable_properties())["state.backend.type"] = "hashmap";
  return m;
}

std::string ValidImage() { return EncodeMetadata(FullyPopulated()); }

TEST(MetadataCodecTest, RoundTripsEveryFieldFamily) {
  const pb::CheckpointMetadata m = FullyPopulated();
  ASSERT_OK_AND_ASSIGN(pb::CheckpointMetadata back,
                       DecodeMetadata(EncodeMetadata(m), kMetadataPath));
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(m, back)) << diff;
}

TEST(MetadataCodecTest, EncodingIsDeterministic) {
  // Map fields are the usual source of nondeterminism: build them in two insertion orders.
  pb::CheckpointMetadata a = FullyPopulated();
  pb::CheckpointMetadata b = FullyPopulated();
  b.mutable_properties()->clear();
  (*b.mutable_properties())["state.backend.type"] = "hashmap";
  (*b.mutable_properties())["execution.checkpointing.interval"] = "1000";
  EXPECT_EQ(EncodeMetadata(a), EncodeMetadata(b));
}

TEST(MetadataCodecTest, EnvelopeHasDocumentedLayout) {
  const std::string image = ValidImage();
  ASSERT_OK_AND_ASSIGN(MetadataEnvelope env, DecodeEnvelope(image, kMetadataPath));
  EXPECT_EQ(image.substr(0, 8), "CKPTMETA");
  EXPECT_EQ(env.format_version, 1u);
  EXPECT_EQ(env.flags, 0u);
  EXPECT_EQ(env.payload_length, image.size() - kMetadataHeaderSize - kMetadataTrailerSize);
  EXPECT_EQ(FullyPopulated().SerializeAsString().size(), env.payload_length);
  const uint64_t stored = base::DecodeFixed64(image.data() + image.size() - 8);
  EXPECT_EQ(stored, base::Xxh3(std::string_view(image).substr(0, image.size() - 8)));
}

TEST(MetadataCodecTest, RejectsTruncatedFileAtEveryLength) {
  const std::string image = ValidImage();
  for (size_t len = 0; len < image.size(); len += (len < 64 ? 1 : 37)) {
    SCOPED_TRACE(len);
    ASSERT_STATUS(DecodeMetadata(std::string_view(image).substr(0, len), kMetadataPath),
                  kCorruption, kMetadataPath);
  }
  ASSERT_STATUS(DecodeMetadata(std::string_view(image).substr(0, image.size() - 1), kMetadataPath),
                kCorruption, "truncated");
}

TEST(MetadataCodecTest, RejectsTrailingBytes) {
  ASSERT_STATUS(DecodeMetadata(ValidImage() + "x", kMetadataPath), kCorruption, "unexpected bytes");
}

TEST(MetadataCodecTest, RejectsFlippedPayloadByte) {
  const std::string image = ValidImage();
  for (size_t pos = kMetadataHeaderSize; pos < image.size(); pos += 13) {
    std::string bad = image;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x01);
    SCOPED_TRACE(pos);
    ASSERT_STATUS(DecodeMetadata(bad, kMetadataPath), kCorruption, kMetadataPath);
  }
  std::string bad = image;
  bad[kMetadataHeaderSize + 3] ^= 0x40;
  ASSERT_STATUS(DecodeMetadata(bad, kMetadataPath), kCorruption, "checksum mismatch");
}

TEST(MetadataCodecTest, RejectsBadMagic) {
  std::string bad = ValidImage();
  bad[0] = 'X';
  ASSERT_STATUS(DecodeMetadata(bad, kMetadataPath), kCorruption, "not a checkpoint metadata file");
  ASSERT_STATUS(DecodeMetadata("PK\x03\x04 a zip file", kMetadataPath), kCorruption, kMetadataPath);
}

TEST(MetadataCodecTest, RejectsNewerVersionBeforeParsing) {
  std::string bad = ValidImage();
  bad[8] = 2;
  ASSERT_STATUS(DecodeMetadata(bad, kMetadataPath), kUnimplemented,
                "written by a newer version (2)");
  ASSERT_STATUS(DecodeEnvelope(bad, kMetadataPath), kUnimplemented, kMetadataPath);
  ASSERT_STATUS(DecodeEnvelope(bad, kMetadataPath), kUnimplemented, "reads up to 1");
}

TEST(MetadataCodecTest, RejectsUnknownFlags) {
  std::string bad = ValidImage();
  bad[12] = 1;
  ASSERT_STATUS(DecodeMetadata(bad, kMetadataPath), kCorruption, "flags");
}

TEST(MetadataCodecTest, RejectsHostileLengthWithoutAllocating) {
  std::string bad = ValidImage();
  std::string len;
  base::PutFixed64(&len, ~uint64_t{0});
  bad.replace(16, 8, len);
  ASSERT_STATUS(DecodeMetadata(bad, kMetadataPath), kCorruption, "exceeds the limit");
  len.clear();
  base::PutFixed64(&len, kMaxMetadataPayloadBytes);  // allowed, but beyond the file
  bad.replace(16, 8, len);
  ASSERT_STATUS(DecodeMetadata(bad, kMetadataPath), kCorruption, "truncated");
}

TEST(MetadataCodecTest, RejectsUnparsablePayloadWithValidChecksum) {
  std::string image(kMetadataMagic);
  base::PutFixed32(&image, 1);
  base::PutFixed32(&image, 0);
  const std::string payload = "\xff\xff\xff\xff";
  base::PutFixed64(&image, payload.size());
  image += payload;
  base::PutFixed64(&image, base::Xxh3(image));
  ASSERT_STATUS(DecodeMetadata(image, kMetadataPath), kCorruption,
                "not a valid CheckpointMetadata");
}

TEST(MetadataCodecTest, RejectsFileIndexOutsideFileTable) {
  pb::CheckpointMetadata m = FullyPopulated();
  m.mutable_operators(0)->mutable_subtasks(0)->mutable_operator_state(0)->set_file_index(99);
  ASSERT_STATUS(DecodeMetadata(EncodeMetadata(m), kMetadataPath), kCorruption, "file #99");
}

TEST(MetadataCodecTest, RejectsShortOperatorId) {
  pb::CheckpointMetadata m = FullyPopulated();
  m.mutable_operators(0)->set_operator_id("short");
  ASSERT_STATUS(DecodeMetadata(EncodeMetadata(m), kMetadataPath), kCorruption, "expected 16");
  m = FullyPopulated();
  m.mutable_job_graph()->mutable_edges(0)->set_target_operator_id("");
  ASSERT_STATUS(DecodeMetadata(EncodeMetadata(m), kMetadataPath), kCorruption,
                "target_operator_id");
}

TEST(MetadataCodecTest, RejectsMismatchedKeyGroupOffsets) {
  pb::CheckpointMetadata m = FullyPopulated();
  m.mutable_operators(0)->mutable_subtasks(0)->mutable_keyed_state(0)->mutable_key_groups()
      ->add_key_group_offsets(30);
  ASSERT_STATUS(DecodeMetadata(EncodeMetadata(m), kMetadataPath), kCorruption, "key-group offsets");
  m = FullyPopulated();
  m.mutable_operators(0)->mutable_subtasks(0)->mutable_keyed_state(1)->mutable_rocksdb()
      ->set_key_group_end(128);
  ASSERT_STATUS(DecodeMetadata(EncodeMetadata(m), kMetadataPath), kCorruption,
                "max parallelism 128");
}

TEST(MetadataCodecTest, RejectsEscapingFileReference) {
  pb::CheckpointMetadata m = FullyPopulated();
  m.mutable_files(1)->set_path("../../etc/passwd");
  ASSERT_STATUS(DecodeMetadata(EncodeMetadata(m), kMetadataPath), kCorruption, "../../etc/passwd");
  m.mutable_files(1)->set_path("/etc/passwd");
  ASSERT_STATUS(DecodeMetadata(EncodeMetadata(m), kMetadataPath), kCorruption, "absolute");
}

TEST(MetadataCodecTest, WritesAndReadsFile) {
  testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK(WriteMetadataFile(fs, dir.path(), FullyPopulated()));
  ASSERT_OK_AND_ASSIGN(pb::CheckpointMetadata back, ReadMetadataFile(fs, dir.Sub("_metadata")));
  EXPECT_TRUE(MessageDifferencer::Equals(FullyPopulated(), back));
  // No temp file is left beside it.
  ASSERT_OK_AND_ASSIGN(auto entries, fs.ListDir(dir.path()));
  ASSERT_EQ(entries.size(), 1u);
}

TEST(MetadataCodecTest, NeverOverwritesPublishedMetadata) {
  testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK(WriteMetadataFile(fs, dir.path(), FullyPopulated()));
  ASSERT_STATUS(WriteMetadataFile(fs, dir.path(), pb::CheckpointMetadata()), kAlreadyExists,
                dir.Sub("_metadata"));
}

TEST(MetadataCodecTest, PublishIsAtomicUnderCrashAtEveryStep) {
  // Whatever step the process dies at, a reader finds either no _metadata (an incomplete
  // checkpoint) or the complete one, never a partial file.
  const pb::CheckpointMetadata m = FullyPopulated();
  bool saw_complete = false;
  for (int64_t crash_after = 0; crash_after < 12; ++crash_after) {
    SCOPED_TRACE(crash_after);
    testing::TempDir dir;
    base::FaultInjectionFs faulty(base::Fs::Default());
    faulty.CrashAfter(crash_after);
    base::Status st = WriteMetadataFile(faulty, dir.path(), m);
    auto read = ReadMetadataFile(base::Fs::Default(), dir.Sub("_metadata"));
    if (read.ok()) {
      EXPECT_TRUE(MessageDifferencer::Equals(m, *read));
      saw_complete = true;
    } else {
      EXPECT_FALSE(st.ok());
      ASSERT_STATUS(read, kNotFound, "");
    }
  }
  EXPECT_TRUE(saw_complete);
}

TEST(MetadataCodecTest, TornWriteIsDetectedOnRead) {
  testing::TempDir dir;
  base::FaultInjectionFs faulty(base::Fs::Default());
  faulty.TruncateWritesTo("_metadata");
  ASSERT_OK(WriteMetadataFile(faulty, dir.path(), FullyPopulated()));
  ASSERT_STATUS(ReadMetadataFile(base::Fs::Default(), dir.Sub("_metadata")), kCorruption,
                dir.Sub("_metadata"));
}

TEST(MetadataCodecTest, ReadReportsMissingFile) {
  testing::TempDir dir;
  ASSERT_STATUS(ReadMetadataFile(base::Fs::Default(), dir.Sub("_metadata")), kNotFound, "");
}

TEST(MetadataCodecTest, ReadNamesFileOnCorruption) {
  testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  const std::string path = dir.Sub("_metadata");
  std::string image = ValidImage();
  image[image.size() / 2] ^= 0x10;
  ASSERT_OK(base::WriteFileAtomic(fs, path, image));
  ASSERT_STATUS(ReadMetadataFile(fs, path), kCorruption, path);
}

}  // namespace
}  // namespace ckpt::format

namespace ckpt::format {
namespace {

// Issue 9 ("let format own the bytes ops re-derives"): each kind of damage is a typed defect, so
// ckpt-tool validate classifies it without re-parsing the envelope.
TEST(MetadataCodecTest, CheckedDecodeNamesEachKindOfDamage) {
  const std::string image = ValidImage();
  auto defect = [](std::string_view bytes) {
    return DecodeMetadataChecked(bytes, kMetadataPath).defect;
  };
  MetadataDecodeResult ok = DecodeMetadataChecked(image, kMetadataPath);
  EXPECT_EQ(ok.defect, MetadataDefect::kNone);
  ASSERT_TRUE(ok.metadata.has_value());
  EXPECT_TRUE(ok.status.ok());
  EXPECT_EQ(ok.envelope.payload_length, image.size() - kMetadataHeaderSize - kMetadataTrailerSize);

  // An empty file is truncated like a 10-byte one (issue 8, defect 10), not a wrong magic.
  EXPECT_EQ(defect(""), MetadataDefect::kLengthMismatch);
  std::string magic = image;
  magic[0] = 'X';
  EXPECT_EQ(defect(magic), MetadataDefect::kBadMagic);
  std::string newer = image;
  newer[8] = 2;
  EXPECT_EQ(defect(newer), MetadataDefect::kNewerVersion);
  EXPECT_EQ(defect(std::string_view(image).substr(0, 20)), MetadataDefect::kLengthMismatch);
  EXPECT_EQ(defect(std::string_view(image).substr(0, image.size() - 1)),
            MetadataDefect::kLengthMismatch);
  EXPECT_EQ(defect(image + "x"), MetadataDefect::kLengthMismatch);
  std::string flipped = image;
  flipped[kMetadataHeaderSize + 3] ^= 0x40;
  EXPECT_EQ(defect(flipped), MetadataDefect::kChecksumMismatch);
  std::string flags = image;
  flags[12] = 1;
  EXPECT_EQ(defect(flags), MetadataDefect::kInvalidEnvelope);

  pb::CheckpointMetadata escaping = FullyPopulated();
  escaping.mutable_files(1)->set_path("../../etc/passwd");
  MetadataDecodeResult esc = DecodeMetadataChecked(EncodeMetadata(escaping), kMetadataPath);
  EXPECT_EQ(esc.defect, MetadataDefect::kEscapingReference);
  ASSERT_EQ(esc.escaping.size(), 1u);
  EXPECT_EQ(esc.escaping[0].index, 1);
  EXPECT_EQ(esc.escaping[0].path, "../../etc/passwd");
  EXPECT_FALSE(esc.status.ok());

  pb::CheckpointMetadata bad_index = FullyPopulated();
  bad_index.mutable_operators(0)->mutable_subtasks(0)->mutable_operator_state(0)->set_file_index(999);
  EXPECT_EQ(DecodeMetadataChecked(EncodeMetadata(bad_index), kMetadataPath).defect,
            MetadataDefect::kInvalidStructure);
  // DecodeMetadata is the same decoder: its status is the checked result's.
  EXPECT_EQ(DecodeMetadata(flipped, kMetadataPath).status().message(),
            DecodeMetadataChecked(flipped, kMetadataPath).status.message());
}

}  // namespace
}  // namespace ckpt::format
