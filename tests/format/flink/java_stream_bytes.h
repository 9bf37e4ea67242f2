// Java Object Serialization Stream pieces built byte by byte from the grammar of the Java Object
// Serialization Specification (6.4), for tests of java_serialization.h. Handles are counted by
// the test: each class descriptor, string, object, array, enum and class takes the next one.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/flink/java_serialization.h"
#include "java_bytes.h"

namespace ckpt::flink::java_stream_bytes {

inline std::string Byte(uint8_t b) { return std::string(1, static_cast<char>(b)); }
inline std::string StreamHeader() { return std::string("\xAC\xED\x00\x05", 4); }
inline std::string Null() { return Byte(0x70); }
inline std::string EndBlock() { return Byte(0x78); }
inline std::string Reset() { return Byte(0x79); }
// TC_REFERENCE to the n-th handle.
inline std::string Ref(uint32_t n) {
  return Byte(0x71) + java_bytes::I32(static_cast<int32_t>(0x7E0000 + n));
}
inline std::string Str(const std::string& s) { return Byte(0x74) + java_bytes::Utf(s); }
inline std::string BlockData(const std::string& bytes) {
  return Byte(0x77) + Byte(static_cast<uint8_t>(bytes.size())) + bytes;
}
inline std::string BlockDataLong(const std::string& bytes) {
  return Byte(0x7A) + java_bytes::Frame(bytes);
}
// A primitive field descriptor ('I', "count").
inline std::string PrimField(char code, const std::string& name) {
  return std::string(1, code) + java_bytes::Utf(name);
}
// An object field descriptor; `signature` is a string content (Str("Ljava/lang/String;")) or
// a Ref to one.
inline std::string ObjField(const std::string& name, const std::string& signature,
                            char code = 'L') {
  return std::string(1, code) + java_bytes::Utf(name) + signature;
}
// TC_CLASSDESC name serialVersionUID flags fields classAnnotation TC_ENDBLOCKDATA superClassDesc.
inline std::string ClassDesc(const std::string& name, int64_t suid, uint8_t flags,
                             const std::vector<std::string>& fields,
                             const std::string& super = Null(),
                             const std::string& annotation = "") {
  std::string out = Byte(0x72) + java_bytes::Utf(name) + java_bytes::I64(suid) + Byte(flags) +
                    java_bytes::I16(static_cast<int16_t>(fields.size()));
  for (const std::string& f : fields) out += f;
  return out + annotation + EndBlock() + super;
}
// TC_OBJECT classDesc classdata.
inline std::string Object(const std::string& desc, const std::string& data) {
  return Byte(0x73) + desc + data;
}
// TC_ARRAY classDesc length values.
inline std::string Array(const std::string& desc, int32_t length, const std::string& values) {
  return Byte(0x75) + desc + java_bytes::I32(length) + values;
}

// The first content of `stream`; an empty stream fails the test and yields a null node.
inline const JavaValue& JavaRootOf(const JavaStream& stream) {
  static const JavaValue kNoRoot;
  const JavaValue* root = stream.root();
  if (root == nullptr) {
    ADD_FAILURE() << "the stream holds no content";
    return kNoRoot;
  }
  return *root;
}

}  // namespace ckpt::flink::java_stream_bytes
