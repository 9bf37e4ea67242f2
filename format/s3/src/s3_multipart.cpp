// S3Client's multipart upload: see s3_client.h.
#include <cctype>
#include <future>

#include "ckpt/s3/crypto.h"
#include "ckpt/s3/s3_client.h"
#include "s3_transport.h"

namespace ckpt::s3 {

base::Result<std::string> S3Client::CreateMultipartUpload(const std::string& bucket,
                                                          const std::string& key) {
  S3Request r{"POST", bucket, key, {{"uploads", ""}}, {}, {}, false};
  CKPT_ASSIGN_OR_RETURN(const S3Answer answer, impl_->Execute(r));
  return ParseInitiateMultipartUpload(answer.body, Impl::Describe(r));
}

base::Result<std::string> S3Client::UploadPart(const std::string& bucket, const std::string& key,
                                               const std::string& upload_id, int part_number,
                                               std::string_view body) {
  S3Request r{"PUT", bucket, key,
              {{"partNumber", std::to_string(part_number)}, {"uploadId", upload_id}}, {}, body,
              true};
  r.verify_md5_etag = true;
  CKPT_ASSIGN_OR_RETURN(const S3Answer answer, impl_->Execute(r));
  auto it = answer.headers.find("etag");
  if (it == answer.headers.end() || it->second.empty()) {
    return base::Status::Corruption(Impl::Describe(r) + " part " + std::to_string(part_number) +
                                    ": answer without an ETag");
  }
  return it->second;
}

base::Status S3Client::CompleteMultipartUpload(const std::string& bucket, const std::string& key,
                                               const std::string& upload_id,
                                               const std::vector<std::string>& part_etags,
                                               bool if_none_match) {
  std::string body = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < part_etags.size(); ++i) {
    body += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
            XmlEscape(part_etags[i]) + "</ETag></Part>";
  }
  body += "</CompleteMultipartUpload>";
  // Completing the same parts again publishes the same object: the request may be repeated.
  S3Request r{"POST", bucket, key, {{"uploadId", upload_id}}, {}, body, true};
  r.headers.emplace_back("content-type", "application/xml");
  if (if_none_match) r.headers.emplace_back("if-none-match", "*");
  // S3 may fail a completion after sending 200: the body is then an <Error>.
  r.error_body_fails_2xx = true;
  S3Failure failure;
  const base::Result<S3Answer> answer = impl_->Execute(r, &failure);
  if (answer.ok()) return base::Status::OK();
  const base::Status& error = answer.status();
  const std::string what = error.message() + " (upload id " + upload_id + ")";
  // An earlier attempt may have completed the upload before its answer was lost. AWS answers a
  // repeated completion 200; other stores answer NoSuchUpload (the upload is gone), InvalidPart
  // (its parts are gone) or, with If-None-Match, 412 (the object now exists). The object is
  // then ours when its ETag is the one these parts give.
  const bool maybe_completed =
      failure.attempts > 1 &&
      (failure.s3_code == "NoSuchUpload" || failure.s3_code == "InvalidPart" ||
       (if_none_match && failure.http_status == 412));
  if (!maybe_completed) return base::Status(error.code(), what);
  const std::string expected = MultipartETag(part_etags);
  const base::Result<ObjectInfo> object = Head(bucket, key);
  if (object.ok() && !expected.empty()) {
    std::string etag = object->etag;
    for (char& c : etag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (etag == expected) return base::Status::OK();
  }
  std::string why;
  if (!object.ok()) {
    why = "checking the object: " + object.status().message();
  } else if (expected.empty()) {
    why = "the object's ETag \"" + object->etag +
          "\" cannot be checked: the part ETags are not MD5s";
  } else {
    why = "the object's ETag is \"" + object->etag + "\", not \"" + expected + "\" of the " +
          std::to_string(part_etags.size()) + " parts sent";
  }
  return base::Status(failure.http_status == 412 ? base::StatusCode::kAlreadyExists
                                                 : base::StatusCode::kIOError,
                      what + "; the upload may not have been completed: " + why);
}

base::Status S3Client::AbortMultipartUpload(const std::string& bucket, const std::string& key,
                                            const std::string& upload_id) {
  S3Request r{"DELETE", bucket, key, {{"uploadId", upload_id}}, {}, {}, true};
  base::Status st = impl_->Execute(r).status();
  if (st.IsNotFound()) return base::Status::OK();  // NoSuchUpload: already gone
  return st;
}

base::Result<std::vector<MultipartUploadInfo>> S3Client::ListMultipartUploads(
    const std::string& bucket, const std::string& prefix) {
  std::vector<MultipartUploadInfo> all;
  std::string key_marker;
  std::string upload_id_marker;
  for (;;) {
    S3Request r{"GET", bucket, "", {{"uploads", ""}}, {}, {}, true};
    if (!prefix.empty()) r.query.emplace_back("prefix", prefix);
    if (!key_marker.empty()) r.query.emplace_back("key-marker", key_marker);
    if (!upload_id_marker.empty()) r.query.emplace_back("upload-id-marker", upload_id_marker);
    CKPT_ASSIGN_OR_RETURN(const S3Answer answer, impl_->Execute(r));
    CKPT_ASSIGN_OR_RETURN(MultipartUploadPage page,
                          ParseListMultipartUploads(answer.body, Impl::Describe(r) + prefix));
    for (MultipartUploadInfo& u : page.uploads) all.push_back(std::move(u));
    if (!page.truncated) break;
    if (page.next_key_marker == key_marker && page.next_upload_id_marker == upload_id_marker) {
      return base::Status::Corruption(Impl::Describe(r) + prefix +
                                      ": the upload listing does not advance");
    }
    key_marker = page.next_key_marker;
    upload_id_marker = page.next_upload_id_marker;
  }
  return all;
}

base::Status S3Client::PutMultipart(const std::string& bucket, const std::string& key,
                                    std::string_view body, bool if_none_match) {
  const size_t part = static_cast<size_t>(std::max<uint64_t>(1, config().part_size_bytes));
  const size_t parallel = static_cast<size_t>(std::max(1, config().max_parallel_parts));
  CKPT_ASSIGN_OR_RETURN(const std::string upload_id, CreateMultipartUpload(bucket, key));
  const size_t parts = std::max<size_t>(1, (body.size() + part - 1) / part);
  std::vector<std::string> etags(parts);
  std::vector<std::future<base::Status>> in_flight;
  base::Status first_error;
  size_t next = 0;
  while (next < parts || !in_flight.empty()) {
    while (first_error.ok() && next < parts && in_flight.size() < parallel) {
      const size_t i = next++;
      in_flight.push_back(std::async(std::launch::async, [&, i] {
        base::Result<std::string> etag = UploadPart(bucket, key, upload_id, static_cast<int>(i + 1),
                                                    body.substr(i * part, part));
        if (!etag.ok()) return etag.status();
        etags[i] = std::move(etag).value();
        return base::Status::OK();
      }));
    }
    if (in_flight.empty()) break;
    base::Status st = in_flight.front().get();
    in_flight.erase(in_flight.begin());
    if (!st.ok() && first_error.ok()) first_error = st;
  }
  if (first_error.ok()) {
    first_error = CompleteMultipartUpload(bucket, key, upload_id, etags, if_none_match);
  }
  if (!first_error.ok()) {
    AbortMultipartUpload(bucket, key, upload_id).IgnoreError();
    return first_error;
  }
  return base::Status::OK();
}

}  // namespace ckpt::s3
