// Flink snapshots whose state handles name their files by absolute URI (s3://bucket/key, s3a://,
// as checkpoints and entropy-injected savepoints do) are read on the store those URIs name: the
// read verbs give what they give on the local original, a missing object is reported with its
// URI, and a scheme without a filesystem is a finding that names it. The snapshots are real
// Flink fixtures whose relative handles the project's own metadata writer made absolute.
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt_tool_s3_fixture.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

constexpr char kHashmap[] = "new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint";
constexpr char kRocksdb[] = "new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint";

// Relative handles made absolute under `prefix` (a relative handle names a file in the
// directory of `_metadata`).
class AbsoluteHandles {
 public:
  explicit AbsoluteHandles(std::string prefix) : prefix_(std::move(prefix)) {}

  void Rewrite(flink::Metadata* md) {
    for (auto& op : md->operators) {
      for (auto& st : op.subtasks) {
        Keyed(&st.managed_keyed);
        Keyed(&st.raw_keyed);
        for (auto* oh : {&st.managed_operator, &st.raw_operator}) {
          if (*oh) Stream(&(*oh)->delegate);
        }
        for (auto& c : st.input_channels) Stream(&c.delegate);
        for (auto& c : st.result_subpartitions) Stream(&c.delegate);
      }
    }
  }

  int rewritten() const { return rewritten_; }

 private:
  void Stream(flink::StreamHandle* h) {
    if (h->type == flink::StreamHandle::Type::kKeyGroups && h->nested) {
      auto nested = std::make_shared<flink::KeyGroupsHandle>(*h->nested);
      Stream(&nested->delegate);
      h->nested = std::move(nested);
      return;
    }
    if (h->type != flink::StreamHandle::Type::kRelativeFile) return;
    h->type = flink::StreamHandle::Type::kFile;
    h->path = prefix_ + "/" + h->path;
    ++rewritten_;
  }

  void Keyed(flink::KeyedHandle* h) {
    if (h->key_groups) {
      auto kg = std::make_shared<flink::KeyGroupsHandle>(*h->key_groups);
      Stream(&kg->delegate);
      h->key_groups = std::move(kg);
    }
    Stream(&h->meta);
    for (auto& f : h->shared_files) Stream(&f.handle);
    for (auto& f : h->private_files) Stream(&f.handle);
    for (auto& m : h->materialized) Keyed(&m);
    for (auto& d : h->non_materialized) Keyed(&d);
    for (auto& ho : h->handles_and_offsets) Stream(&ho.second);
  }

  std::string prefix_;
  int rewritten_ = 0;
};

// `text` with the sizes on its `_metadata` lines masked: an absolute handle is longer than the
// relative one it replaces, so only the size of `_metadata` itself may differ from the original.
std::string MaskMetadataSize(const std::string& text) {
  static const std::regex kSize("[0-9]+(\\.[0-9]+)? (B|KiB|MiB)");
  static const std::regex kSpaces(" +");
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.find("_metadata") != std::string::npos) {
      line = std::regex_replace(std::regex_replace(line, kSize, "<size>"), kSpaces, " ");
    }
    out += line + "\n";
  }
  return out;
}

class CkptToolS3AbsoluteTest : public CkptToolS3Fixture {
 protected:
  // fixtures/flink/<name>'s `_metadata` with every relative handle made absolute under
  // `prefix`.
  std::string AbsoluteMetadata(const std::string& name, const std::string& prefix) {
    auto md = flink::ReadFlinkMetadata(base::Fs::Default(),
                                       FixturePath("flink/" + name + "/_metadata"));
    EXPECT_TRUE(md.ok()) << md.status().ToString();
    if (!md.ok()) return {};
    AbsoluteHandles rewrite(prefix);
    rewrite.Rewrite(&*md);
    EXPECT_GT(rewrite.rewritten(), 0) << name << " has no relative handle to make absolute";
    auto bytes = flink::SerializeFlinkMetadata(*md);
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    return bytes.ok() ? *bytes : std::string();
  }

  // fixtures/flink/<name> uploaded under flink/<name>/ with its handles made absolute:
  // <scheme>://<bucket>/flink/<name>/<file>.
  void UploadAbsolute(const std::string& name, const std::string& scheme) {
    ASSERT_NO_FATAL_FAILURE(Upload("flink/" + name));
    const std::string bytes =
        AbsoluteMetadata(name, scheme + "://" + bucket_ + "/flink/" + name);
    ASSERT_FALSE(bytes.empty());
    ASSERT_TRUE(client_->Put(bucket_, "flink/" + name + "/_metadata", bytes).ok());
  }

