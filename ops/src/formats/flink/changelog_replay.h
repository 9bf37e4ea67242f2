// Private to ckpt::ops: replay of an Apache Flink changelog state backend handle (keyed tags
// 8/14) for dump, as Flink's ChangelogBackendRestoreOperation does: the materialized handles are
// the base (decoded by the caller), then every change of the non-materialized increments is
// applied in log order, giving the state as of the checkpoint. The key serializer is not in the
// log: it is the materialized part's, else that of the timer states' TimerSerializer (the
// backend's key serializer, as Flink builds it).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/metadata.h"
#include "ckpt/ops/dump.h"

namespace ckpt::ops::internal {

// What makes a keyed entry one: (state, key, namespace, user key, timestamp).
using DumpIdentity = std::tuple<std::string, std::string, std::string, std::string, std::string>;
DumpIdentity DumpIdentityOf(const DumpEntry& d);
using DumpTable = std::map<DumpIdentity, DumpEntry>;

// The model's kind of a Flink keyed state (priority queue: timers; else KEYED_STATE_TYPE).
StateKind FlinkStateKind(const flink::StateMetaInfo& st);

struct ReplayedChangelog {
  DumpTable table;                // the state as of the checkpoint
  std::vector<DumpEntry> opaque;  // changes that cannot be decoded, kept as their bytes
};

// Replays the log tail of changelog handle `h` over `base` (the entries of its materialized
// handles, unfiltered). Every entry the log adds copies `label` (operator id and name, subtask).
// Change-set files are read through `fs`; `progress` can cancel. Errors name the file and offset.
base::Result<ReplayedChangelog> ReplayChangelog(base::Fs& fs, const flink::Metadata& md,
                                                const flink::KeyedHandle& h, DumpTable base,
                                                const DumpEntry& label, const base::Progress& progress);

}  // namespace ckpt::ops::internal
