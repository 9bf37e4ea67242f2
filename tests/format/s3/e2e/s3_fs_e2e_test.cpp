// S3Fs, every Fs operation, against a real local S3 server (s3proxy with SigV4 checking on).
#include "ckpt/s3/s3_fs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/testing/temp_dir.h"
#include "s3_test_server.h"

namespace ckpt::s3 {
namespace {

using testing::S3TestBucket;
using testing::S3TestServerConfig;

class S3FsE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(S3TestServerConfig(config_));
    auto client = S3Client::Create(config_);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    fs_ = std::make_unique<S3Fs>(std::move(client).value());
    bucket_ = S3TestBucket("fs");
    ASSERT_TRUE(fs_->client().CreateBucket(bucket_).ok());
    root_ = "s3://" + bucket_;
  }
  std::string Read(const std::string& path) {
    auto bytes = base::ReadFileToString(*fs_, path);
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    return bytes.ok() ? *bytes : std::string();
  }
  S3Config config_;
  std::unique_ptr<S3Fs> fs_;
  std::string bucket_;
  std::string root_;
};

TEST_F(S3FsE2eTest, WriteReadRangedReadAndStat) {
  auto w = fs_->OpenWrite(root_ + "/job/chk-1/state");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Append("hello ").ok());
  ASSERT_TRUE((*w)->Append("object store").ok());
  ASSERT_TRUE((*w)->Sync().ok());
  // Nothing is visible before Close().
  EXPECT_TRUE(fs_->Stat(root_ + "/job/chk-1/state").status().IsNotFound());
  ASSERT_TRUE((*w)->Close().ok());
  ASSERT_TRUE((*w)->Close().ok());  // idempotent

  auto r = fs_->OpenRead(root_ + "/job/chk-1/state");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->Size(), 18u);
  char buf[32];
  auto n = (*r)->ReadAt(6, 6, buf);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(buf, *n), "object");
  n = (*r)->ReadAt(13, 100, buf);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(buf, *n), "store");
  n = (*r)->ReadAt(18, 4, buf);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);

  auto st = fs_->Stat(root_ + "/job/chk-1/state");
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->size_bytes, 18u);
  EXPECT_FALSE(st->is_dir);
  EXPECT_GT(st->mtime_ms, 0);
  auto dir = fs_->Stat(root_ + "/job/chk-1");
  ASSERT_TRUE(dir.ok());
  EXPECT_TRUE(dir->is_dir);
  EXPECT_EQ(dir->type, base::FileType::kDirectory);
  EXPECT_TRUE(fs_->Stat(root_ + "/job/nope").status().IsNotFound());
  EXPECT_TRUE(fs_->OpenRead(root_ + "/job/nope").status().IsNotFound());
  EXPECT_EQ(fs_->OpenRead(root_ + "/job/chk-1").status().code(),
            base::StatusCode::kFailedPrecondition);
}

TEST_F(S3FsE2eTest, SmallSequentialReadsShareReadAheadRequests) {
  std::string body(3 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>(i % 253);
  ASSERT_TRUE(fs_->PublishAtomic(root_ + "/scan", body).ok());
  auto r = fs_->OpenRead(root_ + "/scan");
  ASSERT_TRUE(r.ok());
  std::atomic<int> gets{0};
  fs_->client().SetFaultInjector([&](const S3RequestView& v) -> std::optional<long> {
    if (v.method == "GET") ++gets;
    return std::nullopt;
  });
  std::string back;
  char buf[4096];
  for (uint64_t off = 0; off < body.size(); off += 1000) {
    auto n = (*r)->ReadAt(off, 1000, buf);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    back.append(buf, *n);
  }
  auto n = (*r)->ReadAt(10, 5, buf);  // backwards: a new block
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(buf, *n), body.substr(10, 5));
  fs_->client().SetFaultInjector(nullptr);
  EXPECT_TRUE(back == body);
  EXPECT_LE(gets.load(), 6);  // 3 MiB in 1 MiB blocks (block edges may cost one more each)
}

TEST_F(S3FsE2eTest, ListDirShowsFilesAndDirectoriesSorted) {
  ASSERT_TRUE(fs_->CreateDirs(root_ + "/d").ok());
  for (const char* name : {"d/b", "d/a", "d/sub/x", "d/sub/y", "d/z/deep/q", "e"}) {
    ASSERT_TRUE(fs_->PublishAtomic(root_ + "/" + name, name).ok());
  }
  auto entries = fs_->ListDir(root_ + "/d");
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 4u);
  EXPECT_EQ((*entries)[0].name, "a");
  EXPECT_FALSE((*entries)[0].is_dir);
  EXPECT_EQ((*entries)[1].name, "b");
  EXPECT_EQ((*entries)[2].name, "sub");
  EXPECT_TRUE((*entries)[2].is_dir);
  EXPECT_EQ((*entries)[3].name, "z");
  auto top = fs_->ListDir(root_);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->size(), 2u);
  EXPECT_TRUE(fs_->ListDir(root_ + "/missing").status().IsNotFound());
}