  // Runs `verb_args` on fixtures/flink/<name> and on s3://<bucket>/flink/<name>, and expects
  // the same exit code and stdout once the bucket's prefix is taken off (the size of
  // `_metadata`, longer with absolute handles, masked).
  void ExpectSameAsLocal(const std::vector<std::string>& verb_args, const std::string& name) {
    ExpectSameOnS3(verb_args, {"flink/" + name}, MaskMetadataSize);
  }

  // Writes `bytes` as <dir>/<name>/_metadata: a snapshot on local disk whose state is elsewhere.
  static void WriteLocalMetadata(const TempDir& dir, const std::string& name,
                                 const std::string& bytes) {
    std::filesystem::create_directories(dir.Sub(name));
    std::ofstream(dir.Sub(name + "/_metadata"), std::ios::binary) << bytes;
  }
};

TEST_F(CkptToolS3AbsoluteTest, AbsoluteS3HandlesReadAsTheLocalOriginal) {
  for (const char* name : {kHashmap, kRocksdb}) {
    ASSERT_NO_FATAL_FAILURE(UploadAbsolute(name, "s3"));
    ExpectSameAsLocal({"ls"}, name);
    ExpectSameAsLocal({"show"}, name);
    ExpectSameAsLocal({"files"}, name);
    ExpectSameAsLocal({"validate", "--deep"}, name);
    ExpectSameAsLocal({"dump"}, name);
    ExpectSameAsLocal({"stats"}, name);
  }
}

// A checkpoint's incremental state lies in its job's shared/ directory, named by absolute URI
// (s3://bucket/<root>/<job>/shared/<uuid>): listed as SHARED files, read there.
TEST_F(CkptToolS3AbsoluteTest, CheckpointReadsItsJobsSharedObjects) {
  const std::string job = "flink-chk/0123456789abcdef0123456789abcdef";
  const std::string rel = std::string("flink/") + kRocksdb;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath(rel))) {
    const std::string file = entry.path().filename().string();
    if (file == "_metadata") continue;
    const std::string body = s3::testing::S3TestReadFile(entry.path().string());
    ASSERT_TRUE(client_->Put(bucket_, job + "/shared/" + file, body).ok()) << file;
  }
  ASSERT_TRUE(client_->Put(bucket_, job + "/chk-2/_metadata",
                           AbsoluteMetadata(kRocksdb, Uri(job + "/shared")))
                  .ok());
  const std::string chk = Uri(job + "/chk-2");

  const ToolRun v = RunTool({"validate", "--deep", chk}, FixturePath(""));
  EXPECT_EQ(0, v.exit_code) << v.out << v.err;
  const ToolRun files = RunTool({"files", chk}, FixturePath(""));
  EXPECT_EQ(0, files.exit_code) << files.err;
  const ToolRun local_files = RunTool({"files", rel}, FixturePath(""));
  // Every file of the original, each now shared by checkpoint 2, each there.
  auto count = [](const std::string& text, const std::string& word) {
    size_t n = 0;
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  EXPECT_GT(count(local_files.out, "exclusive"), 0u) << local_files.out;
  EXPECT_EQ(count(local_files.out, "\n"), count(files.out, "\n")) << files.out;
  EXPECT_EQ(count(local_files.out, "exclusive"), count(files.out, "../shared/")) << files.out;
  EXPECT_EQ(count(local_files.out, "exclusive"), count(files.out, "shared (chk-2)")) << files.out;
  EXPECT_EQ(count(local_files.out, " ok "), count(files.out, " ok ")) << files.out;

  const ToolRun want = RunTool({"dump", rel}, FixturePath(""));
  const ToolRun got = RunTool({"dump", chk}, FixturePath(""));
  EXPECT_EQ(0, got.exit_code) << got.err;
  EXPECT_EQ(want.out, got.out);
}

