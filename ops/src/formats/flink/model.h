// Private to ckpt::ops: Apache Flink snapshots in the one plain model. A Flink `_metadata`
// (recognized by its magic: flink_format.h) is read through ckpt::flink into the same plain
// model our own format yields, so every verb works on both; the Flink original (FlinkMetadataOf)
// and its protobuf translation (RawMetadata) are there for the code that reads raw handles.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/flink/metadata.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

// Builds the plain model of decoded Flink metadata found in `dir`; the keyed states of each
// operator come from the keyed-state meta information its first keyed handle points to (read
// through `fs`; a failure is kept as property flink.keyed_meta_error.<operator id>). With
// `state_meta` false no state file is opened: keyed states are not listed.
Snapshot BuildFlinkSnapshotModel(base::Fs& fs, flink::Metadata md, const std::string& dir,
                                 bool state_meta = true);

// 32 lowercase hex digits of 16 ID bytes.
std::string IdHexOf(const std::string& bytes);

// Reads `metadata_path` with ckpt::flink and builds the model, one operator at a time (the
// decoded operators are not kept: FlinkMetadataOf decodes the retained bytes again on first
// use). Errors as ReadFlinkMetadata.
base::Result<Snapshot> LoadFlinkSnapshot(base::Fs& fs, const std::string& dir,
                                         const std::string& metadata_path, bool state_meta = true);

// The Flink metadata behind `snapshot`, or nullptr for a snapshot of our own format.
const flink::Metadata* FlinkMetadataOf(const Snapshot& snapshot);

}  // namespace ckpt::ops::internal
