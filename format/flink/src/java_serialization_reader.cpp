// JavaStreamReader: the stream header, top-level contents, dispatch on the type code, handles,
// strings, block data and TC_EXCEPTION (Java Object Serialization Specification, 6.4). Class
// descriptors are in java_serialization_classdesc.cpp, objects, arrays, enums and classes in
// java_serialization_objects.cpp.
#include "java_serialization_reader.h"

#include <cstdio>

namespace ckpt::flink::internal {

using base::Status;

namespace {

// The message that unwinds the reader from TC_EXCEPTION to the top level; never returned.
constexpr char kJavaAbortUnwinding[] = "stream aborted by the writer";

const char* JavaKindName(JavaValue::Kind kind) {
  switch (kind) {
    case JavaValue::Kind::kNull:
      return "null";
    case JavaValue::Kind::kPrimitive:
      return "primitive";
    case JavaValue::Kind::kString:
      return "string";
    case JavaValue::Kind::kEnum:
      return "enum constant";
    case JavaValue::Kind::kObject:
      return "object";
    case JavaValue::Kind::kArray:
      return "array";
    case JavaValue::Kind::kClass:
      return "class";
    case JavaValue::Kind::kClassDesc:
      return "class descriptor";
    case JavaValue::Kind::kBlockData:
      return "block data";
    case JavaValue::Kind::kException:
      return "exception";
  }
  return "value";
}

}  // namespace

std::string JavaHex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string JavaExpected::Text() const {
  std::string out = what;
  if (name != nullptr) out += " " + *name;
  if (owner != nullptr) out += " of " + *owner;
  return out;
}

std::string JavaTypeCodeName(uint8_t tc) {
  static constexpr const char* kNames[] = {
      "TC_NULL",          "TC_REFERENCE", "TC_CLASSDESC",  "TC_OBJECT",         "TC_STRING",
      "TC_ARRAY",         "TC_CLASS",     "TC_BLOCKDATA",  "TC_ENDBLOCKDATA",   "TC_RESET",
      "TC_BLOCKDATALONG", "TC_EXCEPTION", "TC_LONGSTRING", "TC_PROXYCLASSDESC", "TC_ENUM"};
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", tc);
  if (tc < kJavaTcNull || tc > kJavaTcEnum) return std::string("type code ") + hex;
  return std::string(kNames[tc - kJavaTcNull]) + " (" + hex + ")";
}

Status JavaStreamReader::ReadHeader() {
  const uint64_t at = in_.offset();
  if (in_.remaining() < 4) {
    return in_.Error(at, "truncated: expected the Java serialization header AC ED 00 05, " +
                             std::to_string(in_.remaining()) + " byte(s) left");
  }
  CKPT_ASSIGN_OR_RETURN(uint16_t magic, in_.ReadU16());
  CKPT_ASSIGN_OR_RETURN(uint16_t version, in_.ReadU16());
  if (magic != 0xACED) {
    return in_.Error(
        at, "not a Java serialization stream: expected magic AC ED, found " + JavaHex(magic));
  }
  if (version != 5) {
    return in_.Error(
        at + 2, "Java serialization stream version " + std::to_string(version) + ", expected 5");
  }
  return Status::OK();
}

Status JavaStreamReader::ReadTopLevelContent() {
  const uint64_t at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t tc, TypeCode({"a stream content"}));
  if (tc == kJavaTcReset) {
    handles_.clear();
    return Status::OK();
  }
  top_partial_ = nullptr;
  auto value = Content(tc, at, Where::kTopLevel);
  if (value.ok()) {
    out_->contents_.push_back(*value);
    return Status::OK();
  }
  if (aborted_ == nullptr) return value.status();
  if (top_partial_ != nullptr) out_->contents_.push_back(top_partial_);
  out_->contents_.push_back(aborted_);
  out_->aborted_by_ = aborted_;
  aborted_ = nullptr;
  return Status::OK();
}

base::Result<uint32_t> JavaStreamReader::Count(const char* what, uint32_t min_item_bytes) {
  const uint64_t at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t n, in_.ReadI32());
  if (n < 0) return in_.Error(at, std::string("negative ") + what + " " + std::to_string(n));
  if (static_cast<uint64_t>(n) * min_item_bytes > in_.remaining()) {
    return in_.Error(at, std::string("truncated: ") + what + " " + std::to_string(n) +
                             " needs at least " +
                             std::to_string(uint64_t{min_item_bytes} * static_cast<uint64_t>(n)) +
                             " bytes, " + std::to_string(in_.remaining()) + " left");
  }
  return static_cast<uint32_t>(n);
}

base::Result<uint8_t> JavaStreamReader::TypeCode(const JavaExpected& what) {
  if (in_.at_end()) return in_.Error("truncated: expected " + what.Text());
  return in_.ReadU8();
}

Status JavaStreamReader::CheckDepth(uint64_t at) {
  if (depth_ > limits_.max_depth) {
    return in_.Error(at, "Java serialization nested deeper than " +
                             std::to_string(limits_.max_depth) + " levels");
  }
  return Status::OK();
}

