// Which declared state kinds are keyed (partitioned by key group) and which are operator state:
// the one definition the engine, ckpt::ops and the inspector share. Pure; thread-safe.
#pragma once

#include "ckpt/format/proto.h"

namespace ckpt::format {

// True for VALUE, LIST, MAP, REDUCING, AGGREGATING and TIMERS: state kept per key in key groups
// (KEYED_STATE records). False for OPERATOR_LIST, OPERATOR_UNION, BROADCAST and UNSPECIFIED.
bool IsKeyedStateKind(pb::StateKind kind);

}  // namespace ckpt::format
