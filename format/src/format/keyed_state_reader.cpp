// KeyedStateReader: KEYED_STATE records decoded and checked against the declared states.
#include "ckpt/format/keyed_state_reader.h"

#include "ckpt/format/state_kind.h"

namespace ckpt::format {

bool IsKeyedStateKind(pb::StateKind kind) {
  switch (kind) {
    case pb::STATE_VALUE:
    case pb::STATE_LIST:
    case pb::STATE_MAP:
    case pb::STATE_REDUCING:
    case pb::STATE_AGGREGATING:
    case pb::STATE_TIMERS:
      return true;
    default:
      return false;
  }
}

KeyedRecordIterator::KeyedRecordIterator(std::unique_ptr<RecordIterator> records,
                                         const std::string* path, const std::vector<bool>* keyed)
    : records_(std::move(records)), path_(path), keyed_(keyed) {}

base::Result<bool> KeyedRecordIterator::Next(KeyedEntry* entry) {
  if (records_ == nullptr) return false;
  RecordRef ref;
  CKPT_ASSIGN_OR_RETURN(bool more, records_->Next(&ref));
  if (!more) return false;
  entry->key_group = ref.section_id;
  entry->logical_offset = ref.logical_offset;
  entry->record_bytes = static_cast<uint32_t>(ref.bytes.size());
  if (!DecodeKeyedRecord(ref.bytes, &entry->record)) {
    return base::Status::Corruption(*path_ + ": malformed keyed record at logical offset " +
                                    std::to_string(ref.logical_offset) + " of key group " +
                                    std::to_string(ref.section_id));
  }
  const uint32_t s = entry->record.state_index;
  if (s >= keyed_->size() || !(*keyed_)[s]) {
    return base::Status::Corruption(
        *path_ + ": keyed record at logical offset " + std::to_string(ref.logical_offset) +
        " of key group " + std::to_string(ref.section_id) + " names state #" + std::to_string(s) +
        ", which is not a declared keyed state (the operator declares " +
        std::to_string(keyed_->size()) + " states)");
  }
  return true;
}

base::Result<std::unique_ptr<KeyedStateReader>> KeyedStateReader::Open(
    base::Fs& fs, const std::string& path,
    const google::protobuf::RepeatedPtrField<pb::StateDescriptor>& states) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<StateFileReader> container,
                        StateFileReader::Open(fs, path));
  return Wrap(std::move(container), states);
}

base::Result<std::unique_ptr<KeyedStateReader>> KeyedStateReader::Wrap(
    std::unique_ptr<StateFileReader> container,
    const google::protobuf::RepeatedPtrField<pb::StateDescriptor>& states) {
  if (container->index().kind != pb::KEYED_STATE) {
    return base::Status::Corruption(container->path() + ": holds " +
                                    pb::FileKind_Name(container->index().kind) +
                                    ", expected KEYED_STATE");
  }
  std::vector<bool> keyed;
  keyed.reserve(static_cast<size_t>(states.size()));
  for (const auto& d : states) keyed.push_back(IsKeyedStateKind(d.kind()));
  return std::unique_ptr<KeyedStateReader>(
      new KeyedStateReader(std::move(container), std::move(keyed)));
}

base::Result<KeyedRecordIterator> KeyedStateReader::NewIterator() const {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<RecordIterator> it, container_->NewIterator());
  return KeyedRecordIterator(std::move(it), &container_->path(), &keyed_);
}

base::Result<KeyedRecordIterator> KeyedStateReader::NewKeyGroupIterator(uint32_t key_group) const {
  auto it = container_->NewSectionIterator(key_group);
  if (!it.ok()) {
    // A writer may leave an empty key group out of the section index: it has no records.
    if (it.status().IsNotFound()) return KeyedRecordIterator(nullptr, &container_->path(), &keyed_);
    return it.status();
  }
  return KeyedRecordIterator(std::move(it).value(), &container_->path(), &keyed_);
}

}  // namespace ckpt::format
