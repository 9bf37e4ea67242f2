// DecodeValueJson over hand-built bytes of the wrappers Flink puts around values: TTL
// (TtlSerializer: i64 last access, then the value), Row (null mask with row-kind bits, then the
// non-null fields), and serializers no reader knows (Pojo, Kryo), which are never decoded.
#include <gtest/gtest.h>

#include <string>

#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/value_decoder.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::flink {
namespace {

SerializerSnapshot Simple(const std::string& cls) {
  SerializerSnapshot s;
  s.class_name = "org.apache.flink.api.common.typeutils.base." + cls + "$" + cls + "Snapshot";
  return s;
}

std::string BigEndian(uint64_t v, int n) {
  std::string out;
  for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

// StringValue.writeString of an ASCII string: varint (length + 1), then one byte per char.
std::string JavaString(const std::string& s) {
  std::string out(1, static_cast<char>(s.size() + 1));
  return out + s;
}

std::string Decode(const SerializerSnapshot& s, const std::string& bytes) {
  DataInput in(bytes, "test");
  std::string json;
  const base::Status st = DecodeValueJson(s, in, &json);
  EXPECT_OK(st);
  EXPECT_TRUE(in.at_end()) << json;
  return json;
}

TEST(FlinkValueWrappersTest, TtlValueIsTheValueWithItsLastAccessTime) {
  SerializerSnapshot ttl;
  ttl.class_name = "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot";
  ttl.nested = {Simple("LongSerializer"), Simple("StringSerializer")};
  ASSERT_TRUE(CanDecode(ttl));
  EXPECT_EQ(FixedLength(ttl), -1);
  EXPECT_EQ(Decode(ttl, BigEndian(1700000000123, 8) + JavaString("abc")),
            R"({"value":"abc","last_access":1700000000123})");
  ttl.nested[1] = Simple("LongSerializer");
  EXPECT_EQ(FixedLength(ttl), 16);
}

TEST(FlinkValueWrappersTest, RowCarriesItsKindAndNullFields) {
  SerializerSnapshot row;
  row.class_name = "org.apache.flink.api.java.typeutils.runtime.RowSerializer$RowSerializerSnapshot";
  row.outer_version = 3;
  row.nested = {Simple("LongSerializer"), Simple("StringSerializer"), Simple("IntSerializer")};
  ASSERT_TRUE(CanDecode(row));
  // Mask bits, most significant first: kind bit 0, kind bit 1, null(f0), null(f1), null(f2).
  // +U (byte value 2): kind bits 0,1; f1 null -> 0b01010000.
  EXPECT_EQ(Decode(row, std::string(1, '\x50') + BigEndian(7, 8) + BigEndian(9, 4)),
            R"({"kind":"+U","fields":[7,null,9]})");
  // +I, nothing null.
  EXPECT_EQ(Decode(row, std::string(1, '\x00') + BigEndian(1, 8) + JavaString("x") + BigEndian(2, 4)),
            R"({"kind":"+I","fields":[1,"x",2]})");
  // Outer version 2 (before row kinds) or 4 with supportsRowKind false: only the null bits.
  row.outer_version = 2;
  row.row_has_kind = false;
  EXPECT_EQ(Decode(row, std::string(1, '\x40') + BigEndian(1, 8) + BigEndian(2, 4)),
            R"({"kind":"+I","fields":[1,null,2]})");
}

TEST(FlinkValueWrappersTest, PojoAndKryoAreNeverDecoded) {
  SerializerSnapshot pojo;
  pojo.class_name = "org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot";
  pojo.decoded = false;
  EXPECT_FALSE(CanDecode(pojo));
  SerializerSnapshot kryo;
  kryo.class_name = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot";
  kryo.decoded = false;
  EXPECT_FALSE(CanDecode(kryo));
  // A TTL or Row wrapper around one of them is not decodable either.
  SerializerSnapshot ttl;
  ttl.class_name = "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot";
  ttl.nested = {Simple("LongSerializer"), kryo};
  EXPECT_FALSE(CanDecode(ttl));
  const std::string bytes("\x01\x02");
  DataInput in(bytes, "test");
  std::string json;
  EXPECT_FALSE(DecodeValueJson(kryo, in, &json).ok());
}

}  // namespace
}  // namespace ckpt::flink
