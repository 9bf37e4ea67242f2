// Flink's assignment of keys to key groups and of key groups to subtasks
// (KeyGroupRangeAssignment, MathUtils.murmurHash), and the Java hashCode() of a key read from its
// serialized bytes for the key serializers whose hashCode is fixed by the JDK or by Flink:
// String, the boxed primitives (Long, Integer, Short, Byte, Boolean, Character, Double, Float),
// Flink's Tuple1..Tuple25 and Row (nullable fields) of those. Anything else (a POJO, RowData, Kryo,
// Avro, a user serializer) has a hashCode only its own class knows: refused, naming the
// serializer. Pure.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::flink {

inline constexpr int32_t kMaxMaxParallelism = 1 << 15;  // KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM

// MathUtils.murmurHash(int): non-negative.
int32_t FlinkMurmurHash(int32_t code);

// KeyGroupRangeAssignment.computeKeyGroupForKeyHash: murmurHash(hash_code) % max_parallelism.
inline int32_t KeyGroupForHash(int32_t hash_code, int32_t max_parallelism) {
  return FlinkMurmurHash(hash_code) % max_parallelism;
}

// KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex: the first and last key group of
// subtask `index` of `parallelism` (1 <= parallelism <= max_parallelism).
struct KeyGroupSpan {
  int32_t start = 0;
  int32_t end = -1;  // inclusive
  int32_t count() const { return end - start + 1; }
};
KeyGroupSpan KeyGroupSpanOfSubtask(int32_t max_parallelism, int32_t parallelism, int32_t index);

// "" if JavaHashCode supports every serializer in `s`; otherwise the class name of the first one
// it does not (whose hashCode cannot be known outside the JVM).
std::string UnhashableSerializer(const SerializerSnapshot& s);

// Reads one value of `s` from `in` and returns its Java hashCode(). InvalidArgument naming the
// serializer if UnhashableSerializer(s) is not empty; Corruption (from `in`) for truncated bytes.
base::Result<int32_t> JavaHashCode(const SerializerSnapshot& s, DataInput& in);

}  // namespace ckpt::flink
