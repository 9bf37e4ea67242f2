// Tests of validate --deep's single read of a container (ops/src/formats/own/validate_read_once.h):
// whatever order the record pass reads in, the whole-file digest is Xxh3OfFile's, and the bytes
// read in order are not read again.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "formats/own/validate_read_once.h"

namespace ckpt::ops::internal {
namespace {

using ::ckpt::testing::TempDir;

// 3 MiB + 17 bytes of varied content (more than Finish's 1 MiB chunk, not a multiple of it).
std::string Content() {
  std::string s((3u << 20) + 17, '\0');
  uint64_t x = 88172645463325252ull;
  for (char& c : s) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x);
  }
  return s;
}

struct Read {
  uint64_t offset;
  size_t n;
};

// Reads `reads` through a HashingFile over `path`, then Finish; returns the digest and the bytes
// hashed during the reads (through on_hashed).
base::FileDigest DigestAfter(const std::string& path, const std::vector<Read>& reads,
                             uint64_t* hashed_by_reads) {
  auto file = base::Fs::Default().OpenRead(path);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return {};
  *hashed_by_reads = 0;
  HashingFile hashing(**file, [&](size_t n) { *hashed_by_reads += n; });
  std::string scratch;
  for (const Read& r : reads) {
    scratch.resize(r.n);
    auto got = hashing.ReadAt(r.offset, r.n, scratch.data());
    EXPECT_TRUE(got.ok()) << got.status().ToString();
  }
  std::string buffer;
  auto d = hashing.Finish(&buffer, nullptr);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : base::FileDigest{};
}

TEST(HashingFileTest, DigestIsTheWholeFilesWhateverTheReadOrder) {
  TempDir tmp;
  const std::string path = tmp.Sub("f");
  const std::string content = Content();
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), path, content));
  const uint64_t want = base::Xxh3(content);
  const uint64_t size = content.size();

  struct Pattern {
    std::string name;
    std::vector<Read> reads;
    uint64_t hashed_by_reads;  // the bytes that extend the hashed prefix, in read order
  };
  const std::vector<Pattern> patterns = {
      {"no reads", {}, 0},
      // Header, trailer and index out of order, then blocks in order (a container's pattern).
      {"container",
       {{0, 16}, {size - 40, 40}, {size - 5000, 4960}, {16, 100000}, {100016, 70000}},
       170016},
      {"overlapping", {{0, 1000}, {500, 2000}, {2500, 10}, {100, 50}}, 2510},
      {"gap first", {{10, 100}, {0, 5}}, 5},
      {"past the end", {{0, 1u << 20}, {1u << 20, 3u << 20}}, size},
  };
  for (const Pattern& p : patterns) {
    uint64_t hashed_by_reads = 0;
    const base::FileDigest d = DigestAfter(path, p.reads, &hashed_by_reads);
    EXPECT_TRUE(d.complete) << p.name;
    EXPECT_EQ(d.checksum, want) << p.name;
    EXPECT_EQ(d.bytes, size) << p.name;
    EXPECT_EQ(hashed_by_reads, p.hashed_by_reads) << p.name;
  }
}

TEST(OneFileFsTest, OpensTheGivenFileAndPassesOtherPathsOn) {
  TempDir tmp;
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), tmp.Sub("a"), "aaaa"));
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), tmp.Sub("b"), "bb"));
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), tmp.Sub("c"), "ccc"));
  ASSERT_OK_AND_ASSIGN(auto a, base::Fs::Default().OpenRead(tmp.Sub("a")));
  OneFileFs fs(base::Fs::Default(), tmp.Sub("b"), *a);
  // "b" is answered by the open file "a" (4 bytes, not b's 2); "c" is opened by the target.
  ASSERT_OK_AND_ASSIGN(auto b_view, fs.OpenRead(tmp.Sub("b")));
  EXPECT_EQ(b_view->Size(), 4u);
  char buf[4] = {};
  ASSERT_OK_AND_ASSIGN(size_t n, b_view->ReadAt(0, 4, buf));
  EXPECT_EQ(std::string(buf, n), "aaaa");
  ASSERT_OK_AND_ASSIGN(auto c, fs.OpenRead(tmp.Sub("c")));
  EXPECT_EQ(c->Size(), 3u);
  EXPECT_TRUE(fs.OpenRead(tmp.Sub("missing")).status().IsNotFound());
}

}  // namespace
}  // namespace ckpt::ops::internal
