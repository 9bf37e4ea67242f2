// ReadKeyedBackendMeta: KeyedBackendSerializationProxy (version 6), StateMetaInfoSnapshot
// (CurrentReaderImpl) and TypeSerializerSnapshotSerializationUtil, read-only.
#include "ckpt/flink/backend_meta.h"

#include "ckpt/flink/data_input.h"
#include "cep_serializers.h"
#include "extra_serializers.h"
#include "meta_resync.h"
#include "old_meta.h"
#include "table_serializers.h"

namespace ckpt::flink {
namespace {

using base::Status;

constexpr int32_t kCompositeMagic = 0x000DE704;  // CompositeTypeSerializerSnapshot.MAGIC_NUMBER
constexpr int32_t kNestedMagic = 0x001457FD;     // NestedSerializersSnapshotDelegate.MAGIC_NUMBER
constexpr int kMaxSerializerDepth = 16;

// Snapshots that write nothing of their own (SimpleTypeSerializerSnapshot and friends).
bool IsEmptySnapshot(const std::string& c) {
  static const char* const kSimple[] = {
      "base.LongSerializer$LongSerializerSnapshot",
      "base.IntSerializer$IntSerializerSnapshot",
      "base.ShortSerializer$ShortSerializerSnapshot",
      "base.ByteSerializer$ByteSerializerSnapshot",
      "base.BooleanSerializer$BooleanSerializerSnapshot",
      "base.DoubleSerializer$DoubleSerializerSnapshot",
      "base.FloatSerializer$FloatSerializerSnapshot",
      "base.CharSerializer$CharSerializerSnapshot",
      "base.StringSerializer$StringSerializerSnapshot",
      "base.VoidSerializer$VoidSerializerSnapshot",
      "base.array.BytePrimitiveArraySerializer$BytePrimitiveArraySerializerSnapshot",
      "base.array.LongPrimitiveArraySerializer$LongPrimitiveArraySerializerSnapshot",
      "base.array.IntPrimitiveArraySerializer$IntPrimitiveArraySerializerSnapshot",
      "base.array.StringArraySerializer$StringArraySerializerSnapshot",
      "base.BigIntSerializer$BigIntSerializerSnapshot",
      "base.BigDecSerializer$BigDecSerializerSnapshot",
      "base.InstantSerializer$InstantSerializerSnapshot",
      "base.SqlTimestampSerializer$SqlTimestampSerializerSnapshot",
      "VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot",
      "TimeWindow$Serializer$TimeWindowSerializerSnapshot",
      "GlobalWindow$Serializer$GlobalWindowSerializerSnapshot",
      "runtime.state.JavaSerializer$JavaSerializerSnapshot",
  };
  for (const char* s : kSimple) {
    if (c.ends_with(s)) return true;
  }
  return false;
}

// Composite snapshots whose outer snapshot is one UTF string (the class) or nothing.
enum class Outer { kNone, kUtf, kUnknown };
Outer CompositeOuter(const std::string& c) {
  if (c.ends_with("TupleSerializerSnapshot") || c.ends_with("CaseClassSerializerSnapshot"))
    return Outer::kUtf;
  if (c.ends_with("ListSerializerSnapshot") || c.ends_with("MapSerializerSnapshot") ||
      c.ends_with("TtlSerializerSnapshot") || c.ends_with("ArrayListSerializerSnapshot") ||
      c.ends_with("TimerSerializerSnapshot") || c.ends_with("EitherSerializerSnapshot") ||
      c.ends_with("NullableSerializerSnapshot") || c.ends_with("RowSerializerSnapshot") ||
      c.ends_with("OptionalSerializerSnapshot") || c.ends_with("ValueWithTsSerializerSnapshot") ||
      c.ends_with("StreamElementSerializer$StreamElementSerializerSnapshot") ||
      internal::IsCepComposite(c)) {
    return Outer::kNone;
  }
  return Outer::kUnknown;
}

constexpr int64_t kOptionalMapHeader = 0x4f2c69a3d70LL;  // LinkedOptionalMapSerializer.HEADER

class MetaReader {
 public:
  explicit MetaReader(DataInput& in, int depth = 0) : in_(in), depth_(depth) {}

  // TypeSerializerSnapshotSerializationUtil.readSerializerSnapshot: proxy version, then the
  // versioned snapshot. `limit` bounds how far an unknown snapshot may be skipped.
  base::Result<SerializerSnapshot> ProxiedSnapshot() {
    const uint64_t at = in_.offset();
    CKPT_ASSIGN_OR_RETURN(int32_t proxy_version, in_.ReadI32());
    if (proxy_version != 2) {
      return in_.Error(at, "serializer snapshot proxy version " + std::to_string(proxy_version) +
                               " is not supported (expected 2)");
    }
    return VersionedSnapshot();
  }

