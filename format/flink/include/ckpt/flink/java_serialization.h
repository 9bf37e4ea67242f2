// A reader of the Java Object Serialization Stream Protocol (java.io.ObjectOutputStream, stream
// version 5; Java Object Serialization Specification chapter 6) without a JVM, bounded for
// hostile input, and two renderings of what it reads (an indented text like jdeserialize's, and
// JSON). Read functions are pure; a JavaStream is immutable once returned and may be shared
// between threads for reading.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::flink {

class DataInput;
struct JavaValue;
namespace internal {
class JavaStreamReader;
}

// Class descriptor flags (ObjectStreamConstants).
inline constexpr uint8_t kJavaScWriteMethod = 0x01;
inline constexpr uint8_t kJavaScSerializable = 0x02;
inline constexpr uint8_t kJavaScExternalizable = 0x04;
inline constexpr uint8_t kJavaScBlockData = 0x08;
inline constexpr uint8_t kJavaScEnum = 0x10;
// The first wire handle: the n-th handle-bearing item of a stream (since the last TC_RESET) is
// kJavaBaseWireHandle + n.
inline constexpr uint32_t kJavaBaseWireHandle = 0x7E0000;

// One field of a class descriptor.
struct JavaFieldDesc {
  // JVM type code: 'B' byte, 'C' char, 'D' double, 'F' float, 'I' int, 'J' long, 'S' short,
  // 'Z' boolean; 'L' an object, '[' an array.
  char type_code = 0;
  std::string name;
  // Object and array fields: the JVM signature of the declared type ("Ljava/lang/String;",
  // "[I"). Empty for primitives.
  std::string signature;
  bool is_primitive() const { return type_code != 'L' && type_code != '['; }
};

// TC_CLASSDESC or TC_PROXYCLASSDESC.
struct JavaClassDesc {
  // The binary class name ("java.util.HashMap", "Gen$Node", "[Ljava.lang.String;", "[I"). A
  // proxy class is named "$Proxy(" + its interfaces joined by ", " + ")".
  std::string name;
  int64_t serial_version_uid = 0;  // 0 for proxies and enums
  uint8_t flags = 0;               // kJavaSc* bits; proxies: kJavaScSerializable
  bool is_proxy = false;
  std::vector<std::string> proxy_interfaces;  // proxies: the interface names, in order
  std::vector<JavaFieldDesc> fields;          // primitives first, as the stream lists them
  // The classAnnotation contents (what ObjectOutputStream.annotateClass wrote; empty for the JDK's
  // own stream), TC_ENDBLOCKDATA excluded.
  std::vector<const JavaValue*> annotations;
  const JavaClassDesc* super = nullptr;  // the superclass descriptor, or null
  uint32_t handle = 0;                   // wire handle

  bool has_flag(uint8_t flag) const { return (flags & flag) != 0; }
};

// The data one class of an object's hierarchy wrote (classdata in the grammar).
struct JavaClassData {
  const JavaClassDesc* desc = nullptr;
  // Default field values in descriptor order (nowrclass). Empty for an externalizable class.
  std::vector<std::pair<std::string, const JavaValue*>> fields;
  // SC_WRITE_METHOD: what writeObject wrote after the default fields; externalizable: what
  // writeExternal wrote. Block data and objects in stream order, TC_ENDBLOCKDATA excluded.
  std::vector<const JavaValue*> annotations;
  bool has_annotations = false;  // SC_WRITE_METHOD or externalizable (annotations may be empty)
};

// One node of the decoded value tree. Nodes are owned by their JavaStream; a back reference
// (TC_REFERENCE) resolves to the very node it names, so the graph may share nodes and have cycles.
struct JavaValue {
  enum class Kind {
    kNull,       // TC_NULL
    kPrimitive,  // a primitive field value (type_code, integer or real)
    kString,     // TC_STRING, TC_LONGSTRING: text (UTF-8)
    kEnum,       // TC_ENUM: class_desc, text = constant name
    kObject,     // TC_OBJECT: class_desc, class_data
    kArray,      // TC_ARRAY: class_desc, type_code, elements / text / integers / reals
    kClass,      // TC_CLASS: class_desc (the class the Class object names)
    kClassDesc,  // a class descriptor written as an object (ObjectStreamClass): class_desc
    kBlockData,  // TC_BLOCKDATA, TC_BLOCKDATALONG: text = the raw bytes
    kException,  // TC_EXCEPTION: exception = the Throwable the writer failed with
  };
  Kind kind = Kind::kNull;
  uint32_t handle = 0;  // wire handle of string, enum, object, array, class; 0 for the others
  uint64_t offset = 0;  // absolute offset of the item's first byte (its type code)
  const JavaClassDesc* class_desc = nullptr;
  // Primitive: 'B' 'C' 'D' 'F' 'I' 'J' 'S' 'Z'. Array: its element type ('L' and '[' for arrays
  // of references).
  char type_code = 0;
  int64_t integer = 0;  // primitive B C I J S Z (char as its UTF-16 code unit, boolean 0/1)
  double real = 0;      // primitive D F
  std::string text;     // string, enum constant name, block data bytes, byte[] contents
  std::vector<JavaClassData> class_data;   // object: top-most serializable class first
  std::vector<const JavaValue*> elements;  // array of references
  std::vector<int64_t> integers;           // boolean[] char[] short[] int[] long[]
  std::vector<double> reals;               // float[] double[]
  const JavaValue* exception = nullptr;    // kException

