// S3's XML answers: see s3_answers.h.
#include "ckpt/s3/s3_answers.h"

#include <algorithm>
#include <charconv>
#include <ctime>

#include "ckpt/s3/xml.h"

namespace ckpt::s3 {
namespace {

bool AnswerParseU64(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string AnswerUnquote(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

base::Status AnswerExpectRoot(const XmlElement& root, std::string_view name,
                              std::string_view what) {
  if (root.name == name) return base::Status::OK();
  return base::Status::Corruption(std::string(what) + ": expected <" + std::string(name) +
                                  ">, got <" + root.name + ">");
}

}  // namespace

base::Result<ListPage> ParseListObjectsV2(std::string_view xml, std::string_view what) {
  CKPT_ASSIGN_OR_RETURN(const XmlElement root, ParseXml(xml, what));
  CKPT_RETURN_IF_ERROR(AnswerExpectRoot(root, "ListBucketResult", what));
  ListPage page;
  for (const XmlElement& child : root.children) {
    if (child.name == "Contents") {
      ObjectInfo info;
      info.key = child.ChildText("Key");
      if (info.key.empty()) {
        return base::Status::Corruption(std::string(what) + ": <Contents> without a <Key>");
      }
      if (!AnswerParseU64(child.ChildText("Size"), info.size_bytes)) {
        return base::Status::Corruption(std::string(what) + ": <Size> of '" + info.key +
                                        "' is not a number");
      }
      info.mtime_ms = std::max<int64_t>(0, ParseIso8601Ms(child.ChildText("LastModified")));
      info.etag = AnswerUnquote(child.ChildText("ETag"));
      page.objects.push_back(std::move(info));
    } else if (child.name == "CommonPrefixes") {
      page.common_prefixes.push_back(child.ChildText("Prefix"));
    } else if (child.name == "IsTruncated") {
      page.truncated = child.text == "true";
    } else if (child.name == "NextContinuationToken") {
      page.next_continuation_token = child.text;
    }
  }
  if (page.truncated && page.next_continuation_token.empty()) {
    return base::Status::Corruption(std::string(what) +
                                    ": truncated listing without a NextContinuationToken");
  }
  return page;
}

base::Result<MultipartUploadPage> ParseListMultipartUploads(std::string_view xml,
                                                            std::string_view what) {
  CKPT_ASSIGN_OR_RETURN(const XmlElement root, ParseXml(xml, what));
  CKPT_RETURN_IF_ERROR(AnswerExpectRoot(root, "ListMultipartUploadsResult", what));
  MultipartUploadPage page;
  for (const XmlElement& child : root.children) {
    if (child.name == "Upload") {
      MultipartUploadInfo info{child.ChildText("Key"), child.ChildText("UploadId"),
                               std::max<int64_t>(0, ParseIso8601Ms(child.ChildText("Initiated")))};
      if (info.key.empty() || info.upload_id.empty()) {
        return base::Status::Corruption(std::string(what) + ": <Upload> without Key or UploadId");
      }
      page.uploads.push_back(std::move(info));
    } else if (child.name == "IsTruncated") {
      page.truncated = child.text == "true";
    } else if (child.name == "NextKeyMarker") {
      page.next_key_marker = child.text;
    } else if (child.name == "NextUploadIdMarker") {
      page.next_upload_id_marker = child.text;
    }
  }
  if (page.truncated && page.next_key_marker.empty()) {
    return base::Status::Corruption(std::string(what) + ": truncated listing without NextKeyMarker");
  }
  return page;
}

S3ErrorBody ParseErrorBody(std::string_view xml) {
  base::Result<XmlElement> root = ParseXml(xml, "S3 error body");
  if (!root.ok() || root->name != "Error") return {};
  // One line, bounded: the message goes into an error that must stay one clear line.
  std::string message;
  for (const char c : root->ChildText("Message")) {
    if (message.size() >= 300) break;
    const bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (message.empty() || message.back() == ' ')) continue;
    message.push_back(space ? ' ' : c);
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return {root->ChildText("Code"), message};
}

base::Result<std::string> ParseInitiateMultipartUpload(std::string_view xml,
                                                       std::string_view what) {
  CKPT_ASSIGN_OR_RETURN(const XmlElement root, ParseXml(xml, what));
  CKPT_RETURN_IF_ERROR(AnswerExpectRoot(root, "InitiateMultipartUploadResult", what));
  std::string id = root.ChildText("UploadId");
  if (id.empty()) return base::Status::Corruption(std::string(what) + ": no <UploadId>");
  return id;
}

base::Result<std::vector<std::string>> ParseDeleteResult(std::string_view xml,
                                                         std::string_view what) {
  CKPT_ASSIGN_OR_RETURN(const XmlElement root, ParseXml(xml, what));
  CKPT_RETURN_IF_ERROR(AnswerExpectRoot(root, "DeleteResult", what));
  std::vector<std::string> failed;
  for (const XmlElement& child : root.children) {
    if (child.name != "Error") continue;
    failed.push_back(child.ChildText("Key") + " (" + child.ChildText("Code") + ": " +
                     child.ChildText("Message") + ")");
  }
  return failed;
}

int64_t ParseIso8601Ms(std::string_view s) {
  std::tm tm{};
  const std::string str(s);
  const char* rest = strptime(str.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr) return -1;
  int64_t ms = 0;
  if (*rest == '.') {
    ++rest;
    int digits = 0;
    while (*rest >= '0' && *rest <= '9') {
      if (digits < 3) ms = ms * 10 + (*rest - '0');
      ++digits;
      ++rest;
    }
    for (; digits < 3; ++digits) ms *= 10;
  }
  if (*rest != 'Z' || rest[1] != '\0') return -1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

int64_t ParseHttpDateMs(std::string_view s) {
  std::tm tm{};
  const std::string str(s);
  const char* rest = strptime(str.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (rest == nullptr || *rest != '\0') return -1;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace ckpt::s3
