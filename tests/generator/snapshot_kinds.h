// The space of snapshots the engine can write: checkpointing mode × keyed state backend ×
// topology × parallelism × snapshot type (checkpoint, canonical or native savepoint), and the
// rules that prune it to what the engine allows, each with the reason it gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt::generator {

enum class Mode { kAligned, kAtLeastOnce, kUnaligned, kAlignedWithTimeout };
enum class Backend {
  kHeap,
  kRocksDbFull,
  kRocksDbIncremental,
  kChangelogHeap,
  kChangelogRocksDbFull,
  kChangelogRocksDbIncremental
};
enum class Topology {
  kHashChained,         // source -HASH-> sum -FORWARD(chained)-> sink
  kForwardMapChained,   // source -FORWARD(chained)-> map -HASH-> sum -> sink
  kRebalanceUnchained,  // source -REBALANCE-> map -HASH-> sum -> sink
  kStatelessBetween,    // source -HASH-> sum -HASH-> slow -FORWARD(chained)-> sink
  kStatelessUnchained,  // source -HASH-> sum -REBALANCE-> slow -FORWARD-> sink
  kBroadcastSide,       // source -HASH-> sum -> sink, and source -BROADCAST-> discard
  kUnion,               // two sources -HASH-> sum -> sink
  kTwoInput             // two sources -HASH-> window-join (input 0 and 1) -> sink
};
enum class SnapshotType { kCheckpoint, kSavepointCanonical, kSavepointNative };

struct SnapshotKind {
  Mode mode = Mode::kAligned;
  Backend backend = Backend::kHeap;
  Topology topology = Topology::kHashChained;
  uint32_t parallelism = 2;
  SnapshotType type = SnapshotType::kCheckpoint;
  std::string Name() const;
};

struct Skipped {
  SnapshotKind kind;
  std::string reason;
};

struct Space {
  std::vector<SnapshotKind> kinds;  // what the engine allows, in a fixed order
  std::vector<Skipped> skipped;     // what it does not, each with its reason
};

// Every combination of the dimensions, pruned. Deterministic.
Space EnumerateSpace();

// `n` kinds of `space` picked deterministically by `seed` (all of them when n >= its size),
// spread so that each mode, backend, topology and snapshot type occurs when n allows.
std::vector<SnapshotKind> SampleKinds(const Space& space, size_t n, uint64_t seed);

const char* ModeFlag(Mode m);            // ckpt-engine run --mode
const char* BackendName(Backend b);
const char* TopologyName(Topology t);
const char* SnapshotTypeName(SnapshotType t);
// The engine flags selecting the backend: --state-backend, --incremental, --changelog.
std::vector<std::string> BackendFlags(Backend b);
bool IsRocksDb(Backend b);
// Whether `t` is a keyed-sum job whose output VerifyCommitted checks (else: a reference run).
bool IsKeyedSum(Topology t);

}  // namespace ckpt::generator
