// Private to ckpt::flink: the cursor behind ReadJavaStream / ReadJavaObject
// (java_serialization.h). It reads the grammar of the Java Object Serialization Specification,
// chapter 6.4, into a JavaStream's nodes, with the bounds of JavaStreamLimits. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/java_serialization.h"

namespace ckpt::flink::internal {

// Type codes of the stream (ObjectStreamConstants).
inline constexpr uint8_t kJavaTcNull = 0x70;
inline constexpr uint8_t kJavaTcReference = 0x71;
inline constexpr uint8_t kJavaTcClassDesc = 0x72;
inline constexpr uint8_t kJavaTcObject = 0x73;
inline constexpr uint8_t kJavaTcString = 0x74;
inline constexpr uint8_t kJavaTcArray = 0x75;
inline constexpr uint8_t kJavaTcClass = 0x76;
inline constexpr uint8_t kJavaTcBlockData = 0x77;
inline constexpr uint8_t kJavaTcEndBlockData = 0x78;
inline constexpr uint8_t kJavaTcReset = 0x79;
inline constexpr uint8_t kJavaTcBlockDataLong = 0x7A;
inline constexpr uint8_t kJavaTcException = 0x7B;
inline constexpr uint8_t kJavaTcLongString = 0x7C;
inline constexpr uint8_t kJavaTcProxyClassDesc = 0x7D;
inline constexpr uint8_t kJavaTcEnum = 0x7E;

// What the reader expects next, spelled out only in an error: "<what>[ <name>][ of <owner>]"
// ("the value of field count of p.Counter"). The pointed-to strings outlive the read.
struct JavaExpected {
  const char* what;
  const std::string* name = nullptr;
  const std::string* owner = nullptr;
  std::string Text() const;
};

// One nesting level for the lifetime of the guard.
class JavaDepthGuard {
 public:
  explicit JavaDepthGuard(int* depth) : depth_(depth) { ++*depth_; }
  ~JavaDepthGuard() { --*depth_; }
  JavaDepthGuard(const JavaDepthGuard&) = delete;
  JavaDepthGuard& operator=(const JavaDepthGuard&) = delete;

 private:
  int* depth_;
};

class JavaStreamReader {
 public:
  JavaStreamReader(DataInput& in, const JavaStreamLimits& limits, JavaStream* out)
      : in_(in), limits_(limits), out_(out) {}

  // magic AC ED, version 00 05.
  base::Status ReadHeader();
  // One top-level content appended to the stream's contents; TC_RESET clears the handles and
  // reads on. An aborted write (TC_EXCEPTION) appends the partial object and the exception.
  base::Status ReadTopLevelContent();

 private:
  struct HandleEntry {
    JavaValue* value = nullptr;       // string, enum, object, array, class
    JavaClassDesc* desc = nullptr;    // class descriptor
    bool complete = true;             // a class descriptor whose super class is read
    JavaValue* desc_value = nullptr;  // the descriptor's node once used as a value
  };
  enum class Where { kTopLevel, kAnnotation, kValue };

  // Any content after its type code `tc` at `at`. Block data only outside kValue.
  base::Result<JavaValue*> Content(uint8_t tc, uint64_t at, Where where);
  // An object-typed value: a field value, an array element, an exception.
  base::Result<JavaValue*> ObjectValue(const JavaExpected& what);
  // A String object (TC_STRING, TC_LONGSTRING or a reference to one); null not allowed.
  base::Result<JavaValue*> StringValue(const JavaExpected& what);
  // classDesc: TC_CLASSDESC, TC_PROXYCLASSDESC, TC_NULL (null) or TC_REFERENCE.
  base::Result<JavaClassDesc*> ClassDesc(const JavaExpected& what);
  base::Result<JavaClassDesc*> ClassDescAfterTag(uint8_t tc, uint64_t at, const JavaExpected& what);
  base::Result<JavaClassDesc*> NewClassDesc(uint64_t at);
  base::Result<JavaClassDesc*> NewProxyClassDesc(uint64_t at);
  // classAnnotation / superClassDesc, shared by both kinds of class descriptor.
  base::Status ClassDescTail(JavaClassDesc* desc, size_t handle_index, uint64_t at);
  // Contents up to TC_ENDBLOCKDATA (consumed, not kept).
  base::Status Annotation(std::vector<const JavaValue*>* out);

  base::Result<JavaValue*> NewString(uint8_t tc, uint64_t at);
  base::Result<JavaValue*> NewEnum(uint64_t at);
  base::Result<JavaValue*> NewArray(uint64_t at);
  base::Result<JavaValue*> NewObject(uint64_t at);
  base::Result<JavaValue*> NewClass(uint64_t at);
  base::Result<JavaValue*> BlockData(uint8_t tc, uint64_t at);
  base::Status ClassDataOf(JavaValue* obj, const JavaClassDesc* desc, uint64_t at);
  base::Result<JavaValue*> PrimitiveValue(char type_code);
  base::Status PrimitiveArray(JavaValue* array, char type_code, uint32_t n);
  // TC_EXCEPTION: reset, the Throwable, reset. Marks the stream aborted and returns the node.
  base::Result<JavaValue*> Exception(uint64_t at);
  // TC_REFERENCE's handle (read at `at`) as an index into handles_.
  base::Result<size_t> Reference(uint64_t at);
  // The node standing for the class descriptor of `entry` used as a value (one per descriptor).
  base::Result<JavaValue*> ClassDescValue(size_t handle_index, uint64_t at);

  base::Result<JavaValue*> NewValue(JavaValue::Kind kind, uint64_t at);
  base::Result<uint32_t> NewHandle(JavaValue* value, JavaClassDesc* desc, uint64_t at);
  base::Status Charge(uint64_t at);      // one more unit against limits_.max_nodes
  base::Status CheckDepth(uint64_t at);  // depth_ against limits_.max_depth
  // The next type code; at the end of the input, Corruption "truncated: expected <what>".
  base::Result<uint8_t> TypeCode(const JavaExpected& what);
  // An i32 count of items each at least `min_item_bytes` long: Corruption "negative <what>" or
  // "truncated: <what> N needs ..." (a cut stream always says "truncated") before anything is
  // allocated.
  base::Result<uint32_t> Count(const char* what, uint32_t min_item_bytes);
  // Handle `value` as the node of the top-level content being read, if it is the outermost.
  void NoteTopLevel(JavaValue* value);

  DataInput& in_;
  JavaStreamLimits limits_;
  JavaStream* out_;
  std::vector<HandleEntry> handles_;
  size_t charged_ = 0;
  int depth_ = 0;
  JavaValue* top_partial_ = nullptr;  // the outermost node of the top-level content being read
  JavaValue* aborted_ = nullptr;      // set by TC_EXCEPTION while unwinding
};

// "TC_OBJECT (0x73)" for a known type code, "0x12" otherwise: for error messages.
std::string JavaTypeCodeName(uint8_t tc);
// "0x7e0003": handles and codes in messages and renderings.
std::string JavaHex(uint64_t v);

}  // namespace ckpt::flink::internal
