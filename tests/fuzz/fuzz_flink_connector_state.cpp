// Fuzzes the Flink connector-state decoders of `positions` (ops/src/formats/flink/connector_*):
// the first byte picks the decoder and the serializer version, the rest is the payload. Every
// input must yield a value or a Corruption, never a crash, a hang or a huge allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ckpt/flink/data_input.h"
#include "formats/flink/connector_common.h"
#include "formats/flink/connector_file.h"
#include "formats/flink/connector_kafka.h"
#include "formats/flink/connector_sink_v2.h"

namespace conn = ckpt::ops::internal::connector;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  const std::string_view payload(reinterpret_cast<const char*>(data + 1), size - 1);
  const int32_t version = selector & 0x07;
  ckpt::flink::DataInput in(payload, "fuzz");
  switch (selector >> 3) {
    case 0: (void)conn::DecodeKafkaSplit(version, in); break;
    case 1: (void)conn::DecodeKafkaEnumState(version, in); break;
    case 2: (void)conn::DecodeKafkaWriterState(version, in); break;
    case 3: (void)conn::DecodeKafkaCommittable(version, in); break;
    case 4: (void)conn::DecodeLegacyConsumerOffset(in); break;
    case 5: (void)conn::DecodeLegacyProducerState(in); break;
    case 6: (void)conn::DecodeFileSplit(version, in); break;
    case 7: (void)conn::DecodeFileEnumState(version, in); break;
    case 8: (void)conn::DecodeFileBucketState(version, in); break;
    case 9: (void)conn::DecodeFileCommittable(version, in); break;
    default: {
      // The committer state, and each committable in it through both sinks' decoders.
      auto collected = conn::DecodeCommittableCollector(version, in);
      if (!collected.ok()) break;
      for (const auto& c : *collected) {
        ckpt::flink::DataInput a = conn::Open(in, c.committable);
        (void)conn::DecodeKafkaCommittable(c.committable.version, a);
        ckpt::flink::DataInput b = conn::Open(in, c.committable);
        (void)conn::DecodeFileCommittable(c.committable.version, b);
      }
    }
  }
  return 0;
}
