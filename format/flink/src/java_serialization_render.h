// Private to ckpt::flink: what the text and JSON renderings of a JavaStream share: primitive
// values as text, bytes as hex, and the once-only expansion of shared nodes. Pure functions;
// a JavaExpansion is one rendering's state (not thread-safe).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "ckpt/flink/java_serialization.h"

namespace ckpt::flink::internal {

// "int", "boolean", ... for a primitive type code; "?" otherwise.
const char* JavaPrimitiveTypeName(char type_code);
// The value of a primitive as text: integers in decimal, boolean true/false, float and double
// in their shortest round-trip form ("NaN", "Infinity", "-Infinity" for the others), char as
// its UTF-8 (a lone surrogate as \uXXXX).
std::string JavaPrimitiveText(char type_code, int64_t integer, double real);
// True for a primitive that JSON must quote (char, and non-finite float and double).
bool JavaPrimitiveNeedsQuotes(char type_code, double real);
// Lowercase hex of `bytes`, at most `max_bytes` of them, separated by `sep` if it is not '\0'.
std::string JavaHexBytes(std::string_view bytes, size_t max_bytes, char sep);

// A class or field name for display: names longer than kJavaNameLimit bytes (no real class
// has one) are cut and end in "...", so that a hostile stream cannot repeat a 64 KiB name once
// per six input bytes.
inline constexpr size_t kJavaNameLimit = 256;
std::string JavaName(std::string_view name);

// Which nodes a rendering has expanded: every object, array and class is expanded once, later
// occurrences are references; strings and enum constants are repeated unless longer than
// kJavaRepeatLimit bytes, class name included (so a shared long string cannot blow the output
// up).
class JavaExpansion {
 public:
  static constexpr size_t kJavaRepeatLimit = 80;
  // True the first time for a node that is expanded only once, and always for the others.
  bool Expand(const JavaValue& v);
  // First rendering of `desc` (to show its serialVersionUID once).
  bool FirstSight(const JavaClassDesc& desc) { return descs_.insert(&desc).second; }

 private:
  std::unordered_set<const JavaValue*> values_;
  std::unordered_set<const JavaClassDesc*> descs_;
};

}  // namespace ckpt::flink::internal
