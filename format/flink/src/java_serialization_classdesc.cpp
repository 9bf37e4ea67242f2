// JavaStreamReader: class descriptors (classDesc, newClassDesc, proxy descriptors, field
// descriptors, class annotations and superclass chains).
#include <string_view>

#include "java_serialization_reader.h"

namespace ckpt::flink::internal {

using base::Status;

base::Result<JavaClassDesc*> JavaStreamReader::ClassDesc(const JavaExpected& what) {
  const uint64_t at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t tc, TypeCode(what));
  return ClassDescAfterTag(tc, at, what);
}

base::Result<JavaClassDesc*> JavaStreamReader::ClassDescAfterTag(uint8_t tc, uint64_t at,
                                                                 const JavaExpected& what) {
  switch (tc) {
    case kJavaTcNull:
      return static_cast<JavaClassDesc*>(nullptr);
    case kJavaTcReference: {
      CKPT_ASSIGN_OR_RETURN(size_t index, Reference(at));
      const HandleEntry& entry = handles_[index];
      if (entry.desc == nullptr) {
        return in_.Error(
            at, "expected " + what.Text() + ", found a TC_REFERENCE to a " +
                    (entry.value->kind == JavaValue::Kind::kString ? "string" : "non-descriptor") +
                    " handle");
      }
      if (!entry.complete) {
        return in_.Error(at, "TC_REFERENCE to class descriptor " + entry.desc->name +
                                 " while it is still being read");
      }
      return entry.desc;
    }
    case kJavaTcClassDesc:
    case kJavaTcProxyClassDesc: {
      JavaDepthGuard guard(&depth_);
      CKPT_RETURN_IF_ERROR(CheckDepth(at));
      return tc == kJavaTcClassDesc ? NewClassDesc(at) : NewProxyClassDesc(at);
    }
    default:
      return in_.Error(at,
                       "expected " + what.Text() +
                           " (TC_CLASSDESC, TC_PROXYCLASSDESC, TC_REFERENCE or TC_NULL), found " +
                           JavaTypeCodeName(tc));
  }
}

base::Result<JavaClassDesc*> JavaStreamReader::NewClassDesc(uint64_t at) {
  CKPT_RETURN_IF_ERROR(Charge(at));
  out_->classes_.push_back(std::make_unique<JavaClassDesc>());
  JavaClassDesc* desc = out_->classes_.back().get();
  CKPT_ASSIGN_OR_RETURN(desc->name, in_.ReadUtf());
  CKPT_ASSIGN_OR_RETURN(desc->serial_version_uid, in_.ReadI64());
  const size_t handle_index = handles_.size();
  CKPT_ASSIGN_OR_RETURN(desc->handle, NewHandle(nullptr, desc, at));
  const uint64_t flags_at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(desc->flags, in_.ReadU8());
  if (desc->has_flag(kJavaScSerializable) && desc->has_flag(kJavaScExternalizable)) {
    return in_.Error(
        flags_at, "class " + desc->name + ": flags set both SC_SERIALIZABLE and SC_EXTERNALIZABLE");
  }
  const uint64_t count_at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(int16_t n, in_.ReadI16());
  // A field descriptor is at least a type code and a 2-byte name length.
  if (n < 0) {
    return in_.Error(count_at,
                     "class " + desc->name + ": negative field count " + std::to_string(n));
  }
  if (static_cast<uint64_t>(n) * 3 > in_.remaining()) {
    return in_.Error(count_at, "truncated: class " + desc->name + " declares " + std::to_string(n) +
                                   " fields, which need at least " + std::to_string(n * 3) +
                                   " bytes, " + std::to_string(in_.remaining()) + " left");
  }
  bool seen_object_field = false;
  for (int16_t i = 0; i < n; ++i) {
    const uint64_t field_at = in_.offset();
    JavaFieldDesc f;
    CKPT_ASSIGN_OR_RETURN(uint8_t code, in_.ReadU8());
    f.type_code = static_cast<char>(code);
    CKPT_ASSIGN_OR_RETURN(f.name, in_.ReadUtf());
    auto where = [&f, desc] { return "field " + f.name + " of class " + desc->name; };
    if (f.type_code == 'L' || f.type_code == '[') {
      CKPT_ASSIGN_OR_RETURN(JavaValue * sig,
                            StringValue({"the type signature of field", &f.name, &desc->name}));
      if (sig->text.empty() || (sig->text[0] != 'L' && sig->text[0] != '[')) {
        return in_.Error(field_at, where() + ": type signature \"" + sig->text +
                                       "\", expected an object or array signature");
      }
      f.signature = sig->text;
      seen_object_field = true;
    } else if (std::string_view("BCDFIJSZ").find(f.type_code) == std::string_view::npos ||
               code == 0) {
      return in_.Error(field_at, where() + ": type code " + JavaHex(code) +
                                     ", expected one of B C D F I J S Z L [");
    } else if (seen_object_field) {
      return in_.Error(field_at, where() +
                                     ": a primitive field after an object field (the "
                                     "stream lists primitive fields first)");
    }
    desc->fields.push_back(std::move(f));
  }
  CKPT_RETURN_IF_ERROR(ClassDescTail(desc, handle_index, at));
  return desc;
}

base::Result<JavaClassDesc*> JavaStreamReader::NewProxyClassDesc(uint64_t at) {
  CKPT_RETURN_IF_ERROR(Charge(at));
  out_->classes_.push_back(std::make_unique<JavaClassDesc>());
  JavaClassDesc* desc = out_->classes_.back().get();
  desc->is_proxy = true;
  desc->flags = kJavaScSerializable;
  const size_t handle_index = handles_.size();
  CKPT_ASSIGN_OR_RETURN(desc->handle, NewHandle(nullptr, desc, at));
  CKPT_ASSIGN_OR_RETURN(uint32_t n, Count("proxy interface count", 2));
  desc->name = "$Proxy(";
  for (uint32_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(std::string iface, in_.ReadUtf());
    if (i > 0) desc->name += ", ";
    desc->name += iface;
    desc->proxy_interfaces.push_back(std::move(iface));
  }
  desc->name += ")";
  CKPT_RETURN_IF_ERROR(ClassDescTail(desc, handle_index, at));
  return desc;
}

Status JavaStreamReader::ClassDescTail(JavaClassDesc* desc, size_t handle_index, uint64_t at) {
  CKPT_RETURN_IF_ERROR(Annotation(&desc->annotations));
  CKPT_ASSIGN_OR_RETURN(desc->super, ClassDesc({"the superclass descriptor of", &desc->name}));
  // References only name complete descriptors, so a chain cannot loop; it can still grow one
  // class per descriptor, and every object walks it.
  int length = 1;
  for (const JavaClassDesc* d = desc->super; d != nullptr; d = d->super) {
    if (++length > limits_.max_depth) {
      return in_.Error(at, "class " + desc->name + ": superclass chain longer than " +
                               std::to_string(limits_.max_depth));
    }
  }
  if (handle_index < handles_.size() && handles_[handle_index].desc == desc) {
    handles_[handle_index].complete = true;
  }
  return Status::OK();
}

}  // namespace ckpt::flink::internal
