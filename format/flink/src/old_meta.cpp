// Flink 1.4-1.6 keyed backend meta information (see old_meta.h). Grammar:
//
//   proxy      := i32 version (3, 4, 5) [bool compressed, from version 4] resilient(1: the key)
//                 i16 n state{n}
//   state (v5) := UTF name, i32 backend type, i32 n options (UTF key, UTF value){n},
//                 i32 m, UTF serializer key{m}, resilient(m)
//   state (v3, v4) := i32 StateDescriptor.Type ordinal (UNKNOWN VALUE LIST REDUCING FOLDING
//                 AGGREGATING MAP), UTF name, resilient(2: namespace, value)
//   resilient(n) (TypeSerializerSerializationUtil.writeSerializersAndConfigsWithResilience) :=
//                 i32 n, (i32 serializer offset, i32 config offset){n}, i32 total, u8[total]
//     where, at the offsets within the u8[total] buffer:
//       serializer := i32 proxy version 1, i32 length, a Java serialization stream of the
//                     TypeSerializer object
//       config     := i32 proxy version 1, UTF config snapshot class, i32 its version, its bytes
//     each running to the next offset (or the buffer's end).
//
// The offsets frame every serializer and config snapshot: an unknown one never hides the rest.
// The serializer object (decoded with the Java serialization reader) names the serializer and its
// nested serializers; it is mapped to the snapshot class a Flink 1.8+ snapshot would name, so
// values decode as for current snapshots.
#include "old_meta.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ckpt/flink/java_serialization.h"

