// A minimal JSON writer for ops' own JSON documents (the vocabulary of docs/json/README.md:
// lowercase snake_case keys, IDs as lowercase hex strings, numbers as numbers, enum values as
// their lowercase names). Private to ckpt::ops; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/json_quote.h"

namespace ckpt::ops::internal {

class JsonWriter {
 public:
  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  JsonWriter& Key(std::string_view k) {
    Comma();
    base::AppendJsonQuoted(k, &out_);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& Str(std::string_view v) {
    Comma();
    base::AppendJsonQuoted(v, &out_);
    return *this;
  }
  JsonWriter& Int(int64_t v) { return Raw(std::to_string(v)); }
  JsonWriter& Uint(uint64_t v) { return Raw(std::to_string(v)); }
  JsonWriter& Bool(bool v) { return Raw(v ? "true" : "false"); }
  JsonWriter& Null() { return Raw("null"); }
  // A value that is already JSON.
  JsonWriter& Raw(std::string_view json) {
    Comma();
    out_ += json;
    return *this;
  }
  // Key + value shorthands.
  JsonWriter& Str(std::string_view k, std::string_view v) { return Key(k).Str(v); }
  JsonWriter& Int(std::string_view k, int64_t v) { return Key(k).Int(v); }
  JsonWriter& Uint(std::string_view k, uint64_t v) { return Key(k).Uint(v); }
  JsonWriter& Bool(std::string_view k, bool v) { return Key(k).Bool(v); }
  // A string, or null when empty.
  JsonWriter& StrOrNull(std::string_view k, std::string_view v) {
    Key(k);
    return v.empty() ? Null() : Str(v);
  }

  const std::string& str() const { return out_; }

 private:
  JsonWriter& Open(char c) {
    Comma();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& Close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }
  void Comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace ckpt::ops::internal