Status JavaStreamReader::Charge(uint64_t at) {
  if (++charged_ > limits_.max_nodes) {
    return in_.Error(at, "Java serialization stream holds more than " +
                             std::to_string(limits_.max_nodes) + " values");
  }
  return Status::OK();
}

base::Result<JavaValue*> JavaStreamReader::NewValue(JavaValue::Kind kind, uint64_t at) {
  CKPT_RETURN_IF_ERROR(Charge(at));
  out_->values_.push_back(std::make_unique<JavaValue>());
  JavaValue* v = out_->values_.back().get();
  v->kind = kind;
  v->offset = at;
  return v;
}

base::Result<uint32_t> JavaStreamReader::NewHandle(JavaValue* value, JavaClassDesc* desc,
                                                   uint64_t at) {
  if (handles_.size() >= limits_.max_handles) {
    return in_.Error(at, "Java serialization stream assigns more than " +
                             std::to_string(limits_.max_handles) + " handles");
  }
  HandleEntry entry;
  entry.value = value;
  entry.desc = desc;
  entry.complete = desc == nullptr;
  handles_.push_back(entry);
  return static_cast<uint32_t>(kJavaBaseWireHandle + handles_.size() - 1);
}

void JavaStreamReader::NoteTopLevel(JavaValue* value) {
  if (depth_ == 1 && top_partial_ == nullptr) top_partial_ = value;
}

base::Result<size_t> JavaStreamReader::Reference(uint64_t at) {
  CKPT_ASSIGN_OR_RETURN(int32_t raw, in_.ReadI32());
  const uint32_t handle = static_cast<uint32_t>(raw);
  if (handle < kJavaBaseWireHandle || handle - kJavaBaseWireHandle >= handles_.size()) {
    return in_.Error(at, "TC_REFERENCE to handle " + JavaHex(handle) + ", expected one of the " +
                             std::to_string(handles_.size()) + " handle(s) assigned from " +
                             JavaHex(kJavaBaseWireHandle));
  }
  return size_t{handle - kJavaBaseWireHandle};
}

base::Result<JavaValue*> JavaStreamReader::ClassDescValue(size_t handle_index, uint64_t at) {
  if (handles_[handle_index].desc_value != nullptr) return handles_[handle_index].desc_value;
  CKPT_ASSIGN_OR_RETURN(JavaValue * v, NewValue(JavaValue::Kind::kClassDesc, at));
  v->class_desc = handles_[handle_index].desc;
  v->handle = v->class_desc->handle;
  handles_[handle_index].desc_value = v;
  return v;
}

base::Result<JavaValue*> JavaStreamReader::Content(uint8_t tc, uint64_t at, Where where) {
  JavaDepthGuard guard(&depth_);
  CKPT_RETURN_IF_ERROR(CheckDepth(at));
  switch (tc) {
    case kJavaTcNull:
      return NewValue(JavaValue::Kind::kNull, at);
    case kJavaTcReference: {
      CKPT_ASSIGN_OR_RETURN(size_t index, Reference(at));
      const HandleEntry& entry = handles_[index];
      if (entry.value != nullptr) return entry.value;
      if (!entry.complete) {
        return in_.Error(at, "TC_REFERENCE to class descriptor " + entry.desc->name +
                                 " while it is still being read");
      }
      return ClassDescValue(index, at);
    }
    case kJavaTcString:
    case kJavaTcLongString:
      return NewString(tc, at);
    case kJavaTcClassDesc:
    case kJavaTcProxyClassDesc: {
      CKPT_ASSIGN_OR_RETURN(JavaClassDesc * desc,
                            ClassDescAfterTag(tc, at, {"a class descriptor"}));
      return ClassDescValue(desc->handle - kJavaBaseWireHandle, at);
    }
    case kJavaTcObject:
      return NewObject(at);
    case kJavaTcArray:
      return NewArray(at);
    case kJavaTcEnum:
      return NewEnum(at);
    case kJavaTcClass:
      return NewClass(at);
    case kJavaTcBlockData:
    case kJavaTcBlockDataLong:
      if (where == Where::kValue) {
        return in_.Error(at, "expected an object, found block data " + JavaTypeCodeName(tc));
      }
      return BlockData(tc, at);
    case kJavaTcException:
      return Exception(at);
    case kJavaTcReset:
      return in_.Error(at,
                       "TC_RESET (0x79) inside an object; a reset is only allowed between "
                       "top-level contents");
    default:
      return in_.Error(at, std::string(where == Where::kValue ? "expected an object"
                                                              : "expected a stream content") +
                               ", found " + JavaTypeCodeName(tc));
  }
}

base::Result<JavaValue*> JavaStreamReader::ObjectValue(const JavaExpected& what) {
  const uint64_t at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t tc, TypeCode(what));
  const bool is_object = tc >= kJavaTcNull && tc <= kJavaTcEnum && tc != kJavaTcBlockData &&
                         tc != kJavaTcEndBlockData && tc != kJavaTcReset &&
                         tc != kJavaTcBlockDataLong;
  if (!is_object) {
    return in_.Error(at, "expected " + what.Text() + " (an object), found " + JavaTypeCodeName(tc));
  }
  return Content(tc, at, Where::kValue);
}

