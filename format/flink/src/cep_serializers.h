// Flink CEP's serializers (flink-cep: NFAStateSerializer, SharedBufferNodeSerializer,
// Lockable.LockableTypeSerializer, SharedBufferEdge, NodeId, EventId, DeweyNumber): their
// snapshot classes and the JSON of their values. Pure.
#pragma once

#include <string>

#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::flink::internal {

// A CEP snapshot class that is a CompositeTypeSerializerSnapshot without outer bytes.
bool IsCepComposite(const std::string& class_name);
// A CEP snapshot class that writes nothing of its own (SimpleTypeSerializerSnapshot).
bool IsCepSimple(const std::string& class_name);
// False for an outer snapshot version of a CEP composite this reader does not know (its outer
// bytes, if any, are then passed as an unknown snapshot's).
bool CepOuterVersionKnown(const std::string& class_name, int32_t outer_version);
// True if `s` is a CEP snapshot whose values this file decodes (nested ones included).
bool IsCepDecodable(const SerializerSnapshot& s);

base::Status DecodeCepValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json);

}  // namespace ckpt::flink::internal
