// JavaStreamReader: newObject (class data of each serializable class, top-most first, then what
// writeObject or writeExternal wrote), newArray, newEnum and newClass.
#include <algorithm>

#include "java_serialization_reader.h"

namespace ckpt::flink::internal {

using base::Status;

namespace {

// Bytes one element of a primitive array of `type_code` takes; 0 if it is not one.
uint32_t JavaPrimitiveSize(char type_code) {
  switch (type_code) {
    case 'B':
    case 'Z':
      return 1;
    case 'C':
    case 'S':
      return 2;
    case 'I':
    case 'F':
      return 4;
    case 'J':
    case 'D':
      return 8;
    default:
      return 0;
  }
}

}  // namespace

base::Result<JavaValue*> JavaStreamReader::NewObject(uint64_t at) {
  CKPT_ASSIGN_OR_RETURN(JavaClassDesc * desc, ClassDesc({"the class descriptor of a TC_OBJECT"}));
  if (desc == nullptr) return in_.Error(at, "TC_OBJECT with a null class descriptor");
  CKPT_ASSIGN_OR_RETURN(JavaValue * obj, NewValue(JavaValue::Kind::kObject, at));
  obj->class_desc = desc;
  CKPT_ASSIGN_OR_RETURN(obj->handle, NewHandle(obj, nullptr, at));
  NoteTopLevel(obj);
  if (desc->has_flag(kJavaScExternalizable)) {
    if (!desc->has_flag(kJavaScBlockData)) {
      return Status::Unimplemented(
          in_.Error(in_.offset(), "class " + desc->name +
                                      " is externalizable and was written with stream protocol "
                                      "version 1 (no SC_BLOCK_DATA): only the class itself can "
                                      "tell where its data ends")
              .message());
    }
    CKPT_RETURN_IF_ERROR(Charge(at));
    obj->class_data.emplace_back();
    obj->class_data.back().desc = desc;
    obj->class_data.back().has_annotations = true;
    CKPT_RETURN_IF_ERROR(Annotation(&obj->class_data.back().annotations));
    return obj;
  }
  // Chains are at most limits_.max_depth long (ClassDescTail).
  std::vector<const JavaClassDesc*> chain;
  for (const JavaClassDesc* d = desc; d != nullptr; d = d->super) chain.push_back(d);
  std::reverse(chain.begin(), chain.end());
  for (const JavaClassDesc* d : chain) {
    if (d->has_flag(kJavaScSerializable)) CKPT_RETURN_IF_ERROR(ClassDataOf(obj, d, at));
  }
  return obj;
}

Status JavaStreamReader::ClassDataOf(JavaValue* obj, const JavaClassDesc* desc, uint64_t at) {
  CKPT_RETURN_IF_ERROR(Charge(at));
  obj->class_data.emplace_back();
  const size_t index = obj->class_data.size() - 1;
  obj->class_data[index].desc = desc;
  // Only this frame appends to obj->class_data, so `index` stays valid while fields are read.
  for (const JavaFieldDesc& f : desc->fields) {
    JavaValue* v = nullptr;
    if (f.is_primitive()) {
      CKPT_ASSIGN_OR_RETURN(v, PrimitiveValue(f.type_code));
    } else {
      CKPT_ASSIGN_OR_RETURN(v, ObjectValue({"the value of field", &f.name, &desc->name}));
    }
    obj->class_data[index].fields.emplace_back(f.name, v);
  }
  if (desc->has_flag(kJavaScWriteMethod)) {
    obj->class_data[index].has_annotations = true;
    CKPT_RETURN_IF_ERROR(Annotation(&obj->class_data[index].annotations));
  }
  return Status::OK();
}

base::Result<JavaValue*> JavaStreamReader::PrimitiveValue(char type_code) {
  CKPT_ASSIGN_OR_RETURN(JavaValue * v, NewValue(JavaValue::Kind::kPrimitive, in_.offset()));
  v->type_code = type_code;
  switch (type_code) {
    case 'B': {
      CKPT_ASSIGN_OR_RETURN(int8_t x, in_.ReadI8());
      v->integer = x;
      break;
    }
    case 'Z': {
      CKPT_ASSIGN_OR_RETURN(bool x, in_.ReadBool());
      v->integer = x ? 1 : 0;
      break;
    }
    case 'C': {
      CKPT_ASSIGN_OR_RETURN(uint16_t x, in_.ReadU16());
      v->integer = x;
      break;
    }
    case 'S': {
      CKPT_ASSIGN_OR_RETURN(int16_t x, in_.ReadI16());
      v->integer = x;
      break;
    }
    case 'I': {
      CKPT_ASSIGN_OR_RETURN(int32_t x, in_.ReadI32());
      v->integer = x;
      break;
    }
    case 'J': {
      CKPT_ASSIGN_OR_RETURN(int64_t x, in_.ReadI64());
      v->integer = x;
      break;
    }
    case 'F': {
      CKPT_ASSIGN_OR_RETURN(float x, in_.ReadF32());
      v->real = x;
      break;
    }
    case 'D': {
      CKPT_ASSIGN_OR_RETURN(double x, in_.ReadF64());
      v->real = x;
      break;
    }
    default:
      return in_.Error("primitive type code " + JavaHex(static_cast<uint8_t>(type_code)) +
                       ", expected one of B C D F I J S Z");
  }
  return v;
}

Status JavaStreamReader::PrimitiveArray(JavaValue* array, char type_code, uint32_t n) {
  if (type_code == 'B') {
    CKPT_ASSIGN_OR_RETURN(std::string_view bytes, in_.ReadBytes(n));
    array->text.assign(bytes);
    return Status::OK();
  }
  const bool real = type_code == 'F' || type_code == 'D';
  if (real) {
    array->reals.reserve(n);
  } else {
    array->integers.reserve(n);
  }
  for (uint32_t i = 0; i < n; ++i) {
    switch (type_code) {
      case 'Z': {
        CKPT_ASSIGN_OR_RETURN(bool x, in_.ReadBool());
        array->integers.push_back(x);
        break;
      }
      case 'C': {
        CKPT_ASSIGN_OR_RETURN(uint16_t x, in_.ReadU16());
        array->integers.push_back(x);
        break;
      }
      case 'S': {
        CKPT_ASSIGN_OR_RETURN(int16_t x, in_.ReadI16());
        array->integers.push_back(x);
        break;
      }
      case 'I': {
        CKPT_ASSIGN_OR_RETURN(int32_t x, in_.ReadI32());
        array->integers.push_back(x);
        break;
      }
      case 'J': {
        CKPT_ASSIGN_OR_RETURN(int64_t x, in_.ReadI64());
        array->integers.push_back(x);
        break;
      }
      case 'F': {
        CKPT_ASSIGN_OR_RETURN(float x, in_.ReadF32());
        array->reals.push_back(x);
        break;
      }
      case 'D': {
        CKPT_ASSIGN_OR_RETURN(double x, in_.ReadF64());
        array->reals.push_back(x);
        break;
      }
      default:
        return in_.Error("array element type code " + JavaHex(static_cast<uint8_t>(type_code)));
    }
  }
  return Status::OK();
}

base::Result<JavaValue*> JavaStreamReader::NewArray(uint64_t at) {
  CKPT_ASSIGN_OR_RETURN(JavaClassDesc * desc, ClassDesc({"the class descriptor of a TC_ARRAY"}));
  if (desc == nullptr) return in_.Error(at, "TC_ARRAY with a null class descriptor");
  const std::string& name = desc->name;
  const char elem = name.size() >= 2 && name[0] == '[' ? name[1] : '\0';
  const uint32_t elem_size = JavaPrimitiveSize(elem);
  const bool refs =
      (elem == '[' && name.size() >= 3) || (elem == 'L' && name.size() >= 4 && name.back() == ';');
  if (!refs && (elem_size == 0 || name.size() != 2)) {
    return in_.Error(at, "TC_ARRAY of class \"" + name +
                             "\", expected an array class ([I, [Ljava.lang.String;, [[B ...)");
  }
  CKPT_ASSIGN_OR_RETURN(JavaValue * array, NewValue(JavaValue::Kind::kArray, at));
  array->class_desc = desc;
  array->type_code = elem;
  CKPT_ASSIGN_OR_RETURN(array->handle, NewHandle(array, nullptr, at));
  NoteTopLevel(array);
  // An element takes at least one byte (TC_NULL), a primitive its size.
  CKPT_ASSIGN_OR_RETURN(uint32_t n, Count("array length", refs ? 1 : elem_size));
  if (!refs) {
    CKPT_RETURN_IF_ERROR(PrimitiveArray(array, elem, n));
    return array;
  }
  for (uint32_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(JavaValue * e, ObjectValue({"an element of", &name}));
    array->elements.push_back(e);
  }
  return array;
}

base::Result<JavaValue*> JavaStreamReader::NewEnum(uint64_t at) {
  CKPT_ASSIGN_OR_RETURN(JavaClassDesc * desc, ClassDesc({"the class descriptor of a TC_ENUM"}));
  if (desc == nullptr) return in_.Error(at, "TC_ENUM with a null class descriptor");
  if (!desc->has_flag(kJavaScEnum)) {
    return in_.Error(at, "TC_ENUM of class " + desc->name + ", whose descriptor lacks SC_ENUM");
  }
  CKPT_ASSIGN_OR_RETURN(JavaValue * v, NewValue(JavaValue::Kind::kEnum, at));
  v->class_desc = desc;
  CKPT_ASSIGN_OR_RETURN(v->handle, NewHandle(v, nullptr, at));
  NoteTopLevel(v);
  CKPT_ASSIGN_OR_RETURN(JavaValue * name, StringValue({"the constant name of enum", &desc->name}));
  v->text = name->text;
  return v;
}

base::Result<JavaValue*> JavaStreamReader::NewClass(uint64_t at) {
  CKPT_ASSIGN_OR_RETURN(JavaClassDesc * desc, ClassDesc({"the class descriptor of a TC_CLASS"}));
  if (desc == nullptr) return in_.Error(at, "TC_CLASS with a null class descriptor");
  CKPT_ASSIGN_OR_RETURN(JavaValue * v, NewValue(JavaValue::Kind::kClass, at));
  v->class_desc = desc;
  CKPT_ASSIGN_OR_RETURN(v->handle, NewHandle(v, nullptr, at));
  return v;
}

}  // namespace ckpt::flink::internal