base::Result<JavaValue*> JavaStreamReader::StringValue(const JavaExpected& what) {
  const uint64_t at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t tc, TypeCode(what));
  if (tc == kJavaTcString || tc == kJavaTcLongString) return NewString(tc, at);
  if (tc == kJavaTcReference) {
    CKPT_ASSIGN_OR_RETURN(size_t index, Reference(at));
    JavaValue* v = handles_[index].value;
    if (v != nullptr && v->kind == JavaValue::Kind::kString) return v;
    return in_.Error(at, "expected " + what.Text() + ", found a TC_REFERENCE to a " +
                             (v != nullptr ? JavaKindName(v->kind) : "class descriptor"));
  }
  return in_.Error(at, "expected " + what.Text() +
                           " (TC_STRING, TC_LONGSTRING or TC_REFERENCE), found " +
                           JavaTypeCodeName(tc));
}

base::Result<JavaValue*> JavaStreamReader::NewString(uint8_t tc, uint64_t at) {
  CKPT_ASSIGN_OR_RETURN(JavaValue * v, NewValue(JavaValue::Kind::kString, at));
  CKPT_ASSIGN_OR_RETURN(v->handle, NewHandle(v, nullptr, at));
  if (tc == kJavaTcString) {
    CKPT_ASSIGN_OR_RETURN(v->text, in_.ReadUtf());
    return v;
  }
  const uint64_t len_at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(int64_t n, in_.ReadI64());
  if (n < 0) return in_.Error(len_at, "negative TC_LONGSTRING length " + std::to_string(n));
  if (static_cast<uint64_t>(n) > in_.remaining()) {
    return in_.Error(len_at, "truncated: TC_LONGSTRING of " + std::to_string(n) + " bytes, " +
                                 std::to_string(in_.remaining()) + " left");
  }
  CKPT_ASSIGN_OR_RETURN(std::string_view raw, in_.ReadBytes(static_cast<uint64_t>(n)));
  if (!ModifiedUtf8ToUtf8(raw, &v->text)) {
    return in_.Error(len_at + 8, "TC_LONGSTRING is not valid modified UTF-8");
  }
  return v;
}

base::Result<JavaValue*> JavaStreamReader::BlockData(uint8_t tc, uint64_t at) {
  uint32_t n = 0;
  if (tc == kJavaTcBlockData) {
    CKPT_ASSIGN_OR_RETURN(uint8_t n8, in_.ReadU8());
    n = n8;
  } else {
    CKPT_ASSIGN_OR_RETURN(n, Count("TC_BLOCKDATALONG length", 0));
  }
  if (n > in_.remaining()) {
    return in_.Error(at, "truncated: " + JavaTypeCodeName(tc) + " of " + std::to_string(n) +
                             " bytes, " + std::to_string(in_.remaining()) + " left");
  }
  CKPT_ASSIGN_OR_RETURN(std::string_view bytes, in_.ReadBytes(n));
  CKPT_ASSIGN_OR_RETURN(JavaValue * v, NewValue(JavaValue::Kind::kBlockData, at));
  v->text.assign(bytes);
  return v;
}

base::Result<JavaValue*> JavaStreamReader::Exception(uint64_t at) {
  handles_.clear();
  CKPT_ASSIGN_OR_RETURN(JavaValue * thrown,
                        ObjectValue({"the exception object after TC_EXCEPTION"}));
  handles_.clear();
  CKPT_ASSIGN_OR_RETURN(JavaValue * v, NewValue(JavaValue::Kind::kException, at));
  v->exception = thrown;
  aborted_ = v;
  return Status::Cancelled(kJavaAbortUnwinding);
}

Status JavaStreamReader::Annotation(std::vector<const JavaValue*>* out) {
  while (true) {
    const uint64_t at = in_.offset();
    CKPT_ASSIGN_OR_RETURN(uint8_t tc, TypeCode({"block data, an object or TC_ENDBLOCKDATA"}));
    if (tc == kJavaTcEndBlockData) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(JavaValue * v, Content(tc, at, Where::kAnnotation));
    out->push_back(v);
  }
}

}  // namespace ckpt::flink::internal

namespace ckpt::flink {

base::Result<JavaStream> ReadJavaStream(std::string_view bytes, const std::string& file,
                                        uint64_t base_offset, const JavaStreamLimits& limits) {
  DataInput in(bytes, file, base_offset);
  JavaStream stream;
  internal::JavaStreamReader reader(in, limits, &stream);
  CKPT_RETURN_IF_ERROR(reader.ReadHeader());
  while (!in.at_end()) CKPT_RETURN_IF_ERROR(reader.ReadTopLevelContent());
  return stream;
}

base::Result<JavaStream> ReadJavaObject(DataInput& in, const JavaStreamLimits& limits) {
  JavaStream stream;
  internal::JavaStreamReader reader(in, limits, &stream);
  CKPT_RETURN_IF_ERROR(reader.ReadHeader());
  while (stream.contents().empty()) CKPT_RETURN_IF_ERROR(reader.ReadTopLevelContent());
  return stream;
}

}  // namespace ckpt::flink