TEST_F(S3FsE2eTest, ExclusiveCreateRemoveAndRename) {
  const std::string p = root_ + "/x/once";
  auto w = fs_->OpenWriteExclusive(p);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("1").ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(fs_->OpenWriteExclusive(p).status().code(), base::StatusCode::kAlreadyExists);
  // A second exclusive writer opened before the first closed loses at Close().
  auto a = fs_->OpenWriteExclusive(root_ + "/x/race");
  auto b = fs_->OpenWriteExclusive(root_ + "/x/race");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Append("a").ok());
  ASSERT_TRUE((*b)->Append("b").ok());
  ASSERT_TRUE((*a)->Close().ok());
  EXPECT_EQ((*b)->Close().code(), base::StatusCode::kAlreadyExists);
  EXPECT_EQ(Read(root_ + "/x/race"), "a");

  ASSERT_TRUE(fs_->Rename(p, root_ + "/x/renamed").ok());
  EXPECT_TRUE(fs_->Stat(p).status().IsNotFound());
  EXPECT_EQ(Read(root_ + "/x/renamed"), "1");
  EXPECT_EQ(fs_->RemoveDir(root_ + "/x").code(), base::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(fs_->RemoveFile(root_ + "/x/renamed").ok());
  ASSERT_TRUE(fs_->RemoveFile(root_ + "/x/race").ok());
  EXPECT_TRUE(fs_->RemoveFile(root_ + "/x/renamed").IsNotFound());
  EXPECT_TRUE(fs_->RemoveDir(root_ + "/x").ok());
  EXPECT_TRUE(fs_->SyncDir(root_ + "/x").ok());
  EXPECT_EQ(fs_->HardLink(root_ + "/a", root_ + "/b").code(), base::StatusCode::kUnimplemented);
}

TEST_F(S3FsE2eTest, PublishAtomicReplacesAndPublishDirMovesEverything) {
  ASSERT_TRUE(base::WriteFileAtomic(*fs_, root_ + "/m/_metadata", "v1").ok());
  ASSERT_TRUE(base::WriteFileAtomic(*fs_, root_ + "/m/_metadata", "v2").ok());
  EXPECT_EQ(Read(root_ + "/m/_metadata"), "v2");

  const std::string tmp = root_ + "/savepoints/.sp-1.tmp";
  const std::string final_dir = root_ + "/savepoints/sp-1";
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/_metadata", "meta").ok());
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/op/state-0", "s0").ok());
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/op/state-1", "s1").ok());
  ASSERT_TRUE(fs_->PublishDir(tmp, final_dir).ok());
  EXPECT_EQ(Read(final_dir + "/_metadata"), "meta");
  EXPECT_EQ(Read(final_dir + "/op/state-1"), "s1");
  EXPECT_TRUE(fs_->Stat(tmp).status().IsNotFound());
  // final_dir exists now: a second publish onto it is refused.
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/_metadata", "again").ok());
  EXPECT_EQ(fs_->PublishDir(tmp, final_dir).code(), base::StatusCode::kAlreadyExists);
  ASSERT_TRUE(base::RemoveAll(*fs_, root_ + "/savepoints").ok());
  EXPECT_TRUE(fs_->Stat(root_ + "/savepoints").status().IsNotFound());
}

// A publication that fails before its _metadata is in place leaves nothing under the final name
// (a retry is not refused as "not empty") and the build directory whole.
TEST_F(S3FsE2eTest, PublishDirFailingAtItsMetadataLeavesNothingUnderTheFinalName) {
  const std::string tmp = root_ + "/sp.tmp";
  const std::string final_dir = root_ + "/sp";
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/_metadata", "meta").ok());
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/op/state-0", "s0").ok());
  fs_->client().SetFaultInjector([](const S3RequestView& r) -> std::optional<long> {
    if (r.method == "PUT" && r.key == "sp/_metadata") return 500;
    return std::nullopt;
  });
  const base::Status published = fs_->PublishDir(tmp, final_dir);
  fs_->client().SetFaultInjector(nullptr);
  EXPECT_FALSE(published.ok());
  EXPECT_NE(published.message().find(final_dir + "/_metadata"), std::string::npos)
      << published.ToString();
  EXPECT_TRUE(fs_->Stat(final_dir).status().IsNotFound());
  EXPECT_EQ(Read(tmp + "/op/state-0"), "s0");
  ASSERT_TRUE(fs_->PublishDir(tmp, final_dir).ok());
  EXPECT_EQ(Read(final_dir + "/_metadata"), "meta");
}