// relocate turns a checkpoint whose state lies in its job's shared/ on S3 (absolute s3:// handles)
// into a self-contained savepoint, downloaded to local disk and copied to another bucket: every
// handle relative, the copies validate deeply and dump the original's state, and they still do
// once the job's objects on S3 are gone.
TEST_F(CkptToolS3AbsoluteTest, RelocateMakesAbsoluteS3HandlesRelativeLocallyAndInAnotherBucket) {
  const std::string job = "flink-reloc/0123456789abcdef0123456789abcdef";
  const std::string rel = std::string("flink/") + kRocksdb;
  std::vector<std::string> keys;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath(rel))) {
    const std::string file = entry.path().filename().string();
    if (file == "_metadata") continue;
    const std::string body = s3::testing::S3TestReadFile(entry.path().string());
    keys.push_back(job + "/shared/" + file);
    ASSERT_TRUE(client_->Put(bucket_, keys.back(), body).ok()) << file;
  }
  keys.push_back(job + "/chk-2/_metadata");
  ASSERT_TRUE(client_->Put(bucket_, keys.back(), AbsoluteMetadata(kRocksdb, Uri(job + "/shared")))
                  .ok());
  const std::string chk = Uri(job + "/chk-2");
  const std::string other = s3::testing::S3TestBucket("relocated");
  ASSERT_TRUE(client_->CreateBucket(other).ok());
  TempDir tmp;
  const std::vector<std::string> outputs = {tmp.Sub("downloaded"),
                                            "s3://" + other + "/savepoints/relocated"};
  for (const std::string& out : outputs) {
    const ToolRun r = RunTool({"relocate", chk, "--to", out}, FixturePath(""));
    ASSERT_EQ(0, r.exit_code) << out << "\n" << r.out << r.err;
  }
  // The local copy's files: every one inside it, owned by it, none on S3.
  const ToolRun files = RunTool({"files", outputs[0]}, FixturePath(""));
  EXPECT_EQ(0, files.exit_code) << files.err;
  EXPECT_EQ(std::string::npos, files.out.find("s3://")) << files.out;
  EXPECT_EQ(std::string::npos, files.out.find("../")) << files.out;  // inside the copy
  EXPECT_EQ(std::string::npos, files.out.find("shared (")) << files.out;  // owned by it

  ASSERT_TRUE(client_->DeleteMany(bucket_, keys).ok());
  const ToolRun want = RunTool({"dump", rel}, FixturePath(""));
  ASSERT_EQ(0, want.exit_code) << want.err;
  for (const std::string& out : outputs) {
    const ToolRun v = RunTool({"validate", "--deep", out}, FixturePath(""));
    EXPECT_EQ(0, v.exit_code) << out << "\n" << v.out << v.err;
    const ToolRun d = RunTool({"dump", out}, FixturePath(""));
    EXPECT_EQ(0, d.exit_code) << out << "\n" << d.err;
    EXPECT_EQ(want.out, d.out) << out;
  }
  // The original, its objects gone, is reported so, naming a missing object by its URI.
  const ToolRun gone = RunTool({"validate", chk}, FixturePath(""));
  EXPECT_NE(0, gone.exit_code) << gone.out;
}

// prune on a Flink job directory on S3 whose checkpoints name their shared state by absolute
// s3:// URI: every referenced object is kept, an unreferenced one is an orphan, the subsumed
// checkpoint goes, and the retained one still validates deeply afterwards.
TEST_F(CkptToolS3AbsoluteTest, PruneKeepsSharedObjectsNamedByAbsoluteUri) {
  const std::string job = "flink-prune/0123456789abcdef0123456789abcdef";
  const std::string rel = std::string("flink/") + kRocksdb;
  size_t shared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath(rel))) {
    const std::string file = entry.path().filename().string();
    if (file == "_metadata") continue;
    const std::string body = s3::testing::S3TestReadFile(entry.path().string());
    ASSERT_TRUE(client_->Put(bucket_, job + "/shared/" + file, body).ok()) << file;
    ++shared;
  }
  ASSERT_TRUE(client_->Put(bucket_, job + "/shared/orphan-left-by-a-failed-checkpoint", "x").ok());
  const std::string md = AbsoluteMetadata(kRocksdb, Uri(job + "/shared"));
  for (const char* chk : {"chk-1", "chk-2"}) {
    ASSERT_TRUE(client_->Put(bucket_, job + "/" + chk + "/_metadata", md).ok());
  }
  const ToolRun plan = RunTool({"prune", Uri("flink-prune"), "--min-orphan-age", "0s", "--format",
                                "json"}, FixturePath(""));
  ASSERT_EQ(0, plan.exit_code) << plan.out << plan.err;
  auto count = [](const std::string& text, const std::string& word) {
    size_t n = 0;
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(shared, count(plan.out, "\"reason\":\"referenced by chk-2\"")) << plan.out;
  EXPECT_EQ(1u, count(plan.out, "\"action\":\"remove\",\"path\":\"" + job.substr(12) +
                                    "/shared/orphan-left-by-a-failed-checkpoint\""))
      << plan.out;
  EXPECT_NE(std::string::npos, plan.out.find("\"verdict\":\"subsumed\"")) << plan.out;

  const ToolRun pruned = RunTool({"prune", Uri("flink-prune"), "--min-orphan-age", "0s", "--yes"},
                                 FixturePath(""));
  ASSERT_EQ(0, pruned.exit_code) << pruned.out << pruned.err;
  const ToolRun v = RunTool({"validate", "--deep", Uri(job + "/chk-2")}, FixturePath(""));
  EXPECT_EQ(0, v.exit_code) << v.out << v.err;
  const ToolRun gone = RunTool({"ls", Uri(job + "/chk-1")}, FixturePath(""));
  EXPECT_NE(0, gone.exit_code) << gone.out;
}

