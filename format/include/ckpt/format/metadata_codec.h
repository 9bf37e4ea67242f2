// Reading and writing `_metadata`: the envelope (magic, format version, length, XXH3-64 checksum)
// around the CheckpointMetadata protobuf payload. Byte grammar: format/FORMAT.md "_metadata".
// Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"

namespace ckpt::format {

// The newest format version this library writes and reads.
inline constexpr uint32_t kFormatVersion = 1;
// First 8 bytes of every `_metadata`.
inline constexpr std::string_view kMetadataMagic{"CKPTMETA", 8};
// Envelope header: magic (8) | version u32 LE | flags u32 LE | payload length u64 LE.
inline constexpr size_t kMetadataHeaderSize = 24;
// Envelope trailer: XXH3-64 u64 LE over header and payload.
inline constexpr size_t kMetadataTrailerSize = 8;
// Refuse payloads larger than this before allocating (hostile length fields).
inline constexpr uint64_t kMaxMetadataPayloadBytes = uint64_t{1} << 30;

struct MetadataEnvelope {
  uint32_t format_version = 0;
  uint32_t flags = 0;
  uint64_t payload_length = 0;
  uint64_t checksum = 0;  // as stored
};

// Serializes `metadata` inside the envelope. Deterministic (same input, same bytes).
std::string EncodeMetadata(const pb::CheckpointMetadata& metadata);

// Parses only the envelope header of `bytes` (at least kMetadataHeaderSize bytes).
// Corruption "not a checkpoint metadata file" on a wrong magic; Unimplemented if the version is
// newer than kFormatVersion ("written by a newer version"). `path` is used in messages.
base::Result<MetadataEnvelope> DecodeEnvelope(std::string_view bytes, const std::string& path);

// Decodes a whole `_metadata` image: envelope, checksum, payload. Corruption on truncation, bad
// checksum or an unparsable payload; Unimplemented on a newer version. Messages name `path`.
base::Result<pb::CheckpointMetadata> DecodeMetadata(std::string_view bytes,
                                                    const std::string& path);

// What is wrong with a `_metadata` image: one value per kind of damage, so tools classify it
// without re-parsing the envelope (ckpt-tool validate maps each to its own rule).
enum class MetadataDefect {
  kNone = 0,
  kBadMagic,           // empty, or the first bytes are not "CKPTMETA"
  kNewerVersion,       // a well-formed envelope of a newer format version (Unimplemented)
  kLengthMismatch,     // shorter than its header or envelope, or bytes after the checksum
  kChecksumMismatch,   // the XXH3-64 trailer does not match header + payload
  kInvalidEnvelope,    // version 0, unknown flags, payload length above the limit
  kInvalidPayload,     // the payload is not a CheckpointMetadata, or its version disagrees
  kInvalidStructure,   // a structural invariant is broken (CheckMetadataStructure)
  kEscapingReference,  // a file reference escapes its directory (a structural violation)
};

// A decoded `_metadata` image, or its typed defect.
struct MetadataDecodeResult {
  MetadataDefect defect = MetadataDefect::kNone;
  // OK iff defect is kNone; otherwise what DecodeMetadata returns (message naming the path).
  base::Status status;
  // Valid from kLengthMismatch (after the header) on; zero before.
  MetadataEnvelope envelope;
  // Set iff defect is kNone.
  std::optional<pb::CheckpointMetadata> metadata;
  // kEscapingReference: each offending file-table entry (index, recorded path, why).
  struct EscapingFile {
    int index = 0;
    std::string path;
    std::string why;
  };
  std::vector<EscapingFile> escaping;
};

// Like DecodeMetadata, but never an error status: the defect is in the result.
MetadataDecodeResult DecodeMetadataChecked(std::string_view bytes, const std::string& path);

// Reads and decodes the file at `path` (a `_metadata` file). NotFound if absent.
base::Result<pb::CheckpointMetadata> ReadMetadataFile(base::Fs& fs, const std::string& path);

// Publishes `<snapshot_dir>/_metadata` atomically (temp file, fsync, rename, fsync directory).
// Call it last, after every file the metadata references is durable. AlreadyExists if the
// snapshot already has a `_metadata` (a published snapshot is never overwritten).
base::Status WriteMetadataFile(base::Fs& fs, const std::string& snapshot_dir,
                               const pb::CheckpointMetadata& metadata);

}  // namespace ckpt::format
