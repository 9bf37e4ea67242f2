// ReadJavaObject: the subset of the Java Object Serialization Stream Protocol (Java SE spec,
// chapter 6 "grammar for the stream format") that Flink's CheckpointProperties uses.
#include "java_serialization.h"

namespace ckpt::flink::internal {
namespace {

using base::Status;

constexpr uint8_t kTcNull = 0x70, kTcReference = 0x71, kTcClassDesc = 0x72, kTcObject = 0x73,
                  kTcString = 0x74, kTcArray = 0x75, kTcClass = 0x76, kTcBlockData = 0x77,
                  kTcEndBlockData = 0x78, kTcReset = 0x79, kTcBlockDataLong = 0x7A,
                  kTcLongString = 0x7C, kTcEnum = 0x7E;
constexpr uint8_t kScWriteMethod = 0x01, kScSerializable = 0x02, kScExternalizable = 0x04;
constexpr uint32_t kBaseHandle = 0x7E0000;
constexpr int kMaxJavaDepth = 32;
constexpr size_t kMaxHandles = 1 << 16;

struct FieldDesc {
  char type = 0;
  std::string name;
};

struct ClassDesc {
  std::string name;
  uint8_t flags = 0;
  std::vector<FieldDesc> fields;
  std::shared_ptr<const ClassDesc> super;
};

class Reader {
 public:
  explicit Reader(DataInput& in) : in_(in) {}

  base::Result<std::shared_ptr<const JavaValue>> Content() {
    if (++depth_ > kMaxJavaDepth) return in_.Error("Java serialization nested too deeply");
    auto v = ContentInner();
    --depth_;
    return v;
  }

 private:
  struct Handle {
    std::shared_ptr<const ClassDesc> desc;
    std::shared_ptr<const JavaValue> value;
  };

  base::Result<size_t> NewHandle() {
    if (handles_.size() >= kMaxHandles) return in_.Error("too many Java serialization handles");
    handles_.emplace_back();
    return handles_.size() - 1;
  }

  base::Result<const Handle*> Ref() {
    const uint64_t at = in_.offset();
    CKPT_ASSIGN_OR_RETURN(int32_t h, in_.ReadI32());
    const int64_t idx = static_cast<int64_t>(static_cast<uint32_t>(h)) - kBaseHandle;
    if (idx < 0 || static_cast<size_t>(idx) >= handles_.size()) {
      return in_.Error(at, "Java serialization back reference to unknown handle");
    }
    return &handles_[static_cast<size_t>(idx)];
  }

  base::Result<std::shared_ptr<const ClassDesc>> ClassDescriptor() {
    const uint64_t at = in_.offset();
    CKPT_ASSIGN_OR_RETURN(uint8_t tc, in_.ReadU8());
    if (tc == kTcNull) return std::shared_ptr<const ClassDesc>();
    if (tc == kTcReference) {
      CKPT_ASSIGN_OR_RETURN(const Handle* h, Ref());
      if (!h->desc) return in_.Error(at, "Java serialization reference is not a class descriptor");
      return h->desc;
    }
    if (tc != kTcClassDesc) {
      return in_.Error(at, "expected a Java class descriptor, found type code " + std::to_string(tc));
    }
    auto desc = std::make_shared<ClassDesc>();
    CKPT_ASSIGN_OR_RETURN(desc->name, in_.ReadUtf());
    CKPT_RETURN_IF_ERROR(in_.ReadI64().status());  // serialVersionUID
    CKPT_ASSIGN_OR_RETURN(size_t handle, NewHandle());
    handles_[handle].desc = desc;
    CKPT_ASSIGN_OR_RETURN(desc->flags, in_.ReadU8());
    CKPT_ASSIGN_OR_RETURN(uint16_t n, in_.ReadU16());
    for (uint16_t i = 0; i < n; ++i) {
      FieldDesc f;
      const uint64_t f_at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(uint8_t type, in_.ReadU8());
      f.type = static_cast<char>(type);
      CKPT_ASSIGN_OR_RETURN(f.name, in_.ReadUtf());
      if (f.type == 'L' || f.type == '[') {
        CKPT_ASSIGN_OR_RETURN(auto cls, Content());  // the field's class name as a string
        if (cls->kind != JavaValue::Kind::kString) {
          return in_.Error(f_at, "Java field type name is not a string");
        }
      } else if (std::string_view("BCDFIJSZ").find(f.type) == std::string_view::npos) {
        return in_.Error(f_at, std::string("unknown Java field type code '") + f.type + "'");
      }
      desc->fields.push_back(std::move(f));
    }
    CKPT_RETURN_IF_ERROR(SkipAnnotation());
    CKPT_ASSIGN_OR_RETURN(desc->super, ClassDescriptor());
    return std::shared_ptr<const ClassDesc>(desc);
  }