// s3a:// (and s3p://) spell the same objects as s3://: a snapshot opened as s3:// finds its
// s3a:// handles inside its own directory.
TEST_F(CkptToolS3AbsoluteTest, AbsoluteS3aHandlesReadTheSameObjects) {
  ASSERT_NO_FATAL_FAILURE(UploadAbsolute(kRocksdb, "s3a"));
  ExpectSameAsLocal({"files"}, kRocksdb);
  ExpectSameAsLocal({"validate", "--deep"}, kRocksdb);
  ExpectSameAsLocal({"dump"}, kRocksdb);
}

TEST_F(CkptToolS3AbsoluteTest, DeletedObjectIsReportedMissingWithItsUri) {
  ASSERT_NO_FATAL_FAILURE(UploadAbsolute(kRocksdb, "s3"));
  const std::string rel = std::string("flink/") + kRocksdb;
  // A file the local original's `files` lists: the first row's file name.
  std::string victim;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath(rel))) {
    const std::string file = entry.path().filename().string();
    if (file != "_metadata" && (victim.empty() || file < victim)) victim = file;
  }
  ASSERT_FALSE(victim.empty());
  ASSERT_TRUE(client_->Delete(bucket_, rel + "/" + victim).ok());
  const std::string uri = Uri(rel + "/" + victim);

  const ToolRun v = RunTool({"validate", Uri(rel)}, FixturePath(""));
  EXPECT_EQ(1, v.exit_code) << v.out << v.err;
  EXPECT_NE(std::string::npos, v.out.find("CKPT-F001")) << v.out;
  EXPECT_NE(std::string::npos, v.out.find(uri + " does not exist")) << v.out;

  const ToolRun local = RunTool({"validate", rel}, FixturePath(""));
  EXPECT_EQ(0, local.exit_code) << local.out << local.err;
}

// A snapshot on local disk whose handles name objects on S3 reads them there.
TEST_F(CkptToolS3AbsoluteTest, LocalSnapshotReadsItsS3Handles) {
  ASSERT_NO_FATAL_FAILURE(Upload(std::string("flink/") + kRocksdb));
  TempDir tmp;
  WriteLocalMetadata(tmp, kRocksdb,
                     AbsoluteMetadata(kRocksdb, Uri(std::string("flink/") + kRocksdb)));
  for (const std::vector<std::string>& verb : {std::vector<std::string>{"dump"},
                                               std::vector<std::string>{"stats"}}) {
    std::vector<std::string> args = verb;
    args.push_back(kRocksdb);
    const ToolRun want = RunTool(args, FixturePath("flink"));
    const ToolRun got = RunTool(args, tmp.path());
    EXPECT_EQ(want.exit_code, got.exit_code) << got.err;
    EXPECT_FALSE(want.out.empty());
    EXPECT_EQ(MaskMetadataSize(want.out), MaskMetadataSize(got.out))
        << ::testing::PrintToString(args);
  }
  const ToolRun v = RunTool({"validate", "--deep", kRocksdb}, tmp.path());
  EXPECT_EQ(0, v.exit_code) << v.out << v.err;
  EXPECT_EQ(std::string::npos, v.out.find("CKPT-F004")) << v.out;
}

// A scheme no filesystem is registered for: each such file is a finding naming the scheme, and a
// verb that needs its bytes fails naming it.
TEST_F(CkptToolS3AbsoluteTest, HandleOfUnregisteredSchemeIsAFindingNamingIt) {
  TempDir tmp;
  WriteLocalMetadata(tmp, kRocksdb, AbsoluteMetadata(kRocksdb, "gs://some-bucket/chk"));
  const ToolRun v = RunTool({"validate", kRocksdb}, tmp.path());
  EXPECT_EQ(1, v.exit_code) << v.out << v.err;
  EXPECT_NE(std::string::npos, v.out.find("CKPT-F004")) << v.out;
  EXPECT_NE(std::string::npos, v.out.find("no filesystem for scheme 'gs:'")) << v.out;
  const ToolRun d = RunTool({"dump", kRocksdb}, tmp.path());
  EXPECT_NE(0, d.exit_code) << d.out;
  EXPECT_NE(std::string::npos, d.err.find("'gs:'")) << d.err;
}

}  // namespace
}  // namespace ckpt::testing
