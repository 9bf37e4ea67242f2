// Private to ckpt::flink: the serializers of Flink's table runtime
// (org.apache.flink.table.runtime.typeutils.* and friends) — their snapshot grammars, as
// MetaReader calls them, and their value formats (RowDataSerializer's BinaryRowData, StringData,
// DecimalData, TimestampData, BinaryArrayData, BinaryMapData, raw values, ExternalSerializer's
// internal value, table windows) as DecodeValueJson calls them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/logical_type.h"

namespace ckpt::flink::internal {

// True for a snapshot class ReadTableSnapshot reads.
bool IsTableSnapshot(const std::string& class_name);

// Reads the class-specific bytes of a table serializer snapshot (after its class name and
// version, which `s` already holds). `read_nested` reads a NestedSerializersSnapshotDelegate
// block into s->nested.
base::Status ReadTableSnapshot(DataInput& in, SerializerSnapshot* s,
                               const std::function<base::Status(SerializerSnapshot*)>& read_nested);

// True if `s` is a table serializer DecodeTableValueJson knows; CanDecodeTable: and its values
// can be decoded (its nested serializers included).
bool IsTableSerializer(const SerializerSnapshot& s);
bool CanDecodeTable(const SerializerSnapshot& s);
// "RowDataSerializer(f0 INT, f1 STRING)", "ExternalSerializer(ROW<`b` BIGINT>)", ...
std::string TableDisplayName(const SerializerSnapshot& s);

base::Status DecodeTableValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json);

using LogicalTypes = std::vector<std::shared_ptr<const LogicalType>>;

// The JSON of one value of `type` in Flink's binary formats: BinaryRowData (ROW, structured
// types), BinaryArrayData (ARRAY), BinaryMapData (MAP, MULTISET), each over exactly `bytes`,
// which start at absolute offset `base` of `file`. Rows: {"kind":"+I","fields":{name: value}}
// (positional names f0, f1, ... for a RowDataSerializer's top-level fields). Corruption naming
// the offset for bytes that do not fit the layout.
base::Status BinaryRowJson(const LogicalTypes& types, const std::vector<std::string>& names,
                           std::string_view bytes, uint64_t base, const std::string& file,
                           std::string* json);
base::Status BinaryArrayJson(const LogicalType& element, std::string_view bytes, uint64_t base,
                             const std::string& file, std::string* json);
base::Status BinaryMapJson(const LogicalType& key, const LogicalType& value, std::string_view bytes,
                           uint64_t base, const std::string& file, std::string* json);

// Value text helpers shared by the standalone serializers and the binary formats.
void AppendDecimalJson(std::string_view unscaled_be, int32_t scale, std::string* json);
void AppendUnscaledLongJson(int64_t unscaled, int32_t scale, std::string* json);
std::string FormatDate(int32_t days);
std::string FormatTime(int32_t millis_of_day, int32_t precision);
std::string FormatTimestamp(int64_t millis, int32_t nano_of_milli, int32_t precision);

}  // namespace ckpt::flink::internal
