// KeyedStateReader: the one reader of KEYED_STATE containers (format/docs/state-files.md,
// "Records"), shared by the engine's restore and every ckpt::ops verb. It decodes each record,
// checks that it names a declared keyed state, and reads one key group through the section index
// (an empty key group, with or without a listed section, yields no records). Const calls may be
// shared by threads; each iterator belongs to one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"

namespace ckpt::format {

// One decoded record; the views in `record` stay valid until the iterator's next call.
struct KeyedEntry {
  uint32_t key_group = 0;       // the record's section id
  uint64_t logical_offset = 0;  // of the record's length prefix in the record stream
  uint32_t record_bytes = 0;    // logical size of the record (without its length prefix)
  KeyedRecord record;
};

class KeyedRecordIterator {
 public:
  KeyedRecordIterator(std::unique_ptr<RecordIterator> records, const std::string* path,
                      const std::vector<bool>* keyed);
  // Fills `*entry` with the next record and returns true, or returns false at the end.
  // Corruption naming the file, logical offset and key group for a malformed record or one that
  // names a state index that is not a declared keyed state; block errors as RecordIterator.
  base::Result<bool> Next(KeyedEntry* entry);

 private:
  std::unique_ptr<RecordIterator> records_;  // null: empty key group
  const std::string* path_;
  const std::vector<bool>* keyed_;
};

class KeyedStateReader {
 public:
  // Opens `path` as a KEYED_STATE container of an operator that declares `states` (the
  // OperatorState.states list, in order). Errors as StateFileReader::Open; Corruption naming the
  // file if the container holds another kind.
  static base::Result<std::unique_ptr<KeyedStateReader>> Open(
      base::Fs& fs, const std::string& path,
      const google::protobuf::RepeatedPtrField<pb::StateDescriptor>& states);
  // Wraps an already opened (and, e.g., size- and checksum-checked) container. Corruption as
  // Open for another kind.
  static base::Result<std::unique_ptr<KeyedStateReader>> Wrap(
      std::unique_ptr<StateFileReader> container,
      const google::protobuf::RepeatedPtrField<pb::StateDescriptor>& states);

  const std::string& path() const { return container_->path(); }
  const StateFileReader& container() const { return *container_; }

  // Every record in file order (key groups ascending).
  base::Result<KeyedRecordIterator> NewIterator() const;
  // The records of `key_group` only (seeks through the section index).
  base::Result<KeyedRecordIterator> NewKeyGroupIterator(uint32_t key_group) const;

 private:
  KeyedStateReader(std::unique_ptr<StateFileReader> container, std::vector<bool> keyed)
      : container_(std::move(container)), keyed_(std::move(keyed)) {}

  std::unique_ptr<StateFileReader> container_;
  std::vector<bool> keyed_;  // per declared state: is it a keyed kind
};

}  // namespace ckpt::format
