// Private to ckpt::ops: diff --keys of two snapshots of which at least one is an Apache Flink
// snapshot. Each paired operator's keyed entries are read through DumpFlink (so every layout dump
// decodes is compared, with the same JSON), then merged by (state, key group, key, namespace,
// user key, timer timestamp) identity.
#pragma once

#include <functional>

#include "ckpt/ops/diff.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

base::Result<KeyDiffSummary> DiffKeysFlink(base::Fs& fs, const Snapshot& a, const Snapshot& b,
                                           const std::function<void(const KeyDiff&)>& sink,
                                           const base::Progress& progress);

}  // namespace ckpt::ops::internal