  // The class name of an object, enum, array, class or class descriptor; "" otherwise.
  const std::string& class_name() const;
  // Object: the value of the field `name`, searched from the most derived class up; null if no
  // class of the object has it.
  const JavaValue* Field(std::string_view name) const;
  // Object: the class data of the class named `class_name`; null if it is not in the hierarchy.
  const JavaClassData* DataOf(std::string_view class_name) const;
  // Number of elements of an array, whatever its element type.
  size_t array_length() const;
};

// Bounds on what one stream may make the reader do; exceeding one is Corruption at the offset
// where it was exceeded.
struct JavaStreamLimits {
  // Nesting of contents (an object in a field of an object in an array ...), class descriptor
  // superclass chains included. Default: 64.
  int max_depth = 64;
  // Value nodes (primitive field values included). Every node costs at least one input byte, so
  // this bounds memory on top of the input size. Default: 1 << 20.
  size_t max_nodes = size_t{1} << 20;
  // Handles assigned since the last TC_RESET. Default: 1 << 20.
  size_t max_handles = size_t{1} << 20;
};

// A decoded stream: the top-level contents in stream order, and the nodes they reach. Move-only;
// moving keeps every node's address.
class JavaStream {
 public:
  JavaStream() = default;
  JavaStream(JavaStream&&) = default;
  JavaStream& operator=(JavaStream&&) = default;

  // Top-level contents in order: objects, strings, arrays, block data (what writeInt and the
  // like wrote between objects), exceptions. TC_RESET leaves no node.
  const std::vector<const JavaValue*>& contents() const { return contents_; }
  // The first top-level content; null for a stream holding only the header.
  const JavaValue* root() const { return contents_.empty() ? nullptr : contents_.front(); }
  // The exception the writer aborted with (TC_EXCEPTION in the middle of an object), else null.
  // The object being written is kept as far as it was written.
  const JavaValue* aborted_by() const { return aborted_by_; }
  size_t node_count() const { return values_.size(); }

 private:
  friend class internal::JavaStreamReader;
  std::vector<std::unique_ptr<JavaValue>> values_;
  std::vector<std::unique_ptr<JavaClassDesc>> classes_;
  std::vector<const JavaValue*> contents_;
  const JavaValue* aborted_by_ = nullptr;
};

// Decodes a whole stream: AC ED 00 05 then contents to the end of `bytes`. `file` names the
// input in errors and `base_offset` is where `bytes` start within it. Returns Corruption
// "<file>: at byte <offset>: <what was expected>" for a stream that does not follow the grammar
// or exceeds `limits`, and Unimplemented (same form) for an externalizable class written with
// stream protocol version 1, whose data only the class itself can delimit.
base::Result<JavaStream> ReadJavaStream(std::string_view bytes, const std::string& file,
                                        uint64_t base_offset = 0,
                                        const JavaStreamLimits& limits = {});

// Reads the stream header and exactly one top-level content (TC_RESETs before it are passed)
// from `in`, leaving `in` just after it: for a stream written into a larger DataOutput, such as
// Flink's. Errors as ReadJavaStream, at offsets of `in`.
base::Result<JavaStream> ReadJavaObject(DataInput& in, const JavaStreamLimits& limits = {});

// Options of the renderings.
struct JavaRenderOptions {
  // Expansion depth; an object or array nested deeper is shown by its handle only. Default: 64.
  int max_depth = 64;
  // Text only: bytes of block data and byte[] shown; longer ones are cut ("..."). JSON shows
  // all bytes. Default: 256.
  size_t max_bytes_shown = 256;
};

// Both renderings expand every object, array, class and class descriptor once: a later
// occurrence (a shared node, a cycle) is a reference by handle. Strings and enum constants are
// repeated, unless longer than 80 bytes. Class and field names longer than 256 bytes are cut
// and end in "...". The output is linear in the input size.

// An indented text rendering in the manner of jdeserialize: each object with its class name,
// handle, serialVersionUID (at the first object of the class) and fields per class of its
// hierarchy (top-most first), then what writeObject / writeExternal wrote; arrays; strings
// (quoted); enums as Class.CONSTANT; block data as hex. A reference is "-> @0x7e0003 <class>".
// Control bytes are escaped (\xNN): the text is safe for a terminal.
std::string FormatJavaValue(const JavaValue& value, const JavaRenderOptions& options = {});
// Every top-level content of `stream`, each starting a line; a node is expanded once for the
// whole stream. An aborted write shows as its partial object, then the exception.
std::string FormatJavaStream(const JavaStream& stream, const JavaRenderOptions& options = {});

// A JSON rendering: null; a primitive as a number (boolean true/false, char a one-character
// string, NaN and infinities as strings); a string as a JSON string; an enum
// {"enum": class, "constant": name}; an object {"class", "serialVersionUID", "handle",
// "fields": {name: value} (top-most class first; a name a subclass also has is qualified as
// "Class.name"), "annotations": {class: [items]} for the classes whose writeObject or
// writeExternal wrote data}; an array {"class", "handle", "elements": [...]} (byte[] elements
// as one "0x..." hex string); a class {"classOf": name}; a class descriptor
// {"classDesc", "serialVersionUID", "flags"}; block data {"blockData": "0x..."}; an exception
// {"exception": object}. A reference is {"ref": "0x7e0003", "class": name}.
std::string JavaValueToJson(const JavaValue& value, const JavaRenderOptions& options = {});
// {"contents": [...]} plus "aborted": true when the writer aborted (aborted_by()).
std::string JavaStreamToJson(const JavaStream& stream, const JavaRenderOptions& options = {});

}  // namespace ckpt::flink
