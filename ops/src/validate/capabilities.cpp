// The capability table: which operations a snapshot supports, following Flink's documented
// matrix for canonical savepoints, native savepoints, aligned and unaligned checkpoints
// ("Checkpoints vs. Savepoints"), refined by what this snapshot actually references and, as a
// verdict, by the findings of its validation.
#include <algorithm>
#include <set>

#include "ckpt/ops/validate.h"

namespace ckpt::ops {
namespace {

enum Column { kCanonical = 0, kNative = 1, kAligned = 2, kUnaligned = 3 };

// What an operation depends on, for the verdict.
enum Needs : unsigned {
  kState = 1,    // reads the snapshot's state: every integrity error blocks it
  kRestore = 2,  // restores into a job: the restore rules (--against) block it too
  kFiles = 4,    // copies the files: missing or escaping files block it
};

struct Row {
  const char* operation;
  bool supported[4];
  const char* why_not;
  unsigned needs;
};

// Flink 1.15+ documentation, "Checkpoints vs. Savepoints" -> "Capabilities and limitations".
constexpr Row kRows[] = {
    {"restore", {true, true, true, true}, "", kState | kRestore},
    {"rescale (change parallelism)", {true, true, true, true}, "", kState | kRestore},
    {"change state backend", {true, false, false, false},
     "only canonical savepoints are backend independent", kState | kRestore},
    {"State Processor API read", {true, true, true, false},
     "in-flight data of unaligned checkpoints cannot be read as state", kState},
    {"State Processor API write", {true, false, false, false},
     "only canonical savepoints can be written offline", kState},
    {"self-contained and relocatable", {true, true, false, false},
     "checkpoints may reference shared files of earlier checkpoints", kFiles},
    {"schema evolution", {true, true, true, true}, "", kState | kRestore},
    {"arbitrary job upgrade (swap, add or remove operators)", {true, true, true, false},
     "in-flight data must be restored into the same topology", kState | kRestore},
    {"non-arbitrary job upgrade (same topology)", {true, true, true, true}, "",
     kState | kRestore},
    {"engine minor version upgrade", {true, true, true, false},
     "in-flight data encoding is not stable across minor versions", kState | kRestore},
    {"engine patch version upgrade", {true, true, true, true}, "", kState | kRestore},
};
const Row* FindRow(const std::string& operation) {
  for (const Row& r : kRows) {
    if (operation == r.operation) return &r;
  }
  return nullptr;
}

// Does an error of `rule` make an operation with `needs` impossible?
bool Blocks(const std::string& rule, unsigned needs) {
  // Savepoint self-containment and the shared-file creator check say nothing about whether the
  // state can be read or restored; they block copying only (P001 is reflected by the scope).
  if (rule == "CKPT-P001" || rule == "CKPT-F007") return false;
  const bool restore_rule = rule.rfind("CKPT-A", 0) == 0;
  if (restore_rule) return (needs & kRestore) != 0;
  if (rule.rfind("CKPT-S", 0) == 0) return false;
  if ((needs & kState) != 0) return true;
  if ((needs & kFiles) != 0) {
    return rule == "CKPT-F001" || rule == "CKPT-F004" || rule.rfind("CKPT-M", 0) == 0;
  }
  return false;
}

std::string RuleList(const std::vector<std::string>& rules) {
  std::string out;
  for (const auto& r : rules) out += (out.empty() ? "" : ", ") + r;
  return out;
}

}  // namespace

std::vector<Capability> CapabilitiesVerdict(const Snapshot& snapshot,
                                            const std::vector<Finding>& findings,
                                            const std::vector<UncheckedRule>& not_checked) {
  std::vector<Capability> out = Capabilities(snapshot);
  for (Capability& c : out) {
    const Row* row = FindRow(c.operation);
    if (row == nullptr) continue;
    std::set<std::string> blocked, unverified;
    for (const auto& f : findings) {
      if (f.severity == Severity::kError && Blocks(f.rule_id, row->needs)) blocked.insert(f.rule_id);
    }
    for (const auto& u : not_checked) {
      if (Blocks(u.rule_id, row->needs)) unverified.insert(u.rule_id);
    }
    c.blocked_by.assign(blocked.begin(), blocked.end());
    c.unverified_by.assign(unverified.begin(), unverified.end());
    if (!c.supported) continue;  // the kind already rules it out; keep the kind's reason
    if (!c.blocked_by.empty()) {
      c.supported = false;
      c.note = "not for this snapshot: blocked by " + RuleList(c.blocked_by);
    } else if (!c.unverified_by.empty()) {
      c.supported = false;
      c.undetermined = true;
      c.note = "undetermined: " + RuleList(c.unverified_by) + " could not be checked here";
    }
  }
  return out;
}

std::vector<Capability> Capabilities(const Snapshot& s) {
  Column col = kAligned;
  if (s.kind == SnapshotKind::kSavepoint) {
    col = s.savepoint_format == SavepointFormat::kNative ? kNative : kCanonical;
  } else if (s.mode == CheckpointingMode::kUnaligned || s.metrics.is_unaligned) {
    col = kUnaligned;
  }
  bool only_exclusive = true;
  for (const auto& f : s.files) only_exclusive &= f.scope == FileScope::kExclusive;
  std::vector<Capability> out;
  for (const Row& r : kRows) {
    Capability c;
    c.operation = r.operation;
    c.supported = r.supported[col];
    if (!c.supported) c.note = r.why_not;
    const std::string op = r.operation;
    if (op == "self-contained and relocatable") {
      if (c.supported && !only_exclusive) {
        c.supported = false;
        c.note = "this savepoint references files outside its directory (CKPT-P001)";
      } else if (!c.supported && only_exclusive) {
        c.note = "not guaranteed for checkpoints, although this one references only its own "
                 "files";
      }
    }
    if (op == "rescale (change parallelism)" && col == kUnaligned) {
      c.note = "except over forward/rescale/broadcast edges carrying in-flight data (CKPT-A004)";
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ckpt::ops
