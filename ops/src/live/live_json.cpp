// live_json::Reader: bounded parsing of answer bodies and typed field access.
#include "live/live_json.h"

#include <cmath>
#include <limits>

#include "ckpt/ops/live.h"

namespace ckpt::ops::live_json {

namespace {

// Deeper documents are refused: no answer of the endpoints read here nests beyond a handful of
// levels, and a hostile one must not cost unbounded memory or recursion.
constexpr int kLiveMaxJsonDepth = 64;

}  // namespace

bool LiveNestsTooDeep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\') {
        ++i;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kLiveMaxJsonDepth) return true;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return false;
}

base::Result<Json> Reader::ParseObject(std::string_view text) const {
  if (text.size() > kLiveMaxBodyBytes) {
    return base::Status::Corruption(where_ + ": the answer is " + std::to_string(text.size()) +
                                    " bytes, more than the " +
                                    std::to_string(kLiveMaxBodyBytes >> 20) + " MiB limit");
  }
  if (LiveNestsTooDeep(text)) {
    return base::Status::Corruption(where_ + ": the answer nests deeper than " +
                                    std::to_string(kLiveMaxJsonDepth) + " levels");
  }
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    std::string excerpt(text.substr(0, 200));
    return base::Status::Corruption(where_ + ": the answer is not JSON (" + e.what() +
                                    "): " + excerpt);
  }
  if (!doc.is_object()) {
    return base::Status::Corruption(where_ + ": the answer is a JSON " +
                                    std::string(doc.type_name()) + ", not an object");
  }
  return doc;
}

base::Status Reader::Error(const std::string& path, const std::string& what) const {
  return base::Status::Corruption(where_ + ": " + path + " " + what);
}

base::Status Reader::NotAnObject(const std::string& path, const Json& v) const {
  return WrongType(path, v, "an object");
}

base::Status Reader::WrongType(const std::string& path, const Json& v, const char* want) const {
  return Error(path, std::string("is a ") + v.type_name() + ", not " + want);
}

std::string Reader::Sub(const std::string& path, const char* key) {
  return path.empty() ? std::string(key) : path + "." + key;
}

base::Result<const Json*> Reader::Field(const Json& o, const char* key, const std::string& path,
                                        Need need) const {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) {
    if (need == Need::kRequired) {
      return Error(Sub(path, key), it == o.end() ? "is missing" : "is null");
    }
    return static_cast<const Json*>(nullptr);
  }
  return &*it;
}

base::Result<std::string> Reader::String(const Json& o, const char* key, const std::string& path,
                                         Need need) const {
  CKPT_ASSIGN_OR_RETURN(const Json* v, Field(o, key, path, need));
  if (v == nullptr) return std::string();
  if (!v->is_string()) return WrongType(Sub(path, key), *v, "a string");
  return v->get<std::string>();
}

base::Result<int64_t> Reader::Int(const Json& o, const char* key, const std::string& path,
                                  Need need) const {
  CKPT_ASSIGN_OR_RETURN(const Json* v, Field(o, key, path, need));
  if (v == nullptr) return int64_t{0};
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Error(Sub(path, key), "is " + std::to_string(u) + ", out of range");
    }
    return static_cast<int64_t>(u);
  }
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_float()) {
    // Jackson may write a long as 1.0E3; a fraction or a value beyond int64 is refused.
    const double d = v->get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9.2e18) {
      return Error(Sub(path, key), "is " + v->dump() + ", not an integer");
    }
    return static_cast<int64_t>(d);
  }
  return WrongType(Sub(path, key), *v, "a number");
}

base::Result<bool> Reader::Bool(const Json& o, const char* key, const std::string& path,
                                Need need) const {
  CKPT_ASSIGN_OR_RETURN(const Json* v, Field(o, key, path, need));
  if (v == nullptr) return false;
  if (!v->is_boolean()) return WrongType(Sub(path, key), *v, "a boolean");
  return v->get<bool>();
}

base::Result<const Json*> Reader::Object(const Json& o, const char* key, const std::string& path,
                                         Need need) const {
  CKPT_ASSIGN_OR_RETURN(const Json* v, Field(o, key, path, need));
  if (v != nullptr && !v->is_object()) return WrongType(Sub(path, key), *v, "an object");
  return v;
}

base::Result<const Json*> Reader::Array(const Json& o, const char* key, const std::string& path,
                                        Need need) const {
  CKPT_ASSIGN_OR_RETURN(const Json* v, Field(o, key, path, need));
  if (v != nullptr && !v->is_array()) return WrongType(Sub(path, key), *v, "an array");
  return v;
}

base::Result<int> NarrowToInt(const Reader& r, int64_t v, const std::string& path) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    return r.Error(path, "is " + std::to_string(v) + ", out of range");
  }
  return static_cast<int>(v);
}

}  // namespace ckpt::ops::live_json
