// validate SNAP --since A: where restoring SNAP in place of A makes a source read again what A
// had already read (CKPT-R001), and A's splits that SNAP does not have (CKPT-R002). Positions
// come from ComputePositions and are paired by ComparePositions; a side whose connector state
// cannot be decoded leaves the rule not checked for that operator.
#include "ckpt/ops/positions.h"
#include "validate/validate_internal.h"

namespace ckpt::ops::internal {
namespace {

std::string Position(const PositionAdvance& a, int64_t offset) {
  if (a.kafka) {
    if (offset == kKafkaEarliestOffset) return "earliest";
    if (offset == kKafkaLatestOffset) return "latest";
    if (offset == kKafkaCommittedOffset) return "the committed offset";
  } else if (a.IsDone(offset)) {
    return "the end (done)";
  }
  return std::to_string(offset);
}

// True when reading from `to` covers records that reading up to `from` already read.
bool ReadsAgain(const PositionAdvance& a) {
  const int64_t from = *a.from, to = *a.to;
  if (a.kafka) {
    // Earliest re-reads what A had read; latest and committed are resolved at start.
    return from >= 0 && (to == kKafkaEarliestOffset || (to >= 0 && to < from));
  }
  if (a.IsDone(from)) return !a.IsDone(to) && to >= 0;  // A had finished the file
  return from >= 0 && to >= 0 && to < from;
}

Location AdvanceLocation(const PositionAdvance& a) {
  Location l;
  l.operator_id = a.operator_id_hex;
  l.operator_name = a.operator_name;
  return l;
}

}  // namespace

base::Status CheckSince(ValidateContext& ctx, const Snapshot& snapshot) {
  ctx.Checked("CKPT-R001");
  ctx.Checked("CKPT-R002");
  const std::string& since = ctx.options().since;
  base::Result<Snapshot> older = LoadSnapshot(ctx.fs(), since);
  if (!older.ok()) return older.status().WithContext("--since " + since);
  CKPT_ASSIGN_OR_RETURN(PositionsReport a, ComputePositions(ctx.fs(), *older, ctx.progress()));
  CKPT_ASSIGN_OR_RETURN(PositionsReport b, ComputePositions(ctx.fs(), snapshot, ctx.progress()));
  // An operator whose positions could not all be decoded on either side is not checked there.
  for (const auto* side : {&a, &b}) {
    for (const Finding& f : side->findings) {
      Location l;
      l.operator_id = f.location.operator_id;
      l.operator_name = f.location.operator_name;
      ctx.NotChecked("CKPT-R001", l,
                     std::string(side == &a ? "--since " + since : "this snapshot") + ": " +
                         f.message);
    }
  }
  for (const PositionAdvance& adv : ComparePositions(a, b)) {
    if (adv.from && !adv.to) {
      ctx.Add("CKPT-R002", AdvanceLocation(adv),
              "split " + adv.key + " is at " + Position(adv, *adv.from) + " in --since " + since +
                  " but missing in this snapshot");
      continue;
    }
    if (adv.from && adv.to && ReadsAgain(adv)) {
      ctx.Add("CKPT-R001", AdvanceLocation(adv),
              "split " + adv.key + ": this snapshot resumes at " + Position(adv, *adv.to) +
                  ", --since " + since + " had reached " + Position(adv, *adv.from));
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
