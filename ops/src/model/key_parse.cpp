// A small recursive-descent JSON reader guided by the key's type descriptor (dump --key).
#include "model/key_parse.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "ckpt/format/value_codec.h"

namespace ckpt::ops::internal {
namespace {

using base::Status;

class Parser {
 public:
  explicit Parser(std::string_view text) : in_(text) {}

  base::Result<format::Value> Parse(const pb::TypeDescriptor& type, int depth) {
    if (depth > 32) return Invalid("nesting too deep");
    SkipSpace();
    switch (type.kind()) {
      case pb::TypeDescriptor::INT64: {
        std::string num = Number();
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(num.c_str(), &end, 10);
        if (num.empty() || *end != '\0' || errno != 0) return Invalid("expected an integer");
        return format::Value(static_cast<int64_t>(v));
      }
      case pb::TypeDescriptor::DOUBLE: {
        std::string num = Number();
        char* end = nullptr;
        const double v = std::strtod(num.c_str(), &end);
        if (num.empty() || *end != '\0') return Invalid("expected a number");
        return format::Value(v);
      }
      case pb::TypeDescriptor::BOOL:
        if (Consume("true")) return format::Value(true);
        if (Consume("false")) return format::Value(false);
        return Invalid("expected true or false");
      case pb::TypeDescriptor::STRING: {
        CKPT_ASSIGN_OR_RETURN(std::string s, String());
        return format::Value(std::move(s));
      }
      case pb::TypeDescriptor::BYTES: {
        CKPT_ASSIGN_OR_RETURN(std::string s, String());
        return format::Value(format::Bytes{std::move(s)});
      }
      case pb::TypeDescriptor::VOID:
        if (Consume("null")) return format::Value(format::Void{});
        return Invalid("expected null");
      case pb::TypeDescriptor::TUPLE: {
        format::Tuple t;
        if (!Consume("[")) return Invalid("expected a JSON array for a tuple");
        for (int i = 0; i < type.elements_size(); ++i) {
          if (i > 0 && !Consume(",")) return Invalid("expected ','");
          CKPT_ASSIGN_OR_RETURN(format::Value v, Parse(type.elements(i), depth + 1));
          t.fields.push_back(std::move(v));
        }
        if (!Consume("]")) return Invalid("expected ']' after " + std::to_string(type.elements_size()) + " tuple fields");
        return format::Value(std::move(t));
      }
      case pb::TypeDescriptor::LIST: {
        format::List l;
        if (type.elements_size() != 1) return Invalid("malformed list type");
        if (!Consume("[")) return Invalid("expected a JSON array for a list");
        if (Consume("]")) return format::Value(std::move(l));
        do {
          CKPT_ASSIGN_OR_RETURN(format::Value v, Parse(type.elements(0), depth + 1));
          l.elements.push_back(std::move(v));
        } while (Consume(","));
        if (!Consume("]")) return Invalid("expected ']'");
        return format::Value(std::move(l));
      }
      default:
        return Status::InvalidArgument("--key: keys of type " + format::TypeName(type) +
                                       " cannot be given on the command line; use --key-group");
    }
  }

  bool AtEnd() {
    SkipSpace();
    return pos_ == in_.size();
  }
  // Bare (unquoted) text is accepted for a top-level STRING key.
  bool StartsWithQuote() {
    SkipSpace();
    return pos_ < in_.size() && in_[pos_] == '"';
  }

 private:
  Status Invalid(const std::string& what) const {
    return Status::InvalidArgument("--key '" + std::string(in_) + "': " + what + " at offset " +
                                   std::to_string(pos_));
  }
  void SkipSpace() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n')) ++pos_;
  }
  bool Consume(std::string_view token) {
    SkipSpace();
    if (in_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  std::string Number() {
    SkipSpace();
    const size_t start = pos_;
    while (pos_ < in_.size() && std::string_view("+-0123456789.eE").find(in_[pos_]) != std::string_view::npos) ++pos_;
    return std::string(in_.substr(start, pos_ - start));
  }
  base::Result<std::string> String() {
    if (!Consume("\"")) return Invalid("expected a JSON string");
    std::string out;
    while (pos_ < in_.size() && in_[pos_] != '"') {
      char c = in_[pos_++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= in_.size()) break;
      c = in_[pos_++];
      switch (c) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'u': {
          if (pos_ + 4 > in_.size()) return Invalid("truncated \\u escape");
          const unsigned cp = static_cast<unsigned>(std::strtoul(std::string(in_.substr(pos_, 4)).c_str(), nullptr, 16));
          pos_ += 4;
          // UTF-8 encode (surrogate pairs are not needed for keys typed on a command line).
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default: out.push_back(c);
      }
    }
    if (!Consume("\"")) return Invalid("unterminated string");
    return out;
  }

  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

base::Result<format::Value> ParseKeyJson(const pb::TypeDescriptor& type, std::string_view text) {
  Parser p(text);
  if (type.kind() == pb::TypeDescriptor::STRING && !p.StartsWithQuote()) {
    return format::Value(std::string(text));
  }
  CKPT_ASSIGN_OR_RETURN(format::Value v, p.Parse(type, 0));
  if (!p.AtEnd()) {
    return Status::InvalidArgument("--key '" + std::string(text) + "': trailing characters");
  }
  return v;
}

}  // namespace ckpt::ops::internal