namespace ckpt::flink::internal {
namespace {

using base::Status;

constexpr int kMaxDepth = 16;

const char* const kStateDescriptorTypes[] = {"UNKNOWN", "VALUE",   "LIST", "REDUCING",
                                             "FOLDING", "AGGREGATING", "MAP"};

// The class named by a java.lang.Class field value.
std::string ClassOf(const JavaValue* v) {
  if (v == nullptr || v->kind != JavaValue::Kind::kClass || v->class_desc == nullptr) return "";
  return v->class_desc->name;
}

std::vector<const JavaValue*> Elements(const JavaValue* v) {
  if (v == nullptr || v->kind != JavaValue::Kind::kArray) return {};
  return v->elements;
}

// A TypeSerializer object as the snapshot a Flink 1.8+ checkpoint would hold for it.
SerializerSnapshot FromSerializerObject(const JavaValue* v, int depth) {
  SerializerSnapshot s;
  if (v == nullptr || v->kind != JavaValue::Kind::kObject || depth > kMaxDepth) {
    s.class_name = v == nullptr ? "(no serializer)" : v->class_name();
    s.decoded = false;
    return s;
  }
  const std::string& c = v->class_name();
  const std::string simple = c.substr(c.find_last_of('.') + 1);
  static const char* const kSameNamed[] = {
      "org.apache.flink.api.common.typeutils.base.LongSerializer",
      "org.apache.flink.api.common.typeutils.base.IntSerializer",
      "org.apache.flink.api.common.typeutils.base.ShortSerializer",
      "org.apache.flink.api.common.typeutils.base.ByteSerializer",
      "org.apache.flink.api.common.typeutils.base.BooleanSerializer",
      "org.apache.flink.api.common.typeutils.base.DoubleSerializer",
      "org.apache.flink.api.common.typeutils.base.FloatSerializer",
      "org.apache.flink.api.common.typeutils.base.CharSerializer",
      "org.apache.flink.api.common.typeutils.base.StringSerializer",
      "org.apache.flink.api.common.typeutils.base.VoidSerializer",
      "org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer",
      "org.apache.flink.runtime.state.VoidNamespaceSerializer",
      "org.apache.flink.runtime.state.JavaSerializer",
  };
  for (const char* name : kSameNamed) {
    if (c == name) {
      s.class_name = c + "$" + simple + "Snapshot";
      return s;
    }
  }
  auto nest = [&](const JavaValue* child) { s.nested.push_back(FromSerializerObject(child, depth + 1)); };
  if (c == "org.apache.flink.streaming.api.windowing.windows.TimeWindow$Serializer") {
    s.class_name = c + "$TimeWindowSerializerSnapshot";
  } else if (c == "org.apache.flink.api.java.typeutils.runtime.TupleSerializer") {
    s.class_name = "org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot";
    s.outer = ClassOf(v->Field("tupleClass"));
    for (const JavaValue* f : Elements(v->Field("fieldSerializers"))) nest(f);
  } else if (c == "org.apache.flink.api.common.typeutils.base.ListSerializer") {
    s.class_name = "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot";
    nest(v->Field("elementSerializer"));
  } else if (c == "org.apache.flink.api.common.typeutils.base.MapSerializer") {
    s.class_name = "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot";
    nest(v->Field("keySerializer"));
    nest(v->Field("valueSerializer"));
  } else if (c == "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializer") {
    s.class_name = "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot";
    for (const JavaValue* f : Elements(v->Field("fieldSerializers"))) nest(f);
  } else if (c == "org.apache.flink.streaming.runtime.streamrecord.StreamElementSerializer") {
    s.class_name = c + "$StreamElementSerializerSnapshot";
    nest(v->Field("typeSerializer"));
  } else if (c.ends_with("runtime.kryo.KryoSerializer")) {
    s.class_name = c;
    s.outer = ClassOf(v->Field("type"));
    s.decoded = false;
  } else {
    s.class_name = c;  // a user's own serializer, Pojo, Avro ...: kept by name
    s.decoded = false;
  }
  return s;
}

struct Resilient {
  std::vector<SerializerSnapshot> snapshots;
};

// One config snapshot's head within its frame: proxy version, class, version.
Status ReadConfigHead(std::string_view frame, const std::string& file, uint64_t at, std::string* cls,
                      int32_t* version) {
  DataInput in(frame, file, at);
  const uint64_t v_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t proxy, in.ReadI32());
  if (proxy != 1) {
    return in.Error(v_at, "serializer config snapshot proxy version " + std::to_string(proxy) + " (expected 1)");
  }
  CKPT_ASSIGN_OR_RETURN(*cls, in.ReadUtf());
  CKPT_ASSIGN_OR_RETURN(*version, in.ReadI32());
  return Status::OK();
}

// resilient(n) at `in`'s cursor; `expected` (if >= 0) is how many pairs the caller needs.
Status ReadResilient(DataInput& in, int expected, Resilient* out) {
  const uint64_t n_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t n, in.ReadI32());
  if (n < 0 || n > 64 || (expected >= 0 && n != expected)) {
    return in.Error(n_at, "serializer and config snapshot count " + std::to_string(n) +
                              (expected >= 0 ? " (expected " + std::to_string(expected) + ")" : ""));
  }
  std::vector<int32_t> offsets(static_cast<size_t>(n) * 2);
  const uint64_t table_at = in.offset();
  for (auto& o : offsets) {
    CKPT_ASSIGN_OR_RETURN(o, in.ReadI32());
  }
  const uint64_t total_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t total, in.ReadI32());
  if (total < 0 || static_cast<uint64_t>(total) > in.remaining()) {
    return in.Error(total_at, "serializer buffer of " + std::to_string(total) + " bytes exceeds the " +
                                  std::to_string(in.remaining()) + " bytes left");
  }
  const uint64_t buf_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(std::string_view buf, in.ReadBytes(static_cast<uint64_t>(total)));
  for (size_t i = 0; i < offsets.size(); ++i) {
    const int32_t lo = i == 0 ? 0 : offsets[i - 1];
    if (offsets[i] < lo || offsets[i] > total) {
      return in.Error(table_at + 4 * i, "serializer buffer offset " + std::to_string(offsets[i]) +
                                            " outside [" + std::to_string(lo) + ", " + std::to_string(total) + "]");
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    const size_t ser = static_cast<size_t>(offsets[2 * static_cast<size_t>(i)]);
    const size_t cfg = static_cast<size_t>(offsets[2 * static_cast<size_t>(i) + 1]);
    const size_t end = i + 1 < n ? static_cast<size_t>(offsets[2 * static_cast<size_t>(i) + 2])
                                 : static_cast<size_t>(total);
    std::string cfg_class;
    int32_t cfg_version = 0;
    CKPT_RETURN_IF_ERROR(ReadConfigHead(buf.substr(cfg, end - cfg), in.file(), buf_at + cfg, &cfg_class, &cfg_version));
    // The serializer: proxy version, length, Java serialization stream.
    DataInput sin(buf.substr(ser, cfg - ser), in.file(), buf_at + ser);
    const uint64_t sv_at = sin.offset();
    CKPT_ASSIGN_OR_RETURN(int32_t proxy, sin.ReadI32());
    if (proxy != 1) return sin.Error(sv_at, "serializer proxy version " + std::to_string(proxy) + " (expected 1)");
    const uint64_t java_at = sin.offset() + 4;
    CKPT_ASSIGN_OR_RETURN(std::string_view java, sin.ReadLengthPrefixed());
    SerializerSnapshot s;
    auto stream = ReadJavaStream(java, in.file(), java_at);
    if (stream.ok() && stream->root() != nullptr) {
      s = FromSerializerObject(stream->root(), 0);
    } else {
      s.class_name = cfg_class;  // the serializer object is not readable: its config names it
      s.decoded = false;
    }
    s.version = cfg_version;
    out->snapshots.push_back(std::move(s));
  }
  return Status::OK();
}

base::Result<StateMetaInfo> ReadV5State(DataInput& in) {
  StateMetaInfo st;
  CKPT_RETURN_IF_ERROR(ReadStateHead(in, &st));
  CKPT_ASSIGN_OR_RETURN(uint32_t n_ser, in.ReadCount("serializer count", 2));
  std::vector<std::string> keys;
  for (uint32_t j = 0; j < n_ser; ++j) {
    CKPT_ASSIGN_OR_RETURN(std::string k, in.ReadUtf());
    keys.push_back(std::move(k));
  }
  Resilient r;
  CKPT_RETURN_IF_ERROR(ReadResilient(in, static_cast<int>(n_ser), &r));
  for (size_t j = 0; j < keys.size(); ++j) st.serializers.emplace_back(keys[j], std::move(r.snapshots[j]));
  return st;
}

