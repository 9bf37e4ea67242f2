#include "ckpt/format/metadata_codec.h"

#include <algorithm>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/format/layout.h"
#include "metadata_structure.h"

namespace ckpt::format {
namespace {

base::Status Corrupt(const std::string& path, const std::string& what) {
  return base::Status::Corruption(path + ": " + what);
}

std::string SerializeDeterministic(const pb::CheckpointMetadata& metadata) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    // Map fields (properties, column families) are otherwise emitted in hash order, which would
    // make two writes of the same snapshot differ byte for byte.
    coded.SetSerializationDeterministic(true);
    metadata.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace

std::string EncodeMetadata(const pb::CheckpointMetadata& metadata) {
  const std::string payload = SerializeDeterministic(metadata);
  std::string out;
  out.reserve(kMetadataHeaderSize + payload.size() + kMetadataTrailerSize);
  out.append(kMetadataMagic);
  base::PutFixed32(&out, kFormatVersion);
  base::PutFixed32(&out, 0);  // flags: none defined in version 1
  base::PutFixed64(&out, payload.size());
  out.append(payload);
  base::PutFixed64(&out, base::Xxh3(out));
  return out;
}

base::Result<MetadataEnvelope> DecodeEnvelope(std::string_view bytes, const std::string& path) {
  // The magic is checked before the length so that a short file of another kind is reported as
  // "not a checkpoint metadata file" rather than as a truncated one.
  const size_t magic_len = std::min(bytes.size(), kMetadataMagic.size());
  if (bytes.substr(0, magic_len) != kMetadataMagic.substr(0, magic_len)) {
    // The tools read both formats by their magic: name both, and what the file holds instead.
    std::string found, text;
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char c : bytes.substr(0, kMetadataMagic.size())) {
      found += (found.empty() ? "" : " ") + std::string{kHex[c >> 4], kHex[c & 15]};
      text += c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? static_cast<char>(c) : '.';
    }
    return Corrupt(path, "not a checkpoint metadata file: it starts with " + found + " (\"" +
                             text + "\"), neither \"CKPTMETA\" (this project's format) nor 49 60 67 2d "
                             "(Apache Flink's _metadata magic 0x4960672D)");
  }
  if (bytes.size() < kMetadataHeaderSize) {
    return Corrupt(path, "truncated: " + std::to_string(bytes.size()) +
                             " bytes, the envelope header alone needs " +
                             std::to_string(kMetadataHeaderSize));
  }
  MetadataEnvelope env;
  env.format_version = base::DecodeFixed32(bytes.data() + 8);
  env.flags = base::DecodeFixed32(bytes.data() + 12);
  env.payload_length = base::DecodeFixed64(bytes.data() + 16);
  if (env.format_version > kFormatVersion) {
    return base::Status::Unimplemented(
        path + ": written by a newer version (" + std::to_string(env.format_version) +
        "); this build reads up to " + std::to_string(kFormatVersion));
  }
  if (env.format_version == 0) return Corrupt(path, "format version 0 is not a valid version");
  if (env.flags != 0) {
    return Corrupt(path, "unknown envelope flags 0x" + base::ChecksumHex(env.flags).substr(8) +
                             " (version 1 defines none)");
  }
  if (env.payload_length > kMaxMetadataPayloadBytes) {
    return Corrupt(path, "payload length " + std::to_string(env.payload_length) +
                             " exceeds the limit of " + std::to_string(kMaxMetadataPayloadBytes) +
                             " bytes");
  }
  return env;
}

MetadataDecodeResult DecodeMetadataChecked(std::string_view bytes, const std::string& path) {
  MetadataDecodeResult r;
  auto fail = [&r](MetadataDefect defect, base::Status status) -> MetadataDecodeResult& {
    r.defect = defect;
    r.status = std::move(status);
    return r;
  };
  base::Result<MetadataEnvelope> env = DecodeEnvelope(bytes, path);
  if (!env.ok()) {
    const size_t magic_len = std::min(bytes.size(), kMetadataMagic.size());
    if (env.status().code() == base::StatusCode::kUnimplemented) {
      return fail(MetadataDefect::kNewerVersion, env.status());
    }
    if (bytes.substr(0, magic_len) != kMetadataMagic.substr(0, magic_len)) {
      return fail(MetadataDefect::kBadMagic, env.status());
    }
    if (bytes.size() < kMetadataHeaderSize) return fail(MetadataDefect::kLengthMismatch, env.status());
    return fail(MetadataDefect::kInvalidEnvelope, env.status());
  }
  r.envelope = *env;
  // payload_length <= 1 GiB, so this sum cannot overflow.
  const uint64_t expected = kMetadataHeaderSize + env->payload_length + kMetadataTrailerSize;
  if (bytes.size() < expected) {
    return fail(MetadataDefect::kLengthMismatch,
                Corrupt(path, "truncated: " + std::to_string(bytes.size()) +
                                  " bytes, the envelope says " + std::to_string(expected)));
  }
  if (bytes.size() > expected) {
    return fail(MetadataDefect::kLengthMismatch,
                Corrupt(path, std::to_string(bytes.size() - expected) +
                                  " unexpected bytes after the checksum (the envelope says " +
                                  std::to_string(expected) + " bytes)"));
  }
  const size_t checked = kMetadataHeaderSize + env->payload_length;
  r.envelope.checksum = base::DecodeFixed64(bytes.data() + checked);
  const uint64_t actual = base::Xxh3(bytes.substr(0, checked));
  if (actual != r.envelope.checksum) {
    return fail(MetadataDefect::kChecksumMismatch,
                Corrupt(path, "checksum mismatch: stored " + base::ChecksumHex(r.envelope.checksum) +
                                  ", computed " + base::ChecksumHex(actual)));
  }
  pb::CheckpointMetadata metadata;
  std::string_view payload = bytes.substr(kMetadataHeaderSize, env->payload_length);
  if (!metadata.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return fail(MetadataDefect::kInvalidPayload,
                Corrupt(path, "the payload is not a valid CheckpointMetadata protobuf"));
  }
  if (metadata.format_version() != 0 && metadata.format_version() != env->format_version) {
    return fail(MetadataDefect::kInvalidPayload,
                Corrupt(path, "payload format_version " + std::to_string(metadata.format_version()) +
                                  " differs from the envelope's " +
                                  std::to_string(env->format_version)));
  }
  base::Status structure = internal::CheckMetadataStructure(metadata, path);
  if (!structure.ok()) {
    // Name escaping references on their own: they are the hostile case users must see.
    for (int i = 0; i < metadata.files_size(); ++i) {
      const pb::FileEntry& fe = metadata.files(i);
      if (fe.scope() == pb::EXTERNAL) continue;
      base::Status rel = CheckRelativePath(fe.path());
      if (!rel.ok()) r.escaping.push_back({i, fe.path(), rel.message()});
    }
    return fail(r.escaping.empty() ? MetadataDefect::kInvalidStructure
                                   : MetadataDefect::kEscapingReference,
                structure);
  }
  r.metadata = std::move(metadata);
  return r;
}

base::Result<pb::CheckpointMetadata> DecodeMetadata(std::string_view bytes,
                                                    const std::string& path) {
  MetadataDecodeResult r = DecodeMetadataChecked(bytes, path);
  if (r.defect != MetadataDefect::kNone) return r.status;
  return std::move(*r.metadata);
}

base::Result<pb::CheckpointMetadata> ReadMetadataFile(base::Fs& fs, const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(auto file, fs.OpenRead(path));
  const uint64_t size = file->Size();
  // Checked before allocating: a huge file is refused without reading it.
  if (size > kMetadataHeaderSize + kMaxMetadataPayloadBytes + kMetadataTrailerSize) {
    std::string head(std::min<uint64_t>(size, kMetadataHeaderSize), '\0');
    CKPT_ASSIGN_OR_RETURN(size_t n, file->ReadAt(0, head.size(), head.data()));
    head.resize(n);
    CKPT_RETURN_IF_ERROR(DecodeEnvelope(head, path).status());
    return Corrupt(path, "file is " + std::to_string(size) + " bytes, more than any valid " +
                             "_metadata (limit " + std::to_string(kMaxMetadataPayloadBytes) +
                             " payload bytes)");
  }
  std::string data(size, '\0');
  CKPT_ASSIGN_OR_RETURN(size_t n, file->ReadAt(0, size, data.data()));
  data.resize(n);
  return DecodeMetadata(data, path);
}

base::Status WriteMetadataFile(base::Fs& fs, const std::string& snapshot_dir,
                               const pb::CheckpointMetadata& metadata) {
  const std::string path = base::JoinPath(snapshot_dir, kMetadataFileName);
  auto existing = fs.Stat(path);
  if (existing.ok()) {
    return base::Status::AlreadyExists(path + ": the snapshot is already published; a " +
                                       "_metadata is never overwritten");
  }
  if (!existing.status().IsNotFound()) return existing.status();
  return fs.PublishAtomic(path, EncodeMetadata(metadata));
}

}  // namespace ckpt::format
