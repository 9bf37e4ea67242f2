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
  const char* Name() const override { return "ckpt.ListAppend"; }
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

rocksdb::ColumnFamilyOptions RocksDbInstance::CfOptions() {
  rocksdb::ColumnFamilyOptions o;
  o.merge_operator = std::make_shared<ListAppendOperator>();
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
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, CfOptions());
  for (const std::string& n : column_families) {
    if (n != rocksdb::kDefaultColumnFamilyName) descriptors.emplace_back(n, CfOptions());
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
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, CfOptions());
  for (const std::string& n : all) {
    if (n != rocksdb::kDefaultColumnFamilyName) descriptors.emplace_back(n, CfOptions());
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
  CKPT_RETURN_IF_ERROR(FromRocks(db_->CreateColumnFamily(CfOptions(), name, &h),
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

void AppendKeyGroup(uint32_t key_group, std::string* out) {
  out->push_back(static_cast<char>((key_group >> 8) & 0xFF));
  out->push_back(static_cast<char>(key_group & 0xFF));
}

void AppendEscaped(std::string_view bytes, std::string* out) {
  for (char c : bytes) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
  }
  out->push_back('\0');
  out->push_back('\x01');
}

namespace {

bool ReadEscaped(std::string_view* in, std::string* out) {
  out->clear();
  size_t i = 0;
  while (i < in->size()) {
    const char c = (*in)[i];
    if (c != '\0') {
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= in->size()) return false;
    const char next = (*in)[i + 1];
    if (next == '\x01') {
      in->remove_prefix(i + 2);
      return true;
    }
    if (next != '\xff') return false;
    out->push_back('\0');
    i += 2;
  }
  return false;
}

}  // namespace

bool ParseStateKey(std::string_view bytes, ParsedKey* out) {
  if (bytes.size() < 2) return false;
  out->key_group = (static_cast<uint32_t>(static_cast<unsigned char>(bytes[0])) << 8) |
                   static_cast<unsigned char>(bytes[1]);
  bytes.remove_prefix(2);
  if (!ReadEscaped(&bytes, &out->key) || !ReadEscaped(&bytes, &out->ns)) return false;
  out->user_key = bytes;
  return true;
}

std::string KeyGroupStart(uint32_t key_group) {
  std::string s;
  if (key_group > 0xFFFF) return std::string("\x01\x00\x00", 3);  // past every key group
  AppendKeyGroup(key_group, &s);
  return s;
}

base::Result<format::Value> DecodeListValue(const pb::TypeDescriptor& element_type,
                                            std::string_view bytes, const std::string& state) {
  format::List list;
  while (!bytes.empty()) {
    base::Result<format::Value> v = format::DecodeValue(element_type, &bytes);
    if (!v.ok()) return v.status().WithContext("list state '" + state + "'");
    list.elements.push_back(std::move(*v));
  }
  return format::Value(std::move(list));
}

base::Result<uint64_t> CopyFileBetween(base::Fs& from_fs, const std::string& from, base::Fs& to_fs,
                                       const std::string& to, uint64_t* size) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<base::RandomAccessFile> in, from_fs.OpenRead(from));
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<base::WritableFile> out, to_fs.OpenWriteExclusive(to));
  base::Xxh3Stream hash;
  std::string buf(1 << 20, '\0');
  const uint64_t total = in->Size();
  uint64_t offset = 0;
  while (offset < total) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), total - offset));
    CKPT_ASSIGN_OR_RETURN(size_t got, in->ReadAt(offset, want, buf.data()));
    if (got == 0) return base::Status::IOError(from + ": short read at " + std::to_string(offset));
    std::string_view chunk(buf.data(), got);
    hash.Update(chunk);
    CKPT_RETURN_IF_ERROR(out->Append(chunk));
    offset += got;
  }
  CKPT_RETURN_IF_ERROR(out->Sync());
  CKPT_RETURN_IF_ERROR(out->Close());
  *size = total;
  return hash.Digest();
}

}  // namespace ckpt::engine::state_internal