  base::Result<SerializerSnapshot> VersionedSnapshot() {
    if (++depth_ > kMaxSerializerDepth) return in_.Error("serializer snapshots nested too deeply");
    SerializerSnapshot s;
    CKPT_ASSIGN_OR_RETURN(s.class_name, in_.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(s.version, in_.ReadI32());
    if (IsEmptySnapshot(s.class_name)) {
      --depth_;
      return s;
    }
    if (internal::IsTableSnapshot(s.class_name)) {  // before the suffix tests below
      CKPT_RETURN_IF_ERROR(internal::ReadTableSnapshot(
          in_, &s, [this](SerializerSnapshot* o) { return Nested(o); }));
      --depth_;
      return s;
    }
    if (s.class_name.ends_with("runtime.PojoSerializerSnapshot")) {
      CKPT_RETURN_IF_ERROR(Pojo(&s));
      --depth_;
      return s;
    }
    const Outer outer = CompositeOuter(s.class_name);
    if (outer != Outer::kUnknown) {
      const uint64_t at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(int32_t magic, in_.ReadI32());
      if (magic != kCompositeMagic) {
        return in_.Error(at, s.class_name + ": composite serializer snapshot without its magic");
      }
      CKPT_ASSIGN_OR_RETURN(s.outer_version, in_.ReadI32());  // outer snapshot version
      if (!internal::CepOuterVersionKnown(s.class_name, s.outer_version)) {
        s.decoded = false;  // outer bytes of a version this reader does not know: resynchronised
        --depth_;
        return s;
      }
      if (outer == Outer::kUtf) {
        CKPT_ASSIGN_OR_RETURN(s.outer, in_.ReadUtf());
      }
      if (s.class_name.ends_with("RowSerializerSnapshot")) {
        s.row_has_kind = s.outer_version >= 3;
        if (s.outer_version >= 4) {
          CKPT_ASSIGN_OR_RETURN(s.row_has_kind, in_.ReadBool());
        }
      }
      CKPT_RETURN_IF_ERROR(Nested(&s));
      --depth_;
      return s;
    }
    CKPT_ASSIGN_OR_RETURN(const bool extra, internal::ReadExtraSnapshot(in_, &s));  // Kryo, Avro
    if (extra) {
      --depth_;
      return s;
    }
    // Unknown snapshot content: the caller passes this class's bytes (meta_resync.h).
    s.decoded = false;
    --depth_;
    return s;
  }

  // PojoSerializerSnapshotData: utf Pojo class, then three LinkedOptionalMaps (fields, registered
  // subclasses, other subclasses): i64 header, i32 n, n times (utf name, bool + framed key,
  // bool + framed value); a frame is i32 length + bytes; a value is a versioned snapshot. The
  // field key frame holds the declaring class and field name.
  Status Pojo(SerializerSnapshot* s) {
    CKPT_ASSIGN_OR_RETURN(s->outer, in_.ReadUtf());
    for (int map = 0; map < 3; ++map) {
      const uint64_t at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(int64_t header, in_.ReadI64());
      if (header != kOptionalMapHeader) {
        return in_.Error(at, s->class_name + " of " + s->outer + ": optional map without its header");
      }
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("Pojo snapshot map size", 4));
      for (uint32_t i = 0; i < n; ++i) {
        CKPT_ASSIGN_OR_RETURN(std::string name, in_.ReadUtf());
        CKPT_ASSIGN_OR_RETURN(bool has_key, in_.ReadBool());
        if (has_key) CKPT_RETURN_IF_ERROR(in_.ReadLengthPrefixed().status());
        CKPT_ASSIGN_OR_RETURN(bool has_value, in_.ReadBool());
        SerializerSnapshot field;
        field.decoded = false;
        if (has_value) {
          const uint64_t frame_at = in_.offset() + 4;
          CKPT_ASSIGN_OR_RETURN(std::string_view frame, in_.ReadLengthPrefixed());
          if (map == 0) {
            DataInput fin(frame, in_.file(), frame_at);
            MetaReader fr(fin, depth_);
            CKPT_ASSIGN_OR_RETURN(field, fr.VersionedSnapshot());
          }
        } else if (map == 0) {
          field.class_name = "(missing: the field's class is gone)";
        }
        if (map == 0) {
          // Each field's snapshot has its own frame: an unknown one leaves this snapshot's bytes
          // fully read (decoded stays true); CanDecode still refuses the Pojo through it.
          s->field_names.push_back(std::move(name));
          s->nested.push_back(std::move(field));
        } else {
          ++s->pojo_subclasses;
        }
      }
    }
    return Status::OK();
  }

