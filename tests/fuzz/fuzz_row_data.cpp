// libFuzzer target for Flink SQL state (ckpt::flink): the RowDataSerializer snapshot grammar
// (ReadStateMetaInfo over a state whose value serializer is a RowDataSerializerSnapshot followed
// by the fuzzed bytes: Java-serialized LogicalTypes, nested snapshots) and DecodeValueJson of
// RowData values (BinaryRowData with every field type: strings inline and out of line, compact
// and non-compact timestamps and decimals, arrays, maps, nested rows) over arbitrary bytes. Any
// crash or sanitizer report, or an error that does not name the input, is a bug.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/logical_type.h"
#include "ckpt/flink/value_decoder.h"

namespace {

using namespace ckpt::flink;  // NOLINT: a fuzz driver

std::string BeI32(int32_t v) {
  std::string o;
  for (int s = 24; s >= 0; s -= 8) o.push_back(static_cast<char>(static_cast<uint32_t>(v) >> s));
  return o;
}
std::string BeUtf(const std::string& s) {
  return std::string{static_cast<char>(s.size() >> 8), static_cast<char>(s.size() & 0xff)} + s;
}

std::shared_ptr<LogicalType> Type(LogicalTypeRoot root, int32_t precision = 0, int32_t scale = 0) {
  auto t = std::make_shared<LogicalType>();
  t->root = root;
  t->precision = precision;
  t->scale = scale;
  t->length = LogicalType::kMaxLength;
  return t;
}

// A RowDataSerializer over one field of every kind the binary layout distinguishes.
SerializerSnapshot RichRowSnapshot() {
  using R = LogicalTypeRoot;
  SerializerSnapshot s;
  s.class_name = "org.apache.flink.table.runtime.typeutils.RowDataSerializer$RowDataSerializerSnapshot";
  auto array = Type(R::kArray);
  array->children = {Type(R::kVarChar)};
  auto map = Type(R::kMap);
  map->children = {Type(R::kInteger), Type(R::kDecimal, 20, 2)};
  auto multiset = Type(R::kMultiset);
  multiset->children = {Type(R::kTimestampWithoutTimeZone, 9)};
  auto row = Type(R::kRow);
  row->fields = {{"x", Type(R::kBigInt), ""}, {"y", array, ""}};
  s.logical_types = {Type(R::kBoolean), Type(R::kTinyInt), Type(R::kSmallInt), Type(R::kInteger),
                     Type(R::kBigInt), Type(R::kFloat), Type(R::kDouble), Type(R::kDate),
                     Type(R::kTimeWithoutTimeZone, 3), Type(R::kTimestampWithoutTimeZone, 3),
                     Type(R::kTimestampWithoutTimeZone, 9), Type(R::kTimestampWithLocalTimeZone, 6),
                     Type(R::kDecimal, 10, 2), Type(R::kDecimal, 38, 10), Type(R::kVarChar),
                     Type(R::kVarBinary), array, map, multiset, row, Type(R::kRaw), Type(R::kNull)};
  return s;
}

void CheckError(const ckpt::base::Status& st, const char* file) {
  if (!st.ok() && st.message().find(file) == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  // Values: RowData values one after another until the bytes end or one is refused.
  static const SerializerSnapshot kRow = RichRowSnapshot();
  DataInput values(bytes, "fuzz/values");
  while (!values.at_end()) {
    std::string json;
    const auto st = DecodeValueJson(kRow, values, &json);
    CheckError(st, "fuzz/values");
    if (!st.ok()) break;
  }

  // Snapshots: a value-state meta info whose serializer is a RowDataSerializerSnapshot, its
  // content taken from the input.
  const std::string meta = BeUtf("s") + BeI32(0) + BeI32(1) + BeUtf("KEYED_STATE_TYPE") +
                           BeUtf("VALUE") + BeI32(1) + BeUtf("VALUE_SERIALIZER") + BeI32(2) +
                           BeUtf(kRow.class_name) + BeI32(3) + std::string(bytes);
  DataInput in(meta, "fuzz/meta");
  auto info = ReadStateMetaInfo(in, meta, 0);
  if (!info.ok()) {
    CheckError(info.status(), "fuzz/meta");
    return 0;
  }
  for (const auto& [key, s] : info->serializers) {
    (void)s.DisplayName();
    for (const auto& t : s.logical_types) {
      (void)t->SummaryString();
      (void)t->SerializableString();
    }
    if (!CanDecode(s)) continue;
    DataInput rest(bytes, "fuzz/values");
    std::string json;
    CheckError(DecodeValueJson(s, rest, &json), "fuzz/values");
  }
  return 0;
}
