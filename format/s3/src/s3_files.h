// The S3Fs file objects (private to ckpt::s3): positional reads by ranged GET, writes buffered
// into a PUT or a parallel multipart upload.
#pragma once

#include <memory>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_location.h"

namespace ckpt::s3 {

// A reader of the object at `loc` whose size was `size_bytes` when opened.
std::unique_ptr<base::RandomAccessFile> MakeS3ReadFile(S3Client& client, S3Location loc,
                                                       std::string path, uint64_t size_bytes);
// A writer that publishes the object on Close(); with `exclusive`, only if it is still absent.
std::unique_ptr<base::WritableFile> MakeS3WriteFile(S3Client& client, S3Location loc,
                                                    std::string path, bool exclusive);

}  // namespace ckpt::s3
