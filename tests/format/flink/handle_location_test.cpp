// HandleLocation: where the file of a Flink file handle lives, as base::ResolveFs takes it.
#include <string>

#include <gtest/gtest.h>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::flink {
namespace {

StreamHandle FileHandle(StreamHandle::Type type, const std::string& path) {
  StreamHandle h;
  h.type = type;
  h.path = path;
  h.size = 1;
  return h;
}

TEST(FlinkHandleLocationTest, RelativeAndLocalHandlesAreLocalPathsAsBefore) {
  Metadata md;
  md.dir = "/snap";
  ASSERT_OK_AND_ASSIGN(std::string rel,
                       HandleLocation(md, FileHandle(StreamHandle::Type::kRelativeFile, "a")));
  EXPECT_EQ(rel, "/snap/a");
  ASSERT_OK_AND_ASSIGN(std::string uri,
                       HandleLocation(md, FileHandle(StreamHandle::Type::kFile, "file:///x/y")));
  EXPECT_EQ(uri, "/x/y");
  ASSERT_OK_AND_ASSIGN(std::string bare,
                       HandleLocation(md, FileHandle(StreamHandle::Type::kFile, "/x/z")));
  EXPECT_EQ(bare, "/x/z");
  ASSERT_STATUS(HandleLocation(md, FileHandle(StreamHandle::Type::kFile, "x/z")),
                kInvalidArgument, "is not absolute");
  ASSERT_STATUS(HandleLocation(md, FileHandle(StreamHandle::Type::kRelativeFile, "../x")),
                kCorruption, "may not escape");
}

TEST(FlinkHandleLocationTest, RegisteredSchemeIsKeptAsWrittenOthersNameTheirScheme) {
  Metadata md;
  md.dir = "/snap";
  ASSERT_STATUS(
      HandleLocation(md, FileHandle(StreamHandle::Type::kFile, "handleloc://bucket/chk/x")),
      kInvalidArgument, "no filesystem for scheme 'handleloc:'");
  base::RegisterFsScheme("handleloc", [](std::string_view location)
                                          -> base::Result<base::ResolvedLocation> {
    return base::ResolvedLocation{&base::Fs::Default(), std::string(location)};
  });
  for (const auto type : {StreamHandle::Type::kFile, StreamHandle::Type::kSegmentFile}) {
    ASSERT_OK_AND_ASSIGN(std::string at,
                         HandleLocation(md, FileHandle(type, "handleloc://bucket/chk/x")));
    EXPECT_EQ(at, "handleloc://bucket/chk/x");
  }
  // LocalPath, for what must be local (relocate's sources), still refuses it.
  ASSERT_STATUS(LocalPath(md, FileHandle(StreamHandle::Type::kFile, "handleloc://bucket/chk/x")),
                kInvalidArgument, "remote file system");
  ASSERT_STATUS(HandleLocation(md, FileHandle(StreamHandle::Type::kFile, "hdfs://nn/chk/x")),
                kInvalidArgument, "no filesystem for scheme 'hdfs:'");
}

}  // namespace
}  // namespace ckpt::flink
