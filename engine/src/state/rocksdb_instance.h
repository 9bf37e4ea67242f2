// RocksDbInstance: one open RocksDB database of a RocksDbKeyedStateBackend (its column families,
// the list merge operator) shared with the snapshots taken from it, and the key layout of the
// backend (see rocksdb_keyed_state_backend.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/rocksdb_key_layout.h"
#include "ckpt/format/value.h"
#include "rocksdb/db.h"

namespace ckpt::engine::state_internal {

class RocksDbInstance {
 public:
  // Opens (creating if missing) the database in `db_dir` with `column_families` (besides
  // "default"; for an existing database every column family it has, see ListColumnFamilies); `root` (removed with everything under it when the instance is destroyed) holds
  // `db_dir` and the local checkpoint directories. IOError naming the directory on failure.
  static base::Result<std::shared_ptr<RocksDbInstance>> Open(
      const std::string& root, const std::string& db_dir,
      const std::vector<std::string>& column_families);
  // Opens a restored copy read-only (no root to remove). `column_families` empty: all the
  // database has (DB::ListColumnFamilies).
  static base::Result<std::shared_ptr<RocksDbInstance>> OpenReadOnly(
      const std::string& db_dir, const std::vector<std::string>& column_families);
  ~RocksDbInstance();

  rocksdb::DB* db() const { return db_.get(); }
  // The instance no longer removes its root when destroyed (another instance took it over).
  void ReleaseRoot() { root_.clear(); }
  const std::string& root() const { return root_; }
  const std::string& db_dir() const { return db_dir_; }
  // The column family `name`, created if absent (never null on OK).
  base::Result<rocksdb::ColumnFamilyHandle*> ColumnFamily(const std::string& name);
  // The column family `name` or null.
  rocksdb::ColumnFamilyHandle* FindColumnFamily(const std::string& name) const;
  std::vector<std::string> ColumnFamilyNames() const;

  // Write/read options of the backend: no WAL (checkpoints are the durability).
  const rocksdb::WriteOptions& write_options() const { return write_options_; }

 private:
  RocksDbInstance() = default;
  // `in_place`: in-place updates of memtable entries (the read-write instance).
  static rocksdb::ColumnFamilyOptions CfOptions(bool in_place);
  std::string root_;
  std::string db_dir_;
  std::unique_ptr<rocksdb::DB> db_;
  mutable std::mutex mu_;
  std::map<std::string, rocksdb::ColumnFamilyHandle*> cfs_;
  rocksdb::WriteOptions write_options_;
};

// The column families of the database in `db_dir` (empty if there is none yet).
std::vector<std::string> ListColumnFamilies(const std::string& db_dir);

// IOError (or Corruption) with `context` for a failed RocksDB call.
base::Status FromRocks(const rocksdb::Status& s, const std::string& context);

// The key layout and LIST values (format/rocksdb_key_layout.h: the tools read them too).
using format::rocksdb_layout::AppendEscaped;
using format::rocksdb_layout::AppendKeyGroup;
using format::rocksdb_layout::DecodeListValue;
using format::rocksdb_layout::KeyGroupStart;
using format::rocksdb_layout::ParsedKey;
using format::rocksdb_layout::ParseStateKey;

// Copies `from` (on `from_fs`) to `to` (on `to_fs`, created exclusively, fsynced if `sync`) and
// returns the XXH3-64 of the bytes; `*size` receives their number.
base::Result<uint64_t> CopyFileBetween(base::Fs& from_fs, const std::string& from, base::Fs& to_fs,
                                       const std::string& to, uint64_t* size, bool sync = true);
// The XXH3-64 of the file `path`; `*size` receives its size.
base::Result<uint64_t> HashFile(base::Fs& fs, const std::string& path, uint64_t* size);

}  // namespace ckpt::engine::state_internal
