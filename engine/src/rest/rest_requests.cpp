// Request bodies of the REST API: parsed with nlohmann::json, every field type checked.
#include "rest/rest_requests.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <nlohmann/json.hpp>

#include "ckpt/base/fs_resolver.h"

namespace ckpt::engine::rest {

using nlohmann::json;

namespace {

base::Status Mismatch(const std::string& type, const std::string& what) {
  return base::Status::InvalidArgument("Request did not match expected format " + type + ": " +
                                       what);
}

base::Result<json> Object(std::string_view body, const std::string& type) {
  if (body.empty()) return json::object();
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Mismatch(type, "the body is not a JSON object");
  return j;
}

// Field `name` as a string: "" when absent or null.
base::Status StringField(const json& body, const std::string& name, const std::string& type,
                         std::string* out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return base::Status::OK();
  if (!it->is_string()) return Mismatch(type, "field '" + name + "' must be a string");
  *out = it->get<std::string>();
  return base::Status::OK();
}

base::Status BoolField(const json& body, const std::string& name, const std::string& type,
                       bool* out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return base::Status::OK();
  if (!it->is_boolean()) return Mismatch(type, "field '" + name + "' must be true or false");
  *out = it->get<bool>();
  return base::Status::OK();
}

base::Status FormatField(const json& body, const std::string& type, pb::SavepointFormat* out) {
  std::string f;
  CKPT_RETURN_IF_ERROR(StringField(body, "formatType", type, &f));
  if (f.empty() || f == "CANONICAL") {
    *out = pb::CANONICAL;
  } else if (f == "NATIVE") {
    *out = pb::NATIVE;
  } else {
    return Mismatch(type, "formatType '" + f + "' is not CANONICAL or NATIVE");
  }
  return base::Status::OK();
}

base::Status TriggerIdField(const json& body, const std::string& type, std::string* out) {
  CKPT_RETURN_IF_ERROR(StringField(body, "triggerId", type, out));
  if (!out->empty() && !IsTriggerId(*out)) {
    return Mismatch(type, "field 'triggerId' must be 32 lowercase hexadecimal digits");
  }
  return base::Status::OK();
}

}  // namespace

base::Result<CheckpointTriggerRequest> ParseCheckpointTriggerRequest(std::string_view body) {
  const std::string type = "CheckpointTriggerRequestBody";
  CKPT_ASSIGN_OR_RETURN(json j, Object(body, type));
  CheckpointTriggerRequest r;
  std::string kind;
  CKPT_RETURN_IF_ERROR(StringField(j, "checkpointType", type, &kind));
  CKPT_RETURN_IF_ERROR(TriggerIdField(j, type, &r.trigger_id));
  if (kind.empty() || kind == "CONFIGURED") {
    r.type = CheckpointTriggerRequest::Type::kConfigured;
  } else if (kind == "FULL") {
    r.type = CheckpointTriggerRequest::Type::kFull;
  } else if (kind == "INCREMENTAL") {
    r.type = CheckpointTriggerRequest::Type::kIncremental;
  } else {
    return Mismatch(type, "checkpointType '" + kind + "' is not CONFIGURED, FULL or INCREMENTAL");
  }
  return r;
}

base::Result<SavepointTriggerRequest> ParseSavepointTriggerRequest(std::string_view body) {
  const std::string type = "SavepointTriggerRequestBody";
  CKPT_ASSIGN_OR_RETURN(json j, Object(body, type));
  SavepointTriggerRequest r;
  CKPT_RETURN_IF_ERROR(StringField(j, "target-directory", type, &r.target_directory));
  CKPT_RETURN_IF_ERROR(TriggerIdField(j, type, &r.trigger_id));
  CKPT_RETURN_IF_ERROR(BoolField(j, "cancel-job", type, &r.cancel_job));
  CKPT_RETURN_IF_ERROR(FormatField(j, type, &r.format));
  return r;
}

base::Result<StopRequest> ParseStopRequest(std::string_view body) {
  const std::string type = "StopWithSavepointRequestBody";
  CKPT_ASSIGN_OR_RETURN(json j, Object(body, type));
  StopRequest r;
  CKPT_RETURN_IF_ERROR(StringField(j, "targetDirectory", type, &r.target_directory));
  CKPT_RETURN_IF_ERROR(TriggerIdField(j, type, &r.trigger_id));
  CKPT_RETURN_IF_ERROR(BoolField(j, "drain", type, &r.drain));
  CKPT_RETURN_IF_ERROR(FormatField(j, type, &r.format));
  return r;
}

base::Result<DisposalRequest> ParseDisposalRequest(std::string_view body) {
  const std::string type = "SavepointDisposalRequest";
  CKPT_ASSIGN_OR_RETURN(json j, Object(body, type));
  DisposalRequest r;
  std::string path;
  CKPT_RETURN_IF_ERROR(StringField(j, "savepoint-path", type, &path));
  CKPT_RETURN_IF_ERROR(TriggerIdField(j, type, &r.trigger_id));
  base::Result<std::string> local = StripFileScheme(path);
  if (!local.ok()) return Mismatch(type, "field 'savepoint-path': " + local.status().message());
  r.path = std::move(*local);
  if (r.path.empty()) return Mismatch(type, "field 'savepoint-path' is required");
  return r;
}

bool IsJobIdHex(std::string_view s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsTriggerId(std::string_view s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
    } else {
      return false;
    }
    if (s.size() - i < len) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

base::Result<std::string> CheckSavepointTarget(std::string_view dir) {
  const std::string shown(dir);
  auto refuse = [&](const std::string& why) {
    return base::Status::InvalidArgument("Savepoint target directory '" + shown + "' " + why);
  };
  if (dir.find('\0') != std::string_view::npos) return refuse("contains a NUL byte");
  if (dir.empty() || dir.front() != '/') return refuse("is not an absolute path");
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (dir == "/") return refuse("is the filesystem root");
  std::string_view first;
  for (size_t pos = 1; pos <= dir.size();) {
    size_t end = dir.find('/', pos);
    if (end == std::string_view::npos) end = dir.size();
    const std::string_view part = dir.substr(pos, end - pos);
    if (part.empty() || part == "." || part == "..") {
      return refuse("is not a normalised path (it has an empty, '.' or '..' component)");
    }
    if (first.empty()) first = part;
    pos = end + 1;
  }
  static constexpr std::string_view kSystem[] = {"bin", "boot", "dev",  "etc",
                                                 "proc", "sbin", "sys", "usr"};
  const bool system = first.rfind("lib", 0) == 0 ||
                      std::find(std::begin(kSystem), std::end(kSystem), first) != std::end(kSystem);
  if (system) return refuse("is in the system directory /" + std::string(first));
  return std::string(dir);
}

base::Result<int64_t> ParseCheckpointIdSegment(std::string_view s) {
  int64_t id = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, id);
  if (s.empty() || ec != std::errc() || ptr != end) {
    return base::Status::InvalidArgument("Invalid checkpoint id '" + std::string(s) + "'");
  }
  return id;
}

base::Result<std::string> StripFileScheme(std::string_view path) {
  if (base::SchemeOf(path) != "file") return std::string(path);
  return base::LocalPathOf(path);
}

}  // namespace ckpt::engine::rest
