#include "snapshot_kinds.h"

#include <random>
#include <set>
#include <tuple>

namespace ckpt::generator {

const char* ModeFlag(Mode m) {
  switch (m) {
    case Mode::kAligned: return "aligned";
    case Mode::kAtLeastOnce: return "at-least-once";
    case Mode::kUnaligned: return "unaligned";
    case Mode::kAlignedWithTimeout: return "aligned-with-timeout";
  }
  return "?";
}

const char* BackendName(Backend b) {
  switch (b) {
    case Backend::kHeap: return "heap";
    case Backend::kRocksDbFull: return "rocksdb-full";
    case Backend::kRocksDbIncremental: return "rocksdb-incremental";
    case Backend::kChangelogHeap: return "changelog-heap";
    case Backend::kChangelogRocksDbFull: return "changelog-rocksdb-full";
    case Backend::kChangelogRocksDbIncremental: return "changelog-rocksdb-incremental";
  }
  return "?";
}

const char* TopologyName(Topology t) {
  switch (t) {
    case Topology::kHashChained: return "hash-chained";
    case Topology::kForwardMapChained: return "forward-map-chained";
    case Topology::kRebalanceUnchained: return "rebalance-unchained";
    case Topology::kStatelessBetween: return "stateless-between-keyed-and-sink";
    case Topology::kStatelessUnchained: return "stateless-between-unchained";
    case Topology::kBroadcastSide: return "broadcast-side-output";
    case Topology::kUnion: return "union";
    case Topology::kTwoInput: return "two-input-join";
  }
  return "?";
}

const char* SnapshotTypeName(SnapshotType t) {
  switch (t) {
    case SnapshotType::kCheckpoint: return "checkpoint";
    case SnapshotType::kSavepointCanonical: return "savepoint-canonical";
    case SnapshotType::kSavepointNative: return "savepoint-native";
  }
  return "?";
}

bool IsRocksDb(Backend b) {
  return b == Backend::kRocksDbFull || b == Backend::kRocksDbIncremental ||
         b == Backend::kChangelogRocksDbFull || b == Backend::kChangelogRocksDbIncremental;
}

std::vector<std::string> BackendFlags(Backend b) {
  const bool changelog = b == Backend::kChangelogHeap || b == Backend::kChangelogRocksDbFull ||
                         b == Backend::kChangelogRocksDbIncremental;
  const bool incremental =
      b == Backend::kRocksDbIncremental || b == Backend::kChangelogRocksDbIncremental;
  std::vector<std::string> f = {"--state-backend", IsRocksDb(b) ? "rocksdb" : "heap"};
  if (IsRocksDb(b)) f.insert(f.end(), {"--incremental", incremental ? "true" : "false"});
  f.insert(f.end(), {"--changelog", changelog ? "on" : "off"});
  if (changelog) f.insert(f.end(), {"--changelog-materialization-interval", "100"});
  return f;
}

bool IsKeyedSum(Topology t) { return t != Topology::kTwoInput; }

std::string SnapshotKind::Name() const {
  return std::string(SnapshotTypeName(type)) + "/" + ModeFlag(mode) + "/" + BackendName(backend) +
         "/" + TopologyName(topology) + "/p" + std::to_string(parallelism);
}

namespace {

constexpr Mode kModes[] = {Mode::kAligned, Mode::kAtLeastOnce, Mode::kUnaligned,
                           Mode::kAlignedWithTimeout};
constexpr Backend kBackends[] = {Backend::kHeap,
                                 Backend::kRocksDbFull,
                                 Backend::kRocksDbIncremental,
                                 Backend::kChangelogHeap,
                                 Backend::kChangelogRocksDbFull,
                                 Backend::kChangelogRocksDbIncremental};
constexpr Topology kTopologies[] = {Topology::kHashChained,        Topology::kForwardMapChained,
                                    Topology::kRebalanceUnchained, Topology::kStatelessBetween,
                                    Topology::kStatelessUnchained, Topology::kBroadcastSide,
                                    Topology::kUnion,              Topology::kTwoInput};
constexpr uint32_t kParallelisms[] = {1, 2, 3};
constexpr SnapshotType kTypes[] = {SnapshotType::kCheckpoint, SnapshotType::kSavepointCanonical,
                                   SnapshotType::kSavepointNative};

// Why the engine does not write `k` as a kind of its own, or "" when it does.
std::string WhySkipped(const SnapshotKind& k) {
  const bool savepoint = k.type != SnapshotType::kCheckpoint;
  if (savepoint && k.mode != Mode::kAligned) {
    return "savepoints are always taken aligned whatever the job's mode (barrier handler): the "
           "snapshot is the aligned one";
  }
  if (savepoint && (k.backend == Backend::kChangelogHeap || k.backend == Backend::kChangelogRocksDbFull ||
                    k.backend == Backend::kChangelogRocksDbIncremental)) {
    return "a savepoint of the changelog backend is its wrapped backend's own (self-contained; "
           "the changelog backend delegates savepoints): the same kind as without changelog";
  }
  if (savepoint && k.backend == Backend::kRocksDbIncremental) {
    return "savepoints are never incremental (the RocksDB backend writes them full): the same "
           "kind as rocksdb-full";
  }
  // The space is crossed in full at parallelism 2; parallelism 1 and 3 (the key-group split
  // changes with it) are crossed with every mode, topology and snapshot type for the heap
  // backend only, to keep the whole space within a run of the script.
  if (k.parallelism != 2 && k.backend != Backend::kHeap) {
    return "parallelism 1 and 3 are enumerated for the heap backend only (parallelism changes the "
           "key-group split, which every backend writes alike; the backends are crossed at "
           "parallelism 2)";
  }
  if (k.parallelism != 2 && savepoint) {
    return "savepoints at parallelism 1 and 3 are not enumerated (the checkpoint of the same "
           "job covers the key-group split; savepoints are crossed at parallelism 2)";
  }
  return "";
}

}  // namespace

Space EnumerateSpace() {
  Space s;
  for (SnapshotType t : kTypes) {
    for (uint32_t p : kParallelisms) {
      for (Mode m : kModes) {
        for (Backend b : kBackends) {
          for (Topology topo : kTopologies) {
            SnapshotKind k{m, b, topo, p, t};
            std::string why = WhySkipped(k);
            if (why.empty()) {
              s.kinds.push_back(k);
            } else {
              s.skipped.push_back({k, std::move(why)});
            }
          }
        }
      }
    }
  }
  return s;
}

std::vector<SnapshotKind> SampleKinds(const Space& space, size_t n, uint64_t seed) {
  if (n >= space.kinds.size()) return space.kinds;
  std::vector<size_t> order(space.kinds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(seed);  // fully specified by the standard: the same sample everywhere
  for (size_t i = order.size() - 1; i > 0; --i) {
    const size_t j = static_cast<size_t>(rng() % (i + 1));
    std::swap(order[i], order[j]);
  }
  std::set<int> modes, backends, topologies, types, parallelisms;
  std::vector<bool> taken(order.size(), false);
  std::vector<SnapshotKind> out;
  // First pass: a kind that brings a value of some dimension not seen yet.
  for (size_t i = 0; i < order.size() && out.size() < n; ++i) {
    const SnapshotKind& k = space.kinds[order[i]];
    const bool fresh = !modes.count(static_cast<int>(k.mode)) ||
                       !backends.count(static_cast<int>(k.backend)) ||
                       !topologies.count(static_cast<int>(k.topology)) ||
                       !types.count(static_cast<int>(k.type)) ||
                       !parallelisms.count(static_cast<int>(k.parallelism));
    if (!fresh) continue;
    modes.insert(static_cast<int>(k.mode));
    backends.insert(static_cast<int>(k.backend));
    topologies.insert(static_cast<int>(k.topology));
    types.insert(static_cast<int>(k.type));
    parallelisms.insert(static_cast<int>(k.parallelism));
    taken[i] = true;
    out.push_back(k);
  }
  for (size_t i = 0; i < order.size() && out.size() < n; ++i) {
    if (!taken[i]) out.push_back(space.kinds[order[i]]);
  }
  return out;
}

}  // namespace ckpt::generator
