// FormatJavaValue / FormatJavaStream: an indented text of a decoded Java serialization stream
// in the manner of jdeserialize (class name, handle, serialVersionUID, fields per class, the
// data writeObject wrote after them).
#include <string>

#include "ckpt/base/text_escape.h"
#include "ckpt/flink/java_serialization.h"
#include "java_serialization_reader.h"
#include "java_serialization_render.h"

namespace ckpt::flink {
namespace {

using internal::JavaHex;

// A class or field name, cut (JavaName) and escaped for a terminal.
std::string JavaTextName(std::string_view name) {
  return base::EscapeForText(internal::JavaName(name));
}

std::string JavaQuotedText(std::string_view s) {
  std::string out = "\"";
  for (char c : base::EscapeForText(s)) {
    if (c == '"') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

class JavaTextRenderer {
 public:
  explicit JavaTextRenderer(const JavaRenderOptions& options) : options_(options) {}

  // Appends `v` and a newline; its first line continues the current one, further lines are
  // indented by `indent` (and deeper).
  void Value(const JavaValue& v, int indent, int depth) {
    using Kind = JavaValue::Kind;
    const bool too_deep =
        depth > options_.max_depth && (v.kind == Kind::kObject || v.kind == Kind::kArray);
    if (too_deep) {
      out_ += "@" + JavaHex(v.handle) + " " + JavaTextName(v.class_name()) +
              " (not expanded: nested deeper than " + std::to_string(options_.max_depth) + ")\n";
      return;
    }
    if (!expansion_.Expand(v)) {
      out_ += "-> @" + JavaHex(v.handle) + " " +
              (v.kind == Kind::kString
                   ? std::string("string of ") + std::to_string(v.text.size()) + " bytes"
                   : JavaTextName(v.class_name())) +
              "\n";
      return;
    }
    switch (v.kind) {
      case Kind::kNull:
        out_ += "null\n";
        return;
      case Kind::kPrimitive:
        out_ += std::string(internal::JavaPrimitiveTypeName(v.type_code)) + " " +
                base::EscapeForText(internal::JavaPrimitiveText(v.type_code, v.integer, v.real)) +
                "\n";
        return;
      case Kind::kString:
        out_ += JavaQuotedText(v.text) + "\n";
        return;
      case Kind::kEnum:
        out_ += JavaTextName(v.class_name()) + "." + base::EscapeForText(v.text) + "\n";
        return;
      case Kind::kObject:
        return Object(v, indent, depth);
      case Kind::kArray:
        return Array(v, indent, depth);
      case Kind::kClass:
        out_ += "class " + JavaTextName(v.class_name()) + " @" + JavaHex(v.handle) + "\n";
        return;
      case Kind::kClassDesc:
        return ClassDesc(*v.class_desc);
      case Kind::kBlockData:
        out_ += "blockdata (" + std::to_string(v.text.size()) + " bytes) " + Bytes(v.text) + "\n";
        return;
      case Kind::kException:
        out_ += "exception the writer aborted with: ";
        return Value(*v.exception, indent, depth + 1);
    }
  }

  std::string Take() { return std::move(out_); }

 private:
  std::string Bytes(std::string_view bytes) const {
    std::string hex = internal::JavaHexBytes(bytes, options_.max_bytes_shown, ' ');
    if (bytes.size() > options_.max_bytes_shown) hex += " ...";
    return hex;
  }

  void Header(const JavaValue& v) {
    out_ += JavaTextName(v.class_name()) + " @" + JavaHex(v.handle);
    if (expansion_.FirstSight(*v.class_desc) && !v.class_desc->is_proxy) {
      out_ += " (serialVersionUID " + std::to_string(v.class_desc->serial_version_uid) + ")";
    }
  }

  void Object(const JavaValue& v, int indent, int depth) {
    Header(v);
    out_ += " {\n";
    const std::string pad(static_cast<size_t>(indent) + 2, ' ');
    for (const JavaClassData& cd : v.class_data) {
      if (cd.fields.empty() && !cd.has_annotations) continue;
      out_ += pad + JavaTextName(cd.desc->name) + ":\n";
      for (const auto& [name, value] : cd.fields) {
        out_ += pad + "  " + JavaTextName(name) + " = ";
        Value(*value, indent + 4, depth + 1);
      }
      if (cd.has_annotations) {
        out_ += pad + "  " +
                (cd.desc->has_flag(kJavaScExternalizable) ? "writeExternal data:"
                                                          : "writeObject data:") +
                (cd.annotations.empty() ? " none\n" : "\n");
        for (const JavaValue* item : cd.annotations) {
          out_ += pad + "    ";
          Value(*item, indent + 6, depth + 1);
        }
      }
    }
    out_ += std::string(static_cast<size_t>(indent), ' ') + "}\n";
  }

  void Array(const JavaValue& v, int indent, int depth) {
    Header(v);
    out_ += " length " + std::to_string(v.array_length());
    if (v.type_code == 'B') {
      out_ += " " + Bytes(v.text) + "\n";
      return;
    }
    if (v.type_code != 'L' && v.type_code != '[') {
      out_ += " {";
      const size_t n = v.array_length();
      for (size_t i = 0; i < n; ++i) {
        const bool real = v.type_code == 'F' || v.type_code == 'D';
        out_ += i == 0 ? "" : ", ";
        out_ += base::EscapeForText(internal::JavaPrimitiveText(
            v.type_code, real ? 0 : v.integers[i], real ? v.reals[i] : 0));
      }
      out_ += "}\n";
      return;
    }
    out_ += v.elements.empty() ? " {}\n" : " {\n";
    if (v.elements.empty()) return;
    const std::string pad(static_cast<size_t>(indent) + 2, ' ');
    for (size_t i = 0; i < v.elements.size(); ++i) {
      out_ += pad + "[" + std::to_string(i) + "] ";
      Value(*v.elements[i], indent + 2, depth + 1);
    }
    out_ += std::string(static_cast<size_t>(indent), ' ') + "}\n";
  }

  void ClassDesc(const JavaClassDesc& d) {
    out_ += "classdesc " + JavaTextName(d.name) + " @" + JavaHex(d.handle) + " (serialVersionUID " +
            std::to_string(d.serial_version_uid) + ", flags " + JavaHex(d.flags) + ", " +
            std::to_string(d.fields.size()) + " fields";
    if (d.super != nullptr) out_ += ", extends " + JavaTextName(d.super->name);
    out_ += ")\n";
  }

  const JavaRenderOptions& options_;
  internal::JavaExpansion expansion_;
  std::string out_;
};

}  // namespace

std::string FormatJavaValue(const JavaValue& value, const JavaRenderOptions& options) {
  JavaTextRenderer r(options);
  r.Value(value, 0, 1);
  return r.Take();
}

std::string FormatJavaStream(const JavaStream& stream, const JavaRenderOptions& options) {
  JavaTextRenderer r(options);
  for (const JavaValue* v : stream.contents()) r.Value(*v, 0, 1);
  return r.Take();
}

}  // namespace ckpt::flink
