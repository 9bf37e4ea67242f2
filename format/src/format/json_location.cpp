// Where in a JSON text an error is: see json_location.h.
#include "json_location.h"

#include <cctype>
#include <cstring>
#include <vector>

namespace ckpt::format::internal {
namespace {

constexpr int kMaxJsonDepth = 512;

// A cursor over a JSON text that skips values by RFC 8259's grammar and remembers the first
// place it could not go on.
class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : text_(text) {}

  size_t pos() const { return pos_; }
  bool AtEnd() { SkipSpace(); return pos_ >= text_.size(); }
  char Peek() { SkipSpace(); return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  const std::optional<JsonSyntaxError>& error() const { return error_; }

  bool Fail(const char* expected) {
    if (!error_) error_ = JsonSyntaxError{pos_, expected};
    return false;
  }

  // A string at the cursor (after its opening quote is next); its bytes with simple escapes
  // decoded (\uXXXX kept as written: names compared here are ASCII).
  bool String(std::string* out) {
    if (!Eat('"')) return Fail("a string in double quotes");
    for (;;) {
      if (pos_ >= text_.size()) return Fail("the closing '\"' of the string");
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        return Fail("no control character inside a string (escape it)");
      }
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return Fail("an escape after '\\'");
      const char e = text_[pos_++];
      if (e == 'u') {
        for (int i = 0; i < 4; ++i, ++pos_) {
          if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
            return Fail("four hex digits after '\\u'");
          }
        }
        out->append(text_.substr(pos_ - 6, 6));
      } else if (std::strchr("\"\\/bfnrt", e) != nullptr && e != '\0') {
        out->push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e);
      } else {
        --pos_;
        return Fail("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u after '\\'");
      }
    }
  }

  // Skips one value; with `visit`, calls it with (key, key offset) for every member met, in
  // order, and stops early when it returns true.
  template <typename Visit>
  bool Value(int depth, const Visit& visit, bool* stopped) {
    if (depth > kMaxJsonDepth) return Fail("nesting at most 512 deep");
    const char c = Peek();
    if (c == '{') return Object(depth, visit, stopped);
    if (c == '[') return Array(depth, visit, stopped);
    if (c == '"') {
      std::string ignored;
      return String(&ignored);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return Number();
    for (const char* word : {"true", "false", "null"}) {
      if (text_.substr(pos_, std::strlen(word)) == word) {
        pos_ += std::strlen(word);
        return true;
      }
    }
    return Fail("a value (object, array, string, number, true, false or null)");
  }

  bool Value() {
    bool stopped = false;
    return Value(0, [](const std::string&, size_t) { return false; }, &stopped);
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::strchr(" \t\r\n", text_[pos_]) != nullptr &&
           text_[pos_] != '\0') {
      ++pos_;
    }
  }

  bool Digits() {
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }

  bool Number() {
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (!Digits()) {
      return Fail("a digit");
    }
    if (pos_ < text_.size() && text_[pos_] == '.' && (++pos_, !Digits())) {
      return Fail("a digit after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!Digits()) return Fail("a digit in the exponent");
    }
    return true;
  }

  template <typename Visit>
  bool Object(int depth, const Visit& visit, bool* stopped) {
    Eat('{');
    if (Eat('}')) return true;
    for (;;) {
      if (Peek() != '"') return Fail("a member name in double quotes");
      const size_t key_at = pos_;
      std::string key;
      if (!String(&key)) return false;
      if (visit(key, key_at)) {
        *stopped = true;
        return true;
      }
      if (!Eat(':')) return Fail("':' after a member name");
      if (!Value(depth + 1, visit, stopped) || *stopped) return *stopped;
      if (Eat(',')) continue;
      if (Eat('}')) return true;
      return Fail("',' or '}' after a member");
    }
  }

  template <typename Visit>
  bool Array(int depth, const Visit& visit, bool* stopped) {
    Eat('[');
    if (Eat(']')) return true;
    for (;;) {
      if (!Value(depth + 1, visit, stopped) || *stopped) return *stopped;
      if (Eat(',')) continue;
      if (Eat(']')) return true;
      return Fail("',' or ']' after an element");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::optional<JsonSyntaxError> error_;
};

// One step of a path: a member name, or an array index when `name` is empty.
struct PathStep {
  std::string name;
  size_t index = 0;
};

std::optional<std::vector<PathStep>> ParsePath(std::string_view path) {
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos || close == i + 1) return std::nullopt;
      size_t index = 0;
      for (size_t k = i + 1; k < close; ++k) {
        if (path[k] < '0' || path[k] > '9' || index > 100'000'000) return std::nullopt;
        index = index * 10 + static_cast<size_t>(path[k] - '0');
      }
      steps.push_back({"", index});
      i = close + 1;
    } else {
      if (path[i] == '.') ++i;
      const size_t end = path.find_first_of(".[", i);
      const std::string_view name = path.substr(i, end - i);
      if (name.empty()) return std::nullopt;
      steps.push_back({std::string(name), 0});
      i = end == std::string_view::npos ? path.size() : end;
    }
  }
  return steps;
}

}  // namespace

TextPosition PositionOf(std::string_view text, size_t offset) {
  TextPosition at;
  const size_t end = offset < text.size() ? offset : text.size();
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

std::optional<JsonSyntaxError> FirstJsonSyntaxError(std::string_view json) {
  JsonCursor cursor(json);
  if (cursor.Value() && !cursor.AtEnd()) cursor.Fail("the end of the text after the value");
  return cursor.error();
}

std::optional<size_t> JsonPathOffset(std::string_view json, std::string_view path) {
  const auto steps = ParsePath(path);
  if (!steps || steps->empty()) return std::nullopt;
  JsonCursor cursor(json);
  for (size_t s = 0; s < steps->size(); ++s) {
    const PathStep& step = (*steps)[s];
    const bool last = s + 1 == steps->size();
    cursor.Peek();
    const size_t container_at = cursor.pos();
    if (step.name.empty()) {
      if (!cursor.Eat('[')) return std::nullopt;
      for (size_t i = 0; i < step.index; ++i) {
        if (!cursor.Value() || !cursor.Eat(',')) return std::nullopt;
      }
      if (cursor.Peek() == ']') return std::nullopt;
      continue;
    }
    if (!cursor.Eat('{')) return std::nullopt;
    bool found = false;
    while (!found && cursor.Peek() == '"') {
      std::string key;
      if (!cursor.String(&key) || !cursor.Eat(':')) return std::nullopt;
      if (key == step.name) {
        found = true;
        break;
      }
      if (!cursor.Value()) return std::nullopt;
      if (!cursor.Eat(',')) break;
    }
    if (!found) return last ? std::optional<size_t>(container_at) : std::nullopt;
  }
  cursor.Peek();
  return cursor.pos();
}

std::optional<size_t> JsonMemberOffset(std::string_view json, std::string_view name) {
  JsonCursor cursor(json);
  std::optional<size_t> found;
  bool stopped = false;
  cursor.Value(
      0,
      [&](const std::string& key, size_t at) {
        if (key != name) return false;
        found = at;
        return true;
      },
      &stopped);
  return found;
}

}  // namespace ckpt::format::internal