  // Contents up to and including TC_ENDBLOCKDATA.
  Status SkipAnnotation() {
    while (true) {
      const uint64_t at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(uint8_t tc, in_.ReadU8());
      if (tc == kTcEndBlockData) return Status::OK();
      if (tc == kTcBlockData) {
        CKPT_ASSIGN_OR_RETURN(uint8_t n, in_.ReadU8());
        CKPT_RETURN_IF_ERROR(in_.Skip(n));
        continue;
      }
      if (tc == kTcBlockDataLong) {
        CKPT_ASSIGN_OR_RETURN(std::string_view skipped, in_.ReadLengthPrefixed());
        (void)skipped;
        continue;
      }
      (void)at;
      // Any other content: back up one byte by re-reading through Content().
      CKPT_RETURN_IF_ERROR(ContentAfterTag(tc).status());
    }
  }

  base::Result<std::shared_ptr<const JavaValue>> Primitive(char type) {
    auto v = std::make_shared<JavaValue>();
    v->kind = JavaValue::Kind::kPrimitive;
    switch (type) {
      case 'B': { CKPT_ASSIGN_OR_RETURN(int8_t x, in_.ReadI8()); v->integer = x; break; }
      case 'Z': { CKPT_ASSIGN_OR_RETURN(bool x, in_.ReadBool()); v->integer = x ? 1 : 0; break; }
      case 'C': { CKPT_ASSIGN_OR_RETURN(uint16_t x, in_.ReadU16()); v->integer = x; break; }
      case 'S': { CKPT_ASSIGN_OR_RETURN(int16_t x, in_.ReadI16()); v->integer = x; break; }
      case 'I': { CKPT_ASSIGN_OR_RETURN(int32_t x, in_.ReadI32()); v->integer = x; break; }
      case 'J': { CKPT_ASSIGN_OR_RETURN(int64_t x, in_.ReadI64()); v->integer = x; break; }
      case 'F': { CKPT_ASSIGN_OR_RETURN(float x, in_.ReadF32()); v->real = x; break; }
      case 'D': { CKPT_ASSIGN_OR_RETURN(double x, in_.ReadF64()); v->real = x; break; }
      default: return in_.Error("unknown primitive type");
    }
    return std::shared_ptr<const JavaValue>(v);
  }

  base::Result<std::shared_ptr<const JavaValue>> ContentInner() {
    CKPT_ASSIGN_OR_RETURN(uint8_t tc, in_.ReadU8());
    return ContentAfterTag(tc);
  }