base::Result<StateMetaInfo> ReadV3V4State(DataInput& in) {
  StateMetaInfo st;
  const uint64_t t_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t type, in.ReadI32());
  if (type < 0 || type > 6) return in.Error(t_at, "unknown state descriptor type " + std::to_string(type));
  CKPT_ASSIGN_OR_RETURN(st.name, in.ReadUtf());
  st.options.emplace_back("KEYED_STATE_TYPE", kStateDescriptorTypes[type]);
  Resilient r;
  CKPT_RETURN_IF_ERROR(ReadResilient(in, 2, &r));
  st.serializers.emplace_back("NAMESPACE_SERIALIZER", std::move(r.snapshots[0]));
  st.serializers.emplace_back("VALUE_SERIALIZER", std::move(r.snapshots[1]));
  return st;
}

// OperatorBackendStateMetaInfoReaderV2V3: utf name, u8 OperatorStateHandle.Mode, resilient(1:
// value) for list states or resilient(2: key, value) for broadcast state.
base::Result<StateMetaInfo> ReadV3OperatorState(DataInput& in) {
  static const char* const kModes[] = {"SPLIT_DISTRIBUTE", "UNION", "BROADCAST"};
  StateMetaInfo st;
  CKPT_ASSIGN_OR_RETURN(st.name, in.ReadUtf());
  const uint64_t m_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t mode, in.ReadU8());
  if (mode > 2) return in.Error(m_at, "unknown operator state mode " + std::to_string(mode));
  st.options.emplace_back("OPERATOR_STATE_DISTRIBUTION_MODE", kModes[mode]);
  const uint64_t n_at = in.offset();
  Resilient r;
  CKPT_RETURN_IF_ERROR(ReadResilient(in, -1, &r));
  if (r.snapshots.size() == 1) {
    st.backend_type = StateMetaInfo::BackendType::kOperator;
    st.serializers.emplace_back("VALUE_SERIALIZER", std::move(r.snapshots[0]));
  } else if (r.snapshots.size() == 2) {
    st.backend_type = StateMetaInfo::BackendType::kBroadcast;
    st.serializers.emplace_back("KEY_SERIALIZER", std::move(r.snapshots[0]));
    st.serializers.emplace_back("VALUE_SERIALIZER", std::move(r.snapshots[1]));
  } else {
    return in.Error(n_at, "operator state '" + st.name + "' with " + std::to_string(r.snapshots.size()) +
                              " serializers (1 or 2)");
  }
  return st;
}

}  // namespace

Status ReadLegacyKeyedBackendMeta(DataInput& in, int32_t version, KeyedBackendMeta* meta) {
  if (version >= 4) {
    CKPT_ASSIGN_OR_RETURN(meta->compressed, in.ReadBool());
  }
  Resilient key;
  CKPT_RETURN_IF_ERROR(ReadResilient(in, 1, &key));
  meta->key_serializer = std::move(key.snapshots[0]);
  const uint64_t n_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int16_t n, in.ReadI16());
  if (n < 0) return in.Error(n_at, "negative state count " + std::to_string(n));
  for (int16_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(StateMetaInfo st, version >= 5 ? ReadV5State(in) : ReadV3V4State(in));
    meta->states.push_back(std::move(st));
  }
  return Status::OK();
}

Status ReadLegacyOperatorBackendMeta(DataInput& in, int32_t version, OperatorBackendMeta* meta) {
  for (auto* list : {&meta->states, &meta->broadcast_states}) {
    const uint64_t n_at = in.offset();
    CKPT_ASSIGN_OR_RETURN(int16_t n, in.ReadI16());
    if (n < 0) return in.Error(n_at, "negative state count " + std::to_string(n));
    for (int16_t i = 0; i < n; ++i) {
      CKPT_ASSIGN_OR_RETURN(StateMetaInfo st, version >= 4 ? ReadV5State(in) : ReadV3OperatorState(in));
      list->push_back(std::move(st));
    }
  }
  return Status::OK();
}

base::Status ReadStateHead(DataInput& in, StateMetaInfo* out) {
  StateMetaInfo& st = *out;
  CKPT_ASSIGN_OR_RETURN(st.name, in.ReadUtf());
  const uint64_t t_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t type, in.ReadI32());
  if (type < 0 || type > 3) return in.Error(t_at, "unknown backend state type " + std::to_string(type));
  st.backend_type = static_cast<StateMetaInfo::BackendType>(type);
  CKPT_ASSIGN_OR_RETURN(uint32_t n_opt, in.ReadCount("option count", 4));
  for (uint32_t j = 0; j < n_opt; ++j) {
    CKPT_ASSIGN_OR_RETURN(std::string k, in.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(std::string v, in.ReadUtf());
    st.options.emplace_back(std::move(k), std::move(v));
  }
  return base::Status::OK();
}

}  // namespace ckpt::flink::internal
