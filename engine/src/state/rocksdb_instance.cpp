// RocksDbInstance: opening/closing RocksDB with the backend's options, column families, the key
// codec and file copies between the local working directory and checkpoint storage.
#include "state/rocksdb_instance.h"

#include <algorithm>
#include <utility>

#include "ckpt/base/checksum.h"
#include "ckpt/format/value_codec.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"

namespace ckpt::engine::state_internal {

namespace {

// LIST: appends the operand (encoded elements) to the stored bytes.
class ListAppendOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice& key, const rocksdb::Slice* existing,
             const rocksdb::Slice& value, std::string* new_value,
             rocksdb::Logger* logger) const override {
    (void)key;
    (void)logger;
    new_value->clear();
    if (existing != nullptr) new_value->assign(existing->data(), existing->size());
    new_value->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override {
    return format::rocksdb_layout::kListMergeOperatorName.data();
  }
};

}  // namespace

std::vector<std::string> ListColumnFamilies(const std::string& db_dir) {
  std::vector<std::string> names;
  rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), db_dir, &names).PermitUncheckedError();
  return names;
}

base::Status FromRocks(const rocksdb::Status& s, const std::string& context) {
  if (s.ok()) return base::Status::OK();
  if (s.IsCorruption()) return base::Status::Corruption(context + ": RocksDB: " + s.ToString());
  return base::Status::IOError(context + ": RocksDB: " + s.ToString());
}

rocksdb::ColumnFamilyOptions RocksDbInstance::CfOptions(bool in_place) {
  rocksdb::ColumnFamilyOptions o;
  o.merge_operator = std::make_shared<ListAppendOperator>();
  // A put of a key whose newest entry is a value in the active memtable, no larger than it,
  // overwrites that entry instead of adding a version: the memtable holds one entry per key that
  // is updated over and over, not one per update, so its skip list stays as small as the set of
  // keys written since the last flush, and both the get and the put of a read-modify-write walk
  // a short list.
  // The price: the instance has no RocksDB snapshots (GetSnapshot returns null); the canonical
  // snapshot reads a Checkpoint instead, as native checkpoints do (rocksdb_snapshot.cpp).
  o.inplace_update_support = in_place;
  return o;
}

base::Result<std::shared_ptr<RocksDbInstance>> RocksDbInstance::Open(
    const std::string& root, const std::string& db_dir,
    const std::vector<std::string>& column_families) {
  std::shared_ptr<RocksDbInstance> inst(new RocksDbInstance());
  inst->root_ = root;
  inst->db_dir_ = db_dir;
  inst->write_options_.disableWAL = true;
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.max_open_files = 256;
  options.info_log_level = rocksdb::WARN_LEVEL;
  options.keep_log_file_num = 2;
  // One writer (the task thread); required by in-place updates.
  options.allow_concurrent_memtable_write = false;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, CfOptions(true));
  for (const std::string& n : column_families) {
    if (n != rocksdb::kDefaultColumnFamilyName) descriptors.emplace_back(n, CfOptions(true));
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  CKPT_RETURN_IF_ERROR(
      FromRocks(rocksdb::DB::Open(options, db_dir, descriptors, &handles, &db), db_dir));
  inst->db_.reset(db);
  for (size_t i = 0; i < handles.size(); ++i) inst->cfs_[descriptors[i].name] = handles[i];
  return inst;
}

base::Result<std::shared_ptr<RocksDbInstance>> RocksDbInstance::OpenReadOnly(
    const std::string& db_dir, const std::vector<std::string>& column_families) {
  std::shared_ptr<RocksDbInstance> inst(new RocksDbInstance());
  inst->db_dir_ = db_dir;
  const std::vector<std::string> all =
      column_families.empty() ? ListColumnFamilies(db_dir) : column_families;
  rocksdb::DBOptions options;
  options.info_log_level = rocksdb::WARN_LEVEL;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, CfOptions(false));
  for (const std::string& n : all) {
    if (n != rocksdb::kDefaultColumnFamilyName) descriptors.emplace_back(n, CfOptions(false));
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  CKPT_RETURN_IF_ERROR(FromRocks(
      rocksdb::DB::OpenForReadOnly(options, db_dir, descriptors, &handles, &db), db_dir));
  inst->db_.reset(db);
  for (size_t i = 0; i < handles.size(); ++i) inst->cfs_[descriptors[i].name] = handles[i];
  return inst;
}

RocksDbInstance::~RocksDbInstance() {
  if (db_) {
    for (auto& [name, h] : cfs_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    cfs_.clear();
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
  if (!root_.empty()) base::RemoveAll(base::Fs::Default(), root_).IgnoreError();
}

base::Result<rocksdb::ColumnFamilyHandle*> RocksDbInstance::ColumnFamily(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cfs_.find(name);
  if (it != cfs_.end()) return it->second;
  rocksdb::ColumnFamilyHandle* h = nullptr;
  CKPT_RETURN_IF_ERROR(FromRocks(db_->CreateColumnFamily(CfOptions(true), name, &h),
                                 db_dir_ + ": creating column family '" + name + "'"));
  cfs_[name] = h;
  return h;
}

rocksdb::ColumnFamilyHandle* RocksDbInstance::FindColumnFamily(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cfs_.find(name);
  return it == cfs_.end() ? nullptr : it->second;
}

std::vector<std::string> RocksDbInstance::ColumnFamilyNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [n, h] : cfs_) out.push_back(n);
  return out;
}

namespace {

// Reads `in` whole in 1 MiB chunks, appending each to `out` unless null; returns its XXH3.
base::Result<uint64_t> ReadHashing(const base::RandomAccessFile& in, const std::string& path,
                                   base::WritableFile* out) {
  base::Xxh3Stream hash;
  std::string buf(1 << 20, '\0');
  const uint64_t total = in.Size();
  uint64_t offset = 0;
  while (offset < total) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), total - offset));
    CKPT_ASSIGN_OR_RETURN(size_t got, in.ReadAt(offset, want, buf.data()));
    if (got == 0) return base::Status::IOError(path + ": short read at " + std::to_string(offset));
    const std::string_view chunk(buf.data(), got);
    hash.Update(chunk);
    if (out != nullptr) CKPT_RETURN_IF_ERROR(out->Append(chunk));
    offset += got;
  }
  return hash.Digest();
}

}  // namespace

base::Result<uint64_t> HashFile(base::Fs& fs, const std::string& path, uint64_t* size) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<base::RandomAccessFile> in, fs.OpenRead(path));
  CKPT_ASSIGN_OR_RETURN(uint64_t digest, ReadHashing(*in, path, nullptr));
  *size = in->Size();
  return digest;
}

base::Result<uint64_t> CopyFileBetween(base::Fs& from_fs, const std::string& from, base::Fs& to_fs,
                                       const std::string& to, uint64_t* size, bool sync) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<base::RandomAccessFile> in, from_fs.OpenRead(from));
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<base::WritableFile> out, to_fs.OpenWriteExclusive(to));
  CKPT_ASSIGN_OR_RETURN(uint64_t digest, ReadHashing(*in, from, out.get()));
  if (sync) CKPT_RETURN_IF_ERROR(out->Sync());
  CKPT_RETURN_IF_ERROR(out->Close());
  *size = in->Size();
  return digest;
}

}  // namespace ckpt::engine::state_internal
