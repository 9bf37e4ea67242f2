// Keyed backend meta information of Flink before 1.7 (KeyedBackendSerializationProxy versions
// 3-5), read as Flink 1.8+'s KeyedBackendSerializationProxy.read still reads it.
#pragma once

#include <cstdint>

#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::flink::internal {

// The head of a StateMetaInfoSnapshot, the same in every layout since proxy version 5: the
// state's name, its backend type and its options, into `out`.
base::Status ReadStateHead(DataInput& in, StateMetaInfo* out);

// Reads, after the proxy version `version` (3, 4 or 5) already read from `in`, the rest of the
// proxy into `meta` (states, key serializer, compression).
base::Status ReadLegacyKeyedBackendMeta(DataInput& in, int32_t version, KeyedBackendMeta* meta);

// The same for an OperatorBackendSerializationProxy of version 3 (Flink 1.5: per state utf name,
// u8 mode, resilient(1 | 2)) or 4 (Flink 1.6: the v5 state layout), both without compression
// and with a broadcast list.
base::Status ReadLegacyOperatorBackendMeta(DataInput& in, int32_t version, OperatorBackendMeta* meta);

}  // namespace ckpt::flink::internal