  base::Result<std::shared_ptr<const JavaValue>> ContentAfterTag(uint8_t tc) {
    const uint64_t at = in_.offset() - 1;
    switch (tc) {
      case kTcNull:
        return std::make_shared<const JavaValue>();
      case kTcReference: {
        CKPT_ASSIGN_OR_RETURN(const Handle* h, Ref());
        if (!h->value) return in_.Error(at, "Java serialization reference is not a value");
        return h->value;
      }
      case kTcString:
      case kTcLongString: {
        auto v = std::make_shared<JavaValue>();
        v->kind = JavaValue::Kind::kString;
        CKPT_ASSIGN_OR_RETURN(size_t handle, NewHandle());
        if (tc == kTcString) {
          CKPT_ASSIGN_OR_RETURN(v->text, in_.ReadUtf());
        } else {
          CKPT_ASSIGN_OR_RETURN(int64_t n, in_.ReadI64());
          if (n < 0 || static_cast<uint64_t>(n) > in_.remaining()) {
            return in_.Error(at, "Java long string length exceeds the file");
          }
          CKPT_ASSIGN_OR_RETURN(std::string_view raw, in_.ReadBytes(static_cast<uint64_t>(n)));
          if (!ModifiedUtf8ToUtf8(raw, &v->text)) return in_.Error(at, "invalid modified UTF-8");
        }
        handles_[handle].value = v;
        return std::shared_ptr<const JavaValue>(v);
      }
      case kTcEnum: {
        auto v = std::make_shared<JavaValue>();
        v->kind = JavaValue::Kind::kEnum;
        CKPT_ASSIGN_OR_RETURN(auto desc, ClassDescriptor());
        if (!desc) return in_.Error(at, "Java enum without a class");
        v->class_name = desc->name;
        CKPT_ASSIGN_OR_RETURN(size_t handle, NewHandle());
        handles_[handle].value = v;
        CKPT_ASSIGN_OR_RETURN(auto name, Content());
        if (name->kind != JavaValue::Kind::kString) return in_.Error(at, "Java enum constant is not a string");
        v->text = name->text;
        return std::shared_ptr<const JavaValue>(v);
      }
      case kTcClassDesc: {
        return in_.Error(at, "unexpected Java class descriptor as a value");
      }
      case kTcClass: {
        auto v = std::make_shared<JavaValue>();
        v->kind = JavaValue::Kind::kClass;
        CKPT_ASSIGN_OR_RETURN(auto desc, ClassDescriptor());
        if (desc) v->class_name = desc->name;
        CKPT_ASSIGN_OR_RETURN(size_t handle, NewHandle());
        handles_[handle].value = v;
        return std::shared_ptr<const JavaValue>(v);
      }
      case kTcArray: {
        auto v = std::make_shared<JavaValue>();
        v->kind = JavaValue::Kind::kArray;
        CKPT_ASSIGN_OR_RETURN(auto desc, ClassDescriptor());
        if (!desc || desc->name.size() < 2 || desc->name[0] != '[') {
          return in_.Error(at, "Java array without an array class");
        }
        v->class_name = desc->name;
        CKPT_ASSIGN_OR_RETURN(size_t handle, NewHandle());
        handles_[handle].value = v;
        CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("Java array length", 1));
        const char elem = desc->name[1];
        for (uint32_t i = 0; i < n; ++i) {
          if (elem == 'L' || elem == '[') {
            CKPT_ASSIGN_OR_RETURN(auto e, Content());
            v->elements.push_back(std::move(e));
          } else {
            CKPT_ASSIGN_OR_RETURN(auto e, Primitive(elem));
            v->elements.push_back(std::move(e));
          }
        }
        return std::shared_ptr<const JavaValue>(v);
      }
      case kTcObject: {
        auto v = std::make_shared<JavaValue>();
        v->kind = JavaValue::Kind::kObject;
        CKPT_ASSIGN_OR_RETURN(auto desc, ClassDescriptor());
        if (!desc) return in_.Error(at, "Java object without a class");
        v->class_name = desc->name;
        CKPT_ASSIGN_OR_RETURN(size_t handle, NewHandle());
        handles_[handle].value = v;
        std::vector<const ClassDesc*> chain;
        for (const ClassDesc* d = desc.get(); d != nullptr; d = d->super.get()) {
          if (chain.size() > kMaxJavaDepth) return in_.Error(at, "Java class hierarchy too deep");
          chain.push_back(d);
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
          const ClassDesc* d = *it;
          if (d->flags & kScExternalizable) {
            return in_.Error(at, "Java externalizable class " + d->name + " is not supported");
          }
          if (!(d->flags & kScSerializable)) continue;
          for (const FieldDesc& f : d->fields) {
            if (f.type == 'L' || f.type == '[') {
              CKPT_ASSIGN_OR_RETURN(auto fv, Content());
              v->fields[f.name] = std::move(fv);
            } else {
              CKPT_ASSIGN_OR_RETURN(auto fv, Primitive(f.type));
              v->fields[f.name] = std::move(fv);
            }
          }
          if (d->flags & kScWriteMethod) CKPT_RETURN_IF_ERROR(SkipAnnotation());
        }
        return std::shared_ptr<const JavaValue>(v);
      }
      case kTcBlockData: {
        CKPT_ASSIGN_OR_RETURN(uint8_t n, in_.ReadU8());
        CKPT_RETURN_IF_ERROR(in_.Skip(n));
        auto v = std::make_shared<JavaValue>();
        v->kind = JavaValue::Kind::kBlockData;
        return std::shared_ptr<const JavaValue>(v);
      }
      case kTcReset:
        handles_.clear();
        return ContentInner();
      default:
        return in_.Error(at, "unsupported Java serialization type code " + std::to_string(tc));
    }
  }

  DataInput& in_;
  std::vector<Handle> handles_;
  int depth_ = 0;
};

}  // namespace

base::Result<std::shared_ptr<const JavaValue>> ReadJavaObject(DataInput& in) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint16_t magic, in.ReadU16());
  CKPT_ASSIGN_OR_RETURN(uint16_t version, in.ReadU16());
  if (magic != 0xACED || version != 5) {
    return in.Error(at, "not a Java serialization stream (expected AC ED 00 05)");
  }
  Reader r(in);
  return r.Content();
}

}  // namespace ckpt::flink::internal