  Status Nested(SerializerSnapshot* s) {
    const uint64_t at = in_.offset();
    CKPT_ASSIGN_OR_RETURN(int32_t magic, in_.ReadI32());
    if (magic != kNestedMagic) return in_.Error(at, s->class_name + ": nested serializer snapshots without their magic");
    CKPT_RETURN_IF_ERROR(in_.ReadI32().status());  // delegate version
    CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("nested serializer count", 6));
    for (uint32_t i = 0; i < n; ++i) {
      CKPT_ASSIGN_OR_RETURN(SerializerSnapshot child, VersionedSnapshot());
      const bool ok = child.decoded;
      s->nested.push_back(std::move(child));
      if (!ok) {
        s->decoded = false;
        return Status::OK();
      }
    }
    return Status::OK();
  }

 private:
  DataInput& in_;
  int depth_ = 0;
};

base::Result<StateMetaInfo> ReadOneState(DataInput& in, MetaReader& r, std::string_view bytes,
                                         uint64_t base_offset, internal::SnapshotFollow follow);

// An i16-counted list of states; `list_follows`: another such list comes after it.
Status ReadStateList(DataInput& in, MetaReader& r, std::string_view bytes, uint64_t base_offset,
                     bool list_follows, std::vector<StateMetaInfo>* states) {
  const uint64_t n_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int16_t n, in.ReadI16());
  if (n < 0) return in.Error(n_at, "negative state count " + std::to_string(n));
  for (int16_t i = 0; i < n; ++i) {
    internal::SnapshotFollow follow;
    follow.states_left = n - 1 - i;
    follow.list_follows = list_follows;
    CKPT_ASSIGN_OR_RETURN(StateMetaInfo st, ReadOneState(in, r, bytes, base_offset, follow));
    states->push_back(std::move(st));
  }
  return Status::OK();
}

// Passes the bytes of a serializer snapshot this reader does not understand (meta_resync.h):
// Unimplemented naming its class and state where nothing bounds them.
Status SkipUnknownSnapshot(DataInput& in, std::string_view bytes, uint64_t base_offset,
                           const internal::SnapshotFollow& follow, const std::string& class_name,
                           const std::string& owner) {
  const size_t here = static_cast<size_t>(in.offset() - base_offset);
  const size_t next = internal::FindSnapshotEnd(bytes, here, follow);
  if (next == std::string_view::npos) {
    return Status::Unimplemented(in.file() + ": at byte " + std::to_string(in.offset()) +
                                 ": serializer snapshot " + class_name + " of " + owner +
                                 " is not understood and nothing after it bounds its bytes; "
                                 "later states cannot be listed");
  }
  return in.Skip(next - here);
}

// One StateMetaInfoSnapshot (the current writer's layout): name, backend type, options,
// serializer snapshots. `bytes` (starting at file offset `base_offset`) bounds the skip of a
// serializer snapshot this reader does not understand; `follow` says what comes after the state.
base::Result<StateMetaInfo> ReadOneState(DataInput& in, MetaReader& r, std::string_view bytes,
                                         uint64_t base_offset, internal::SnapshotFollow follow) {
  StateMetaInfo st;
  CKPT_RETURN_IF_ERROR(internal::ReadStateHead(in, &st));
  CKPT_ASSIGN_OR_RETURN(uint32_t n_ser, in.ReadCount("serializer count", 6));
  for (uint32_t j = 0; j < n_ser; ++j) {
    CKPT_ASSIGN_OR_RETURN(std::string k, in.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(SerializerSnapshot s, r.ProxiedSnapshot());
    const bool decoded = s.decoded;
    st.serializers.emplace_back(std::move(k), std::move(s));
    if (decoded) continue;
    follow.keys_left.clear();
    if (j + 1 < n_ser) {
      for (const auto& key : internal::SerializerKeys()) {
        if (st.Serializer(key) == nullptr) follow.keys_left.push_back(key);
      }
    }
    CKPT_RETURN_IF_ERROR(SkipUnknownSnapshot(in, bytes, base_offset, follow,
                                             st.serializers.back().second.class_name,
                                             "state '" + st.name + "'"));
  }
  return st;
}

}  // namespace

std::string SerializerSnapshot::DisplayName() const {
  if (internal::IsTableSerializer(*this)) return internal::TableDisplayName(*this);
  std::string n = class_name;
  const size_t dot = n.find_last_of('.');
  if (dot != std::string::npos) n = n.substr(dot + 1);
  const size_t dollar = n.find('$');
  if (dollar != std::string::npos) n = n.substr(0, dollar);
  if (!outer.empty()) {
    std::string o = outer.substr(outer.find_last_of('.') + 1);
    n += "(" + o + ")";
  }
  if (!nested.empty()) {
    n += "<";
    for (size_t i = 0; i < nested.size(); ++i) n += (i ? ", " : "") + nested[i].DisplayName();
    n += ">";
  }
  return n;
}

