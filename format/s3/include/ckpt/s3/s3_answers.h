// S3's XML answers as plain structs: ListObjectsV2, error bodies, multipart upload, DeleteObjects.
// Parsed with the bounded reader (xml.h): hostile or malformed bodies are Corruption naming
// `what`. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::s3 {

struct ObjectInfo {
  std::string key;
  uint64_t size_bytes = 0;
  int64_t mtime_ms = 0;  // Last-Modified, ms since the Unix epoch; 0 when absent
  std::string etag;      // quotes removed
};

struct ListPage {
  std::vector<ObjectInfo> objects;
  std::vector<std::string> common_prefixes;  // with the delimiter at the end, as S3 sends them
  bool truncated = false;
  std::string next_continuation_token;  // set when truncated
};

// An upload begun and neither completed nor aborted.
struct MultipartUploadInfo {
  std::string key;
  std::string upload_id;
  int64_t initiated_ms = 0;  // 0 when absent
};

struct MultipartUploadPage {
  std::vector<MultipartUploadInfo> uploads;
  bool truncated = false;
  std::string next_key_marker;        // set when truncated
  std::string next_upload_id_marker;  // set when truncated
};

// The <Error> body of a failed request; empty fields when the body is not one.
struct S3ErrorBody {
  std::string code;     // "NoSuchKey", "SlowDown", ...
  std::string message;  // S3's human-readable text
};

// ListObjectsV2 answer (<ListBucketResult>). Corruption on malformed XML, a wrong root, a
// missing or non-numeric <Size>, or truncated without a continuation token.
base::Result<ListPage> ParseListObjectsV2(std::string_view xml, std::string_view what);
// An <Error> body; never fails (a body that is not one gives empty fields).
S3ErrorBody ParseErrorBody(std::string_view xml);
// <InitiateMultipartUploadResult>: the UploadId. Corruption when absent.
base::Result<std::string> ParseInitiateMultipartUpload(std::string_view xml,
                                                       std::string_view what);
// ListMultipartUploads answer (<ListMultipartUploadsResult>). Corruption on malformed XML, a
// wrong root, an <Upload> without Key or UploadId, or truncated without a next key marker.
base::Result<MultipartUploadPage> ParseListMultipartUploads(std::string_view xml,
                                                            std::string_view what);
// A DeleteObjects <DeleteResult>: the keys that failed, each as "key (Code: Message)".
base::Result<std::vector<std::string>> ParseDeleteResult(std::string_view xml,
                                                         std::string_view what);

// "2009-10-12T17:50:30.000Z" (S3's listing times) to ms since the epoch; -1 when malformed.
int64_t ParseIso8601Ms(std::string_view s);
// "Wed, 12 Oct 2009 17:50:00 GMT" (the Last-Modified header) to ms; -1 when malformed.
int64_t ParseHttpDateMs(std::string_view s);
// Escapes &, <, >, " and ' for XML character data (object keys in DeleteObjects).
std::string XmlEscape(std::string_view s);

}  // namespace ckpt::s3
