// The capability table: which operations a snapshot supports, following Flink's documented
// matrix for canonical savepoints, native savepoints, aligned and unaligned checkpoints
// ("Checkpoints vs. Savepoints"), refined by what this snapshot actually references.
#include "ckpt/ops/validate.h"

namespace ckpt::ops {
namespace {

enum Column { kCanonical = 0, kNative = 1, kAligned = 2, kUnaligned = 3 };

struct Row {
  const char* operation;
  bool supported[4];
  const char* why_not;
};

// Flink 1.15+ documentation, "Checkpoints vs. Savepoints" -> "Capabilities and limitations".
constexpr Row kRows[] = {
    {"restore", {true, true, true, true}, ""},
    {"rescale (change parallelism)", {true, true, true, true}, ""},
    {"change state backend", {true, false, false, false},
     "only canonical savepoints are backend independent"},
    {"State Processor API read", {true, true, true, false},
     "in-flight data of unaligned checkpoints cannot be read as state"},
    {"State Processor API write", {true, false, false, false},
     "only canonical savepoints can be written offline"},
    {"self-contained and relocatable", {true, true, false, false},
     "checkpoints may reference shared files of earlier checkpoints"},
    {"schema evolution", {true, true, true, true}, ""},
    {"arbitrary job upgrade (swap, add or remove operators)", {true, true, true, false},
     "in-flight data must be restored into the same topology"},
    {"non-arbitrary job upgrade (same topology)", {true, true, true, true}, ""},
    {"engine minor version upgrade", {true, true, true, false},
     "in-flight data encoding is not stable across minor versions"},
    {"engine patch version upgrade", {true, true, true, true}, ""},
};

}  // namespace

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
      c.note = "except over forward/rescale edges carrying in-flight data (CKPT-A004)";
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ckpt::ops