std::string StateMetaInfo::Option(const std::string& key) const {
  for (const auto& [k, v] : options) {
    if (k == key) return v;
  }
  return "";
}

const SerializerSnapshot* StateMetaInfo::Serializer(const std::string& key) const {
  for (const auto& [k, v] : serializers) {
    if (k == key) return &v;
  }
  return nullptr;
}

base::Result<StateMetaInfo> ReadStateMetaInfo(DataInput& in, std::string_view bytes,
                                              uint64_t base_offset) {
  MetaReader r(in);
  internal::SnapshotFollow follow;
  follow.end_bounded = false;  // a changelog METADATA change goes on after the state
  return ReadOneState(in, r, bytes, base_offset, follow);
}

base::Result<KeyedBackendMeta> ReadKeyedBackendMeta(std::string_view bytes, const std::string& file,
                                                    uint64_t base_offset) {
  DataInput in(bytes, file, base_offset);
  KeyedBackendMeta meta;
  CKPT_ASSIGN_OR_RETURN(meta.version, in.ReadI32());
  if (meta.version >= 3 && meta.version < 6) {  // Flink 1.4-1.6: old_meta.h
    CKPT_RETURN_IF_ERROR(internal::ReadLegacyKeyedBackendMeta(in, meta.version, &meta));
    meta.size_bytes = in.offset() - base_offset;
    return meta;
  }
  if (meta.version < 6) {
    return Status::Unimplemented(file + ": at byte " + std::to_string(base_offset) +
                                 ": keyed backend meta information version " +
                                 std::to_string(meta.version) +
                                 " (Flink before 1.4) is not decoded");
  }
  if (meta.version > 6) {
    return in.Error(base_offset, "unknown keyed backend meta information version " +
                                     std::to_string(meta.version));
  }
  CKPT_ASSIGN_OR_RETURN(meta.compressed, in.ReadBool());
  MetaReader r(in);
  CKPT_ASSIGN_OR_RETURN(meta.key_serializer, r.ProxiedSnapshot());
  if (!meta.key_serializer.decoded) {
    internal::SnapshotFollow follow;
    follow.list_follows = true;  // the states' i16 count, then the first state's header
    CKPT_RETURN_IF_ERROR(SkipUnknownSnapshot(in, bytes, base_offset, follow,
                                             meta.key_serializer.class_name, "the key"));
  }
  CKPT_RETURN_IF_ERROR(ReadStateList(in, r, bytes, base_offset, false, &meta.states));
  meta.size_bytes = in.offset() - base_offset;
  return meta;
}

}  // namespace ckpt::flink

namespace ckpt::flink {

base::Result<OperatorBackendMeta> ReadOperatorBackendMeta(std::string_view bytes,
                                                          const std::string& file) {
  DataInput in(bytes, file, 0);
  OperatorBackendMeta meta;
  CKPT_ASSIGN_OR_RETURN(meta.version, in.ReadI32());
  if (meta.version == 3 || meta.version == 4) {  // Flink 1.5, 1.6: old_meta.h
    CKPT_RETURN_IF_ERROR(internal::ReadLegacyOperatorBackendMeta(in, meta.version, &meta));
    meta.size_bytes = in.offset();
    return meta;
  }
  if (meta.version < 5 || meta.version > 6) {
    return Status::Unimplemented(file + ": at byte 0: operator backend meta information version " +
                                 std::to_string(meta.version) + " is not decoded");
  }
  if (meta.version >= 6) {
    CKPT_ASSIGN_OR_RETURN(meta.compressed, in.ReadBool());
  }
  MetaReader r(in);
  CKPT_RETURN_IF_ERROR(ReadStateList(in, r, bytes, 0, true, &meta.states));
  CKPT_RETURN_IF_ERROR(ReadStateList(in, r, bytes, 0, false, &meta.broadcast_states));
  meta.size_bytes = in.offset();
  return meta;
}

}  // namespace ckpt::flink

namespace ckpt::flink {

std::string_view StreamMetaBytes(std::string_view stream, const std::vector<int64_t>& offsets) {
  uint64_t end = stream.size();
  for (int64_t off : offsets) {
    if (off > 0 && static_cast<uint64_t>(off) < end) end = static_cast<uint64_t>(off);
  }
  return stream.substr(0, static_cast<size_t>(end));
}

}  // namespace ckpt::flink
