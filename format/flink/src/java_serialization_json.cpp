// JavaValueToJson / JavaStreamToJson: a decoded Java serialization stream as JSON (the layout is
// documented in java_serialization.h).
#include <set>
#include <string>

#include "ckpt/base/json_quote.h"
#include "ckpt/flink/java_serialization.h"
#include "java_serialization_reader.h"
#include "java_serialization_render.h"

namespace ckpt::flink {
namespace {

using internal::JavaHex;

class JavaJsonRenderer {
 public:
  explicit JavaJsonRenderer(const JavaRenderOptions& options) : options_(options) {}

  void Value(const JavaValue& v, int depth) {
    using Kind = JavaValue::Kind;
    const bool expandable = v.kind == Kind::kObject || v.kind == Kind::kArray;
    if ((expandable && depth > options_.max_depth) || !expansion_.Expand(v)) {
      out_ += "{\"ref\":\"" + JavaHex(v.handle) + "\"";
      if (v.class_desc != nullptr) {
        out_ += ",\"class\":";
        Quoted(internal::JavaName(v.class_name()));
      }
      out_ += "}";
      return;
    }
    switch (v.kind) {
      case Kind::kNull:
        out_ += "null";
        return;
      case Kind::kPrimitive:
        return Primitive(v.type_code, v.integer, v.real);
      case Kind::kString:
        return Quoted(v.text);
      case Kind::kEnum:
        out_ += "{\"enum\":";
        Quoted(internal::JavaName(v.class_name()));
        out_ += ",\"constant\":";
        Quoted(v.text);
        out_ += "}";
        return;
      case Kind::kObject:
        return Object(v, depth);
      case Kind::kArray:
        return Array(v, depth);
      case Kind::kClass:
        out_ += "{\"classOf\":";
        Quoted(internal::JavaName(v.class_name()));
        out_ += "}";
        return;
      case Kind::kClassDesc:
        out_ += "{\"classDesc\":";
        Quoted(internal::JavaName(v.class_name()));
        out_ += ",\"serialVersionUID\":" + std::to_string(v.class_desc->serial_version_uid) +
                ",\"flags\":" + std::to_string(v.class_desc->flags) + "}";
        return;
      case Kind::kBlockData:
        out_ += "{\"blockData\":\"0x" + internal::JavaHexBytes(v.text, v.text.size(), '\0') + "\"}";
        return;
      case Kind::kException:
        out_ += "{\"exception\":";
        Value(*v.exception, depth + 1);
        out_ += "}";
        return;
    }
  }

  std::string Take() { return std::move(out_); }
  std::string& out() { return out_; }

 private:
  void Quoted(std::string_view s) { base::AppendJsonQuoted(s, &out_); }

  void Primitive(char type_code, int64_t integer, double real) {
    const std::string text = internal::JavaPrimitiveText(type_code, integer, real);
    if (internal::JavaPrimitiveNeedsQuotes(type_code, real)) {
      Quoted(text);
    } else {
      out_ += text;
    }
  }

  void Head(const JavaValue& v) {
    out_ += "{\"class\":";
    Quoted(internal::JavaName(v.class_name()));
    if (v.kind == JavaValue::Kind::kObject && !v.class_desc->is_proxy) {
      out_ += ",\"serialVersionUID\":" + std::to_string(v.class_desc->serial_version_uid);
    }
    out_ += ",\"handle\":\"" + JavaHex(v.handle) + "\"";
  }

  void Object(const JavaValue& v, int depth) {
    Head(v);
    // Field keys: a name a more derived class also has is qualified with its class.
    std::set<std::string> taken;
    std::vector<std::vector<std::string>> keys(v.class_data.size());
    for (size_t c = v.class_data.size(); c-- > 0;) {
      for (const auto& [name, value] : v.class_data[c].fields) {
        std::string key = internal::JavaName(name);
        if (!taken.insert(key).second)
          key = internal::JavaName(v.class_data[c].desc->name) + "." + key;
        keys[c].push_back(std::move(key));
      }
    }
    out_ += ",\"fields\":{";
    bool first = true;
    for (size_t c = 0; c < v.class_data.size(); ++c) {
      for (size_t f = 0; f < v.class_data[c].fields.size(); ++f) {
        out_ += first ? "" : ",";
        first = false;
        Quoted(keys[c][f]);
        out_ += ":";
        Value(*v.class_data[c].fields[f].second, depth + 1);
      }
    }
    out_ += "}";
    first = true;
    for (const JavaClassData& cd : v.class_data) {
      if (!cd.has_annotations) continue;
      out_ += first ? ",\"annotations\":{" : ",";
      first = false;
      Quoted(internal::JavaName(cd.desc->name));
      out_ += ":[";
      for (size_t i = 0; i < cd.annotations.size(); ++i) {
        out_ += i == 0 ? "" : ",";
        Value(*cd.annotations[i], depth + 1);
      }
      out_ += "]";
    }
    if (!first) out_ += "}";
    out_ += "}";
  }

  void Array(const JavaValue& v, int depth) {
    Head(v);
    out_ += ",\"elements\":";
    if (v.type_code == 'B') {
      out_ += "\"0x" + internal::JavaHexBytes(v.text, v.text.size(), '\0') + "\"}";
      return;
    }
    out_ += "[";
    if (v.type_code == 'L' || v.type_code == '[') {
      for (size_t i = 0; i < v.elements.size(); ++i) {
        out_ += i == 0 ? "" : ",";
        Value(*v.elements[i], depth + 1);
      }
    } else {
      const bool real = v.type_code == 'F' || v.type_code == 'D';
      const size_t n = v.array_length();
      for (size_t i = 0; i < n; ++i) {
        out_ += i == 0 ? "" : ",";
        Primitive(v.type_code, real ? 0 : v.integers[i], real ? v.reals[i] : 0);
      }
    }
    out_ += "]}";
  }

  const JavaRenderOptions& options_;
  internal::JavaExpansion expansion_;
  std::string out_;
};

}  // namespace

std::string JavaValueToJson(const JavaValue& value, const JavaRenderOptions& options) {
  JavaJsonRenderer r(options);
  r.Value(value, 1);
  return r.Take();
}

std::string JavaStreamToJson(const JavaStream& stream, const JavaRenderOptions& options) {
  JavaJsonRenderer r(options);
  r.out() += "{\"contents\":[";
  for (size_t i = 0; i < stream.contents().size(); ++i) {
    r.out() += i == 0 ? "" : ",";
    r.Value(*stream.contents()[i], 1);
  }
  r.out() += "]";
  if (stream.aborted_by() != nullptr) r.out() += ",\"aborted\":true";
  r.out() += "}";
  return r.Take();
}

}  // namespace ckpt::flink
