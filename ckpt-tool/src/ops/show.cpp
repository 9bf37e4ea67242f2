// show --format json: protobuf's own JSON mapping of the whole CheckpointMetadata.
#include "ckpt/ops/show.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <memory>

#include "snapshot_raw.h"

namespace ckpt::ops {

base::Result<std::string> MetadataJson(const Snapshot& snapshot) {
  const pb::CheckpointMetadata& md = RawMetadata(snapshot);
  // Serialize deterministically ourselves (map fields in key order) and convert the bytes, so
  // the JSON is byte-for-byte stable across runs; MessageToJsonString gives no such promise.
  std::string binary;
  {
    google::protobuf::io::StringOutputStream stream(&binary);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    md.SerializeToCodedStream(&coded);
  }
  static constexpr char kUrlPrefix[] = "type.googleapis.com";
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver(
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          kUrlPrefix, google::protobuf::DescriptorPool::generated_pool()));
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::BinaryToJsonString(
      resolver.get(), std::string(kUrlPrefix) + "/" + md.GetDescriptor()->full_name(), binary,
      &json, options);
  if (!status.ok()) {
    return base::Status::Internal("protobuf JSON of " + snapshot.metadata_path + ": " +
                                  std::string(status.message()));
  }
  return json;
}

}  // namespace ckpt::ops
