// The bounded XML reader: see xml.h. A recursive-descent parser with an explicit depth bound.
#include "ckpt/s3/xml.h"

#include <cctype>
#include <cstdint>

namespace ckpt::s3 {

const XmlElement* XmlElement::Child(std::string_view child_name) const {
  for (const XmlElement& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

std::string XmlElement::ChildText(std::string_view child_name) const {
  const XmlElement* c = Child(child_name);
  return c ? c->text : std::string();
}

namespace {

class XmlParser {
 public:
  XmlParser(std::string_view in, std::string_view what, const XmlLimits& limits)
      : in_(in), what_(what), limits_(limits) {}

  base::Result<XmlElement> Document() {
    if (in_.size() > limits_.max_input_bytes) {
      return Fail("document of " + std::to_string(in_.size()) + " bytes exceeds the limit of " +
                  std::to_string(limits_.max_input_bytes));
    }
    CKPT_RETURN_IF_ERROR(SkipMisc());
    if (AtEnd() || in_[pos_] != '<') return Fail("no root element");
    XmlElement root;
    CKPT_RETURN_IF_ERROR(Element(root, 1));
    CKPT_RETURN_IF_ERROR(SkipMisc());
    if (!AtEnd()) return Fail("content after the root element");
    return root;
  }

 private:
  bool AtEnd() const { return pos_ >= in_.size(); }
  bool StartsWith(std::string_view s) const { return in_.substr(pos_).substr(0, s.size()) == s; }

  base::Status Fail(const std::string& why) const {
    return base::Status::Corruption(std::string(what_) + ": malformed XML at byte " +
                                    std::to_string(pos_) + ": " + why);
  }

  void SkipSpace() {
    while (!AtEnd() && (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\r' ||
                        in_[pos_] == '\n')) {
      ++pos_;
    }
  }

  // Skips past `terminator`; Corruption when it never comes.
  base::Status SkipPast(std::string_view terminator, const char* construct) {
    const size_t end = in_.find(terminator, pos_);
    if (end == std::string_view::npos) return Fail(std::string("unterminated ") + construct);
    pos_ = end + terminator.size();
    return base::Status::OK();
  }

  // Whitespace, comments and processing instructions outside the root element.
  base::Status SkipMisc() {
    for (;;) {
      SkipSpace();
      if (StartsWith("<?")) {
        CKPT_RETURN_IF_ERROR(SkipPast("?>", "processing instruction"));
      } else if (StartsWith("<!--")) {
        CKPT_RETURN_IF_ERROR(SkipPast("-->", "comment"));
      } else if (StartsWith("<!")) {
        return Fail("DOCTYPE and other declarations are not accepted");
      } else {
        return base::Status::OK();
      }
    }
  }

  static bool NameChar(char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '_' || c == '-' || c == '.' || c == ':' || u >= 0x80;
  }

  base::Result<std::string> Name() {
    const size_t start = pos_;
    while (!AtEnd() && NameChar(in_[pos_])) ++pos_;
    if (pos_ == start) return Fail("expected a name");
    std::string_view name = in_.substr(start, pos_ - start);
    const size_t colon = name.rfind(':');
    if (colon != std::string_view::npos) name.remove_prefix(colon + 1);
    return std::string(name);
  }

  static void AppendUtf8(uint32_t cp, std::string& out) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // At '&': decodes one reference into `out`.
  base::Status Reference(std::string& out) {
    const size_t semi = in_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) return Fail("unterminated reference");
    const std::string_view ref = in_.substr(pos_ + 1, semi - pos_ - 1);
    if (ref == "amp") out.push_back('&');
    else if (ref == "lt") out.push_back('<');
    else if (ref == "gt") out.push_back('>');
    else if (ref == "quot") out.push_back('"');
    else if (ref == "apos") out.push_back('\'');
    else if (ref.size() >= 2 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) return Fail("empty character reference");
      uint32_t cp = 0;
      for (const char c : digits) {
        const auto u = static_cast<unsigned char>(c);
        uint32_t d = 0;
        if (std::isdigit(u)) d = static_cast<uint32_t>(c - '0');
        else if (hex && std::isxdigit(u)) d = static_cast<uint32_t>(std::tolower(u) - 'a' + 10);
        else return Fail("bad character reference");
        cp = cp * (hex ? 16 : 10) + d;
        if (cp > 0x10FFFF) return Fail("character reference out of range");
      }
      if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return Fail("invalid character reference");
      AppendUtf8(cp, out);
    } else {
      return Fail("unknown entity '&" + std::string(ref) + ";'");
    }
    pos_ = semi + 1;
    return base::Status::OK();
  }

  // Skips attributes up to '>' or '/>'; sets `empty` for '/>'.
  base::Status Attributes(bool& empty) {
    for (;;) {
      SkipSpace();
      if (AtEnd()) return Fail("unterminated start tag");
      if (in_[pos_] == '>') { ++pos_; empty = false; return base::Status::OK(); }
      if (StartsWith("/>")) { pos_ += 2; empty = true; return base::Status::OK(); }
      CKPT_RETURN_IF_ERROR(Name().status());
      SkipSpace();
      if (AtEnd() || in_[pos_] != '=') return Fail("expected '=' in attribute");
      ++pos_;
      SkipSpace();
      if (AtEnd() || (in_[pos_] != '"' && in_[pos_] != '\'')) return Fail("unquoted attribute");
      const char quote = in_[pos_++];
      const size_t end = in_.find(quote, pos_);
      if (end == std::string_view::npos) return Fail("unterminated attribute value");
      pos_ = end + 1;
    }
  }

  // At '<' of a start tag.
  base::Status Element(XmlElement& element, size_t depth) {
    if (depth > limits_.max_depth) {
      return Fail("nesting deeper than " + std::to_string(limits_.max_depth));
    }
    if (++elements_ > limits_.max_elements) {
      return Fail("more than " + std::to_string(limits_.max_elements) + " elements");
    }
    ++pos_;
    CKPT_ASSIGN_OR_RETURN(element.name, Name());
    bool empty = false;
    CKPT_RETURN_IF_ERROR(Attributes(empty));
    if (empty) return base::Status::OK();
    for (;;) {
      if (AtEnd()) return Fail("unterminated element <" + element.name + ">");
      const char c = in_[pos_];
      if (c == '&') {
        CKPT_RETURN_IF_ERROR(Reference(element.text));
      } else if (c != '<') {
        element.text.push_back(c);
        ++pos_;
      } else if (StartsWith("</")) {
        pos_ += 2;
        CKPT_ASSIGN_OR_RETURN(const std::string closing, Name());
        if (closing != element.name) {
          return Fail("</" + closing + "> closes <" + element.name + ">");
        }
        SkipSpace();
        if (AtEnd() || in_[pos_] != '>') return Fail("unterminated end tag");
        ++pos_;
        return base::Status::OK();
      } else if (StartsWith("<![CDATA[")) {
        const size_t start = pos_ + 9;
        CKPT_RETURN_IF_ERROR(SkipPast("]]>", "CDATA section"));
        element.text.append(in_.substr(start, pos_ - 3 - start));
      } else if (StartsWith("<!--")) {
        CKPT_RETURN_IF_ERROR(SkipPast("-->", "comment"));
      } else if (StartsWith("<?")) {
        CKPT_RETURN_IF_ERROR(SkipPast("?>", "processing instruction"));
      } else if (StartsWith("<!")) {
        return Fail("declarations are not accepted inside elements");
      } else {
        element.children.emplace_back();
        CKPT_RETURN_IF_ERROR(Element(element.children.back(), depth + 1));
      }
    }
  }

  std::string_view in_;
  std::string_view what_;
  XmlLimits limits_;
  size_t pos_ = 0;
  size_t elements_ = 0;
};

}  // namespace

base::Result<XmlElement> ParseXml(std::string_view xml, std::string_view what,
                                  const XmlLimits& limits) {
  return XmlParser(xml, what, limits).Document();
}

}  // namespace ckpt::s3