// The _metadata of a publication is created only where none exists: one that another writer
// put under the final name while this publication copied is kept, and the publication fails.
TEST_F(S3FsE2eTest, PublishDirNeverReplacesAMetadataAnotherWriterCreated) {
  const std::string tmp = root_ + "/sp.tmp";
  const std::string final_dir = root_ + "/sp";
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/_metadata", "mine").ok());
  ASSERT_TRUE(fs_->PublishAtomic(tmp + "/state", "s").ok());
  auto other = S3Client::Create(config_);
  ASSERT_TRUE(other.ok());
  bool raced = false;
  fs_->client().SetFaultInjector([&](const S3RequestView& r) -> std::optional<long> {
    if (!raced && r.key == "sp/_metadata") {
      raced = true;
      EXPECT_TRUE((*other)->Put(bucket_, "sp/_metadata", "theirs").ok());
    }
    return std::nullopt;
  });
  const base::Status published = fs_->PublishDir(tmp, final_dir);
  fs_->client().SetFaultInjector(nullptr);
  EXPECT_TRUE(raced);
  EXPECT_EQ(published.code(), base::StatusCode::kAlreadyExists) << published.ToString();
  EXPECT_EQ(Read(final_dir + "/_metadata"), "theirs");
  EXPECT_EQ(Read(tmp + "/_metadata"), "mine");
}

TEST_F(S3FsE2eTest, LargeFilesUploadInParallelParts) {
  std::string body(13 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>((i * 7919) >> 5);
  auto w = fs_->OpenWrite(root_ + "/big");
  ASSERT_TRUE(w.ok());
  for (size_t off = 0; off < body.size(); off += 1 << 20) {
    ASSERT_TRUE((*w)->Append(std::string_view(body).substr(off, 1 << 20)).ok());
  }
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_TRUE(Read(root_ + "/big") == body);
  ASSERT_TRUE(fs_->PublishAtomic(root_ + "/big2", body).ok());
  EXPECT_EQ(fs_->Stat(root_ + "/big2")->size_bytes, body.size());
}

TEST_F(S3FsE2eTest, FailedMultipartWriteLeavesNoObject) {
  std::atomic<int> injected{0};
  fs_->client().SetFaultInjector([&](const S3RequestView& r) -> std::optional<long> {
    for (const auto& [k, v] : r.query) {
      if (k == "partNumber" && v == "2") {
        ++injected;
        return 503;
      }
    }
    return std::nullopt;
  });
  auto w = fs_->OpenWrite(root_ + "/doomed");
  ASSERT_TRUE(w.ok());
  const std::string chunk(3 << 20, 'q');
  base::Status st;
  for (int i = 0; i < 4 && st.ok(); ++i) st = (*w)->Append(chunk);
  if (st.ok()) st = (*w)->Close();
  fs_->client().SetFaultInjector(nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("SlowDown"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/doomed"), std::string::npos);
  EXPECT_EQ(injected.load(), config_.retry.max_attempts);
  EXPECT_TRUE(fs_->Stat(root_ + "/doomed").status().IsNotFound());
  // An unclosed writer publishes nothing either.
  {
    auto dropped = fs_->OpenWrite(root_ + "/dropped");
    ASSERT_TRUE(dropped.ok());
    ASSERT_TRUE((*dropped)->Append(std::string(6 << 20, 'd')).ok());
  }
  EXPECT_TRUE(fs_->Stat(root_ + "/dropped").status().IsNotFound());
  // Both uploads were aborted: no parts are left behind.
  auto pending = fs_->client().ListMultipartUploads(bucket_, "");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_TRUE(pending->empty());
}

TEST_F(S3FsE2eTest, ResolveFsServesS3LocationsFromTheEnvironment) {
  ckpt::testing::TempDir home;
  std::filesystem::create_directories(home.path() + "/.aws");
  {
    std::ofstream creds(home.path() + "/.aws/credentials");
    creds << "[local]\naws_access_key_id = " << config_.credentials.access_key_id
          << "\naws_secret_access_key = " << config_.credentials.secret_access_key << "\n";
  }
  ::setenv("HOME", home.path().c_str(), 1);
  ::setenv("AWS_PROFILE", "local", 1);
  ::setenv("AWS_ENDPOINT_URL", config_.endpoint.c_str(), 1);
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  ::unsetenv("FLINK_CONF_DIR");
  RegisterS3Schemes();
  for (const std::string scheme : {"s3", "s3a", "s3p"}) {
    auto loc = base::ResolveFs(scheme + "://" + bucket_ + "/via/" + scheme);
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    ASSERT_TRUE(loc->fs->PublishAtomic(loc->path, scheme).ok());
    auto back = base::ReadFileToString(*loc->fs, base::JoinPath(scheme + "://" + bucket_ + "/via",
                                                               scheme));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, scheme);
  }
}

}  // namespace
}  // namespace ckpt::s3
