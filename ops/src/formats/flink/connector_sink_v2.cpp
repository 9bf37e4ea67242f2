// writeVersionAndSerializeList: i32 version, i32 count, then count length-prefixed elements. The
// nesting is checkpoint (v0: i64 ID; v1: i64 ID, i32 subtasks) -> subtask (v0: requests, i32
// committables, i32 pending, i32 failed; v1: i32 subtask first; v2: no pending count) ->
// request (v0: the committable SimpleVersioned, i32 retries, i32 state ordinal).
#include "formats/flink/connector_sink_v2.h"

namespace ckpt::ops::internal::connector {

using base::Status;

namespace {

constexpr int32_t kCollectorMagic = static_cast<int32_t>(0xb91f252c);

// The elements of a writeVersionAndSerializeList at `in`'s cursor: their version and bytes.
base::Result<std::vector<Versioned>> ReadList(flink::DataInput& in, const char* what) {
  CKPT_ASSIGN_OR_RETURN(int32_t version, in.ReadI32());
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount(what, 4));
  std::vector<Versioned> out;
  for (uint32_t i = 0; i < n; ++i) {
    Versioned v;
    v.version = version;
    v.offset = in.offset() + 4;
    CKPT_ASSIGN_OR_RETURN(v.bytes, in.ReadLengthPrefixed());
    out.push_back(v);
  }
  return out;
}

}  // namespace

base::Result<std::vector<PendingCommittable>> DecodeCommittableCollector(int32_t version,
                                                                         flink::DataInput& in) {
  if (version != 2) return UnsupportedVersion(in, "CommittableCollector", version);
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t magic, in.ReadI32());
  if (magic != kCollectorMagic) return in.Error(at, "CommittableCollector magic number mismatch");
  std::vector<PendingCommittable> out;
  CKPT_ASSIGN_OR_RETURN(std::vector<Versioned> checkpoints, ReadList(in, "checkpoint count"));
  for (const Versioned& cv : checkpoints) {
    if (cv.version < 0 || cv.version > 1) {
      return UnsupportedVersion(in, "checkpoint committables", cv.version);
    }
    flink::DataInput c = Open(in, cv);
    CKPT_ASSIGN_OR_RETURN(int64_t checkpoint_id, c.ReadI64());
    if (cv.version >= 1) CKPT_RETURN_IF_ERROR(c.ReadI32().status());  // number of subtasks
    CKPT_ASSIGN_OR_RETURN(std::vector<Versioned> subtasks, ReadList(c, "subtask count"));
    for (const Versioned& sv : subtasks) {
      if (sv.version < 0 || sv.version > 2) {
        return UnsupportedVersion(c, "subtask committables", sv.version);
      }
      flink::DataInput s = Open(c, sv);
      int32_t subtask = -1;
      if (sv.version >= 1) {
    CKPT_ASSIGN_OR_RETURN(subtask, s.ReadI32());
  }
      CKPT_ASSIGN_OR_RETURN(std::vector<Versioned> requests, ReadList(s, "request count"));
      // committables, (v0/v1: pending), failed
      for (int i = 0; i < (sv.version >= 2 ? 2 : 3); ++i) {
        CKPT_RETURN_IF_ERROR(s.ReadI32().status());
      }
      CKPT_RETURN_IF_ERROR(ExpectEnd(s, "a subtask's committables"));
      for (const Versioned& rv : requests) {
        if (rv.version != 0) return UnsupportedVersion(s, "commit request", rv.version);
        flink::DataInput r = Open(s, rv);
        PendingCommittable p;
        p.checkpoint_id = checkpoint_id;
        p.subtask = subtask;
        CKPT_ASSIGN_OR_RETURN(p.committable, ReadVersioned(r));
        CKPT_RETURN_IF_ERROR(r.ReadI32().status());  // retries
        CKPT_RETURN_IF_ERROR(r.ReadI32().status());  // CommitRequestState ordinal
        CKPT_RETURN_IF_ERROR(ExpectEnd(r, "a commit request"));
        out.push_back(std::move(p));
      }
    }
    CKPT_RETURN_IF_ERROR(ExpectEnd(c, "a checkpoint's committables"));
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a CommittableCollector"));
  return out;
}

}  // namespace ckpt::ops::internal::connector
