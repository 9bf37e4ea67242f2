// StateFileReader: opens a state-file container, verifies its footer, and iterates records with
// bounded memory (one decompressed block). A reader may be shared by threads only for const
// calls; each iterator belongs to one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/format/state_file.h"

namespace ckpt::format {

class RecordIterator {
 public:
  virtual ~RecordIterator() = default;
  // Fills `*record` with the next record and returns true, or returns false at the end.
  // Corruption (naming the file and block) on a bad block checksum or malformed block.
  virtual base::Result<bool> Next(RecordRef* record) = 0;
};

class StateFileReader {
 public:
  // Reads header, trailer and footer index and checks them (magic, version, index checksum,
  // every length within the file). Corruption naming `path` if anything is off; Unimplemented
  // for a newer container version; NotFound if absent.
  static base::Result<std::unique_ptr<StateFileReader>> Open(base::Fs& fs,
                                                             const std::string& path);
  virtual ~StateFileReader() = default;

  virtual const std::string& path() const = 0;
  virtual uint64_t file_size() const = 0;
  virtual const StateFileIndex& index() const = 0;

  // Checks every block's checksum without decompressing. Corruption naming the block on a
  // mismatch; Cancelled if `progress` is cancelled.
  virtual base::Status VerifyChecksums(const base::Progress& progress = {}) const = 0;

  // All records in order.
  virtual base::Result<std::unique_ptr<RecordIterator>> NewIterator() const = 0;
  // Records of one section; NotFound if the container has no such section.
  virtual base::Result<std::unique_ptr<RecordIterator>> NewSectionIterator(
      uint32_t section_id) const = 0;
  // Up to `max_records` records starting at `logical_offset`, which must be the offset of a
  // record (InvalidArgument otherwise).
  virtual base::Result<std::unique_ptr<RecordIterator>> NewIteratorAt(
      uint64_t logical_offset, uint64_t max_records) const = 0;
};

}  // namespace ckpt::format
