// Private to ckpt::ops: the keyed states of an Apache Flink snapshot's operators. Flink's
// `_metadata` does not declare them; each keyed state file starts with the keyed backend's meta
// information (state names, kinds, serializers), so one file per operator is read. Stateless
// functions; the result is an immutable value.
#pragma once

#include <map>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/metadata.h"
#include "ckpt/format/proto.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

struct FlinkKeyedStates {
  std::map<std::string, flink::KeyedBackendMeta> by_operator;  // operator id hex -> meta
  std::map<std::string, std::string> errors;                   // operator id hex -> why not
};

// The meta information of the first readable keyed handle of each operator (a few are tried).
FlinkKeyedStates ReadFlinkKeyedStates(base::Fs& fs, const flink::Metadata& md);
// The same for one operator `op` of `md` (whose path and dir are read, not its operators),
// added to `out`.
void ReadFlinkKeyedStates(base::Fs& fs, const flink::Metadata& md, const flink::OperatorState& op,
                          FlinkKeyedStates* out);

// One declared keyed state as the model lists it (name, kind, serializer version, timer domain;
// the type names are filled by FillKeyedStateTypes).
StateInfo KeyedStateInfo(const flink::StateMetaInfo& st);

// Sets key, namespace, user key and value types of the keyed states in `op` from `meta`.
void FillKeyedStateTypes(const flink::KeyedBackendMeta& meta, OperatorInfo* op);

// The same states declared in the protobuf translation (TranslateFlinkMetadata), and each
// operator's error as property flink.keyed_meta_error.<operator id>.
void AddKeyedStatesToProto(const FlinkKeyedStates& keyed, pb::CheckpointMetadata* md);

}  // namespace ckpt::ops::internal
