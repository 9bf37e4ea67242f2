// ReadRocksDbSnapshot: see rocksdb_snapshot.h.
#include "ckpt/flink/rocksdb_snapshot.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/version.h>

#include <algorithm>
#include <memory>

namespace ckpt::flink {
namespace {

using base::Status;

constexpr uint64_t kBlockBasedMagic = 0x88e241b785f4cff7ull;
constexpr uint64_t kLegacyBlockBasedMagic = 0xdb4775248b80fb57ull;
const char* const kDbDir = "/flink-rocksdb";
constexpr int kNewestFormatVersion = 5;  // the newest block-based table format RocksDB 7.8 writes

uint64_t Le(std::string_view b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(b[at + static_cast<size_t>(i)]);
  return v;
}

// Flink's list state merge operator: RocksDB's StringAppendTESTOperator with ',' (its name is
// recorded in the OPTIONS file and checked by nothing here).
class StringAppend : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    new_value->clear();
    if (existing != nullptr) {
      new_value->assign(existing->data(), existing->size());
      new_value->push_back(',');
    }
    new_value->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "stringappendtest"; }
};

// The engine's list merge operator (format/rocksdb_key_layout.h): operands appended as they are.
class Concatenate : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    new_value->clear();
    if (existing != nullptr) new_value->assign(existing->data(), existing->size());
    new_value->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "ckpt.ListAppend"; }
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// RocksDB names the files of the in-memory instance by their path in it; a message for the user
// names the file on disk each was copied from instead. A name the instance looked for but was
// not given (e.g. the MANIFEST that CURRENT names) has no file on disk: say so.
std::string RealPaths(const std::string& message, const std::vector<RocksDbFile>& files) {
  const std::string_view dir(kDbDir);
  std::string out;
  size_t pos = 0;
  for (size_t at = message.find(dir); at != std::string::npos; at = message.find(dir, pos)) {
    out.append(message, pos, at - pos);
    size_t end = at + dir.size();
    if (end >= message.size() || message[end] != '/') {  // the directory, as in "opening /x"
      out += "the RocksDB instance";
      pos = end;
      continue;
    }
    const size_t name_at = end + 1;
    end = message.find_first_of(" :,)'\"", name_at);
    if (end == std::string::npos) end = message.size();
    const std::string name = message.substr(name_at, end - name_at);
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const RocksDbFile& f) { return f.local_name == name; });
    out += it != files.end() ? it->source + " (" + name + ")"
                             : "RocksDB file " + name + " (not among the files of the handle)";
    pos = end;
  }
  out.append(message, pos, std::string::npos);
  return out;
}

// The instance named by its files on disk, for messages that concern no single file.
std::string InstanceName(const std::vector<RocksDbFile>& files) {
  std::string out = "RocksDB instance of " + std::to_string(files.size()) + " file(s)";
  for (const RocksDbFile& f : files) {
    if (f.local_name == "CURRENT") return out + " (CURRENT: " + f.source + ")";
  }
  if (!files.empty()) out += " (" + files.front().local_name + ": " + files.front().source + ")";
  return out;
}

}  // namespace

int SstFormatVersion(std::string_view sst) {
  if (sst.size() < 12) return -1;
  const uint64_t magic = Le(sst, sst.size() - 8, 8);
  if (magic == kLegacyBlockBasedMagic) return 0;
  if (magic != kBlockBasedMagic) return -1;
  return static_cast<int>(Le(sst, sst.size() - 12, 4));
}

std::string RocksDbVersion() {
  return "RocksDB " + std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
         std::to_string(ROCKSDB_PATCH);
}

