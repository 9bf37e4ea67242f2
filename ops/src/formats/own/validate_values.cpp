// validate --deep: the declared type descriptors of every state and coordinator state against
// values.md's well-formedness rules (ValidateType: nesting at most 32, no list or map of
// zero-width elements, element counts, known kinds), and each coordinator state's value decoded
// with its declared type. Bytes from disk never reach an assertion: everything is a finding.
#include "ckpt/base/fs.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/value_codec.h"
#include "model/snapshot_raw.h"
#include "formats/own/validate_groups.h"

namespace ckpt::ops::internal {
namespace {

// A COORDINATOR_STATE file is decoded only up to this size; larger ones are left to the
// whole-file checksum (their value would not fit a coordinator's memory anyway).
constexpr uint64_t kMaxCoordinatorFileBytes = uint64_t{64} << 20;

Location LocationOf(const Snapshot& s, const pb::OperatorState& os) {
  const std::string hex =
      format::OperatorId::FromBytes(os.operator_id()).ValueOr(format::OperatorId()).ToHex();
  for (const auto& op : s.operators) {
    if (op.id_hex == hex) return OperatorLocation(op);
  }
  Location l;
  l.operator_id = hex;
  return l;
}

bool Declared(const pb::TypeDescriptor& t) {
  return t.kind() != pb::TypeDescriptor::KIND_UNSPECIFIED || t.elements_size() > 0;
}

// D004 for an ill-formed declared type; true if the type is usable.
bool CheckType(ValidateContext& ctx, const Location& loc, const std::string& what,
               const pb::TypeDescriptor& type) {
  base::Status st = format::ValidateType(type);
  if (st.ok()) return true;
  ctx.Add("CKPT-D004", loc, what + ": " + st.message());
  return false;
}

void CheckCoordinator(ValidateContext& ctx, const Snapshot& s, const pb::OperatorState& os,
                      const Location& loc) {
  const pb::CoordinatorState& cs = os.coordinator_state();
  if (!cs.has_type() || !Declared(cs.type())) return;  // undeclared: opaque bytes
  if (!CheckType(ctx, loc, "coordinator state type", cs.type())) return;
  std::string file_bytes;
  std::string_view bytes;
  std::string where = "coordinator state (inline)";
  if (cs.location_case() == pb::CoordinatorState::kInlineData) {
    bytes = cs.inline_data();
  } else if (cs.location_case() == pb::CoordinatorState::kFileIndex) {
    if (cs.file_index() >= s.files.size()) return;  // the format reader refuses these
    const SnapshotFile& f = s.files[cs.file_index()];
    if (f.resolved_path.empty() || f.size_bytes > kMaxCoordinatorFileBytes) return;
    // Missing, special or damaged files are CKPT-F001/F011/F003 already.
    auto read = base::ReadFileToString(ctx.fs(), f.resolved_path, kMaxCoordinatorFileBytes);
    if (!read.ok()) return;
    file_bytes = std::move(read).value();
    bytes = file_bytes;
    where = "coordinator state (" + PathFromSnapshot(f) + ")";
  } else {
    return;
  }
  auto v = format::DecodeValueExact(cs.type(), bytes);
  if (!v.ok()) {
    ctx.Add("CKPT-D001", loc,
            where + " does not decode as " + format::TypeName(cs.type()) + ": " +
                v.status().message());
  }
}

}  // namespace

void CheckDeclaredValues(ValidateContext& ctx, const Snapshot& s) {
  ctx.Checked("CKPT-D004");
  for (const pb::OperatorState& os : RawMetadata(s).operators()) {
    const Location loc = LocationOf(s, os);
    for (const pb::StateDescriptor& d : os.states()) {
      const std::string state = "state '" + d.name() + "' ";
      if (d.has_key_type() && Declared(d.key_type())) {
        CheckType(ctx, loc, state + "key type", d.key_type());
      }
      if (d.has_namespace_type() && Declared(d.namespace_type())) {
        CheckType(ctx, loc, state + "namespace type", d.namespace_type());
      }
      if (d.has_user_key_type() && Declared(d.user_key_type())) {
        CheckType(ctx, loc, state + "user key type", d.user_key_type());
      }
      if (d.has_value_type() && Declared(d.value_type())) {
        CheckType(ctx, loc, state + "value type", d.value_type());
      }
    }
    if (os.has_coordinator_state()) CheckCoordinator(ctx, s, os, loc);
  }
}

}  // namespace ckpt::ops::internal