Status ReadRocksDbSnapshot(const std::vector<RocksDbFile>& files, const RocksDbSink& sink,
                           RocksDbListMerge merge) {
  std::unique_ptr<rocksdb::Env> env(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  if (!env->CreateDirIfMissing(kDbDir).ok()) return Status::IOError("RocksDB in-memory Env");
  bool current = false;
  for (const RocksDbFile& f : files) {
    if (f.local_name.empty() || f.local_name.find('/') != std::string::npos || f.local_name == "." ||
        f.local_name == "..") {
      return Status::Corruption(f.source + ": RocksDB file name '" + f.local_name + "' is not a plain name");
    }
    current |= f.local_name == "CURRENT";
    std::unique_ptr<rocksdb::WritableFile> w;
    const std::string path = std::string(kDbDir) + "/" + f.local_name;
    rocksdb::Status s = env->NewWritableFile(path, &w, rocksdb::EnvOptions());
    if (s.ok()) s = w->Append(rocksdb::Slice(f.bytes));
    if (s.ok()) s = w->Close();
    if (!s.ok()) {
      return Status::IOError(f.source + ": copying into RocksDB's in-memory Env: " +
                             RealPaths(s.ToString(), files));
    }
  }
  if (!current) return Status::Corruption(InstanceName(files) + ": no CURRENT file among them");

  rocksdb::Options options;
  options.env = env.get();
  if (merge == RocksDbListMerge::kConcatenate) {
    options.merge_operator = std::make_shared<Concatenate>();
  } else {
    options.merge_operator = std::make_shared<StringAppend>();
  }
  options.create_if_missing = false;
  options.info_log_level = rocksdb::InfoLogLevel::HEADER_LEVEL;
  // Every SST through SstFileReader first: a file this RocksDB cannot read is named with its
  // table format version, before the instance open reports it less precisely.
  for (const RocksDbFile& f : files) {
    if (!EndsWith(f.local_name, ".sst")) continue;
    rocksdb::SstFileReader reader(options);
    rocksdb::Status s = reader.Open(std::string(kDbDir) + "/" + f.local_name);
    if (s.ok()) s = reader.VerifyChecksum();
    if (!s.ok()) {
      const int v = SstFormatVersion(f.bytes);
      const std::string version =
          v < 0 ? std::string("no block-based table footer") : "table format version " + std::to_string(v);
      // A format this RocksDB does not know (newer than 5, or not a block-based table) is a
      // limit of this build; anything else it reports as corruption is a damaged file.
      if (!s.IsCorruption() || v < 0 || v > kNewestFormatVersion) {
        return Status::Unimplemented(f.source + " (" + f.local_name + "): " + RocksDbVersion() +
                                     " cannot read this SST (" + version +
                                     "): " + RealPaths(s.ToString(), files));
      }
      return Status::Corruption(f.source + " (" + f.local_name + "): damaged SST (" + version +
                                "): " + RealPaths(s.ToString(), files));
    }
  }
  std::vector<std::string> names;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(options, kDbDir, &names);
  if (!s.ok()) {
    return Status::Corruption(InstanceName(files) + ": listing column families: " +
                              RealPaths(s.ToString(), files));
  }
  std::sort(names.begin(), names.end());
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  for (const auto& n : names) cfs.emplace_back(n, rocksdb::ColumnFamilyOptions(options));
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(options), kDbDir, cfs, &handles, &raw);
  if (!s.ok()) {
    return Status::Corruption(InstanceName(files) + ": " + RocksDbVersion() +
                              " cannot open it: " + RealPaths(s.ToString(), files));
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  Status result = Status::OK();
  for (size_t i = 0; i < handles.size() && result.ok(); ++i) {
    if (names[i] == rocksdb::kDefaultColumnFamilyName) continue;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), handles[i]));
    for (it->SeekToFirst(); it->Valid() && result.ok(); it->Next()) {
      result = sink({names[i], std::string_view(it->key().data(), it->key().size()),
                     std::string_view(it->value().data(), it->value().size())});
    }
    if (result.ok() && !it->status().ok()) {
      result = Status::Corruption(InstanceName(files) + ": column family '" + names[i] +
                                  "': " + RealPaths(it->status().ToString(), files));
    }
  }
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
  return result;
}

}  // namespace ckpt::flink
