// ChangelogLog: the per-subtask state changelog of the changelog backend (Flink's DSTL, durable short-term log) and the
// bookkeeping of the files it and the materializations put into the job's shared/ directory.
//
// Changes are appended (task thread) to an open batch; a batch is sealed into a segment when it
// reaches `upload_size_bytes`, when its oldest change is `upload_interval_ms` old, or when a
// checkpoint or materialization needs every change up to now. A background writer thread uploads
// sealed segments in order, each as one CHANGELOG container `<stem>/changelog-<token>-<from>-<to>
// [-<attempt>].log` under shared/, as soon as it knows where (the first checkpoint tells it), so
// a checkpoint's async part waits only for the tail sealed at its sync phase.
//
// Ownership of the files: a file goes to the completed-checkpoint store (which reference-counts
// and deletes it) once a completed checkpoint referenced it. Until then this log owns it and
// deletes it once it is neither current (the base and segments later checkpoints reference) nor
// referenced by a pending checkpoint; a checkpoint that is never confirmed either way keeps its
// files (prune finds them). A kill -9 leaves only files under shared/ that no `_metadata`
// references, which prune removes.
//
// Thread-safety: every member is guarded by `mu` (task thread, writer thread, materializer thread,
// async parts).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/status.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"

namespace ckpt::engine::state_internal {

using LogClock = std::chrono::steady_clock;

// A run of consecutive changes, uploaded as one file.
struct ChangelogSegment {
  enum class State { kSealed, kUploading, kDurable, kFailed };
  uint64_t from = 0, to = 0;  // sequences, inclusive
  std::vector<std::string> records;  // encoded ChangelogRecords, until durable
  State state = State::kSealed;
  base::Status error;  // kFailed
  int attempts = 0;
  // Durable: the file (relative to shared/) and the records' slice in it.
  std::string path;
  uint64_t offset = 0, length = 0;
  uint64_t size_bytes = 0, checksum_xxh3 = 0;
  pb::Compression compression = pb::COMPRESSION_NONE;
  int64_t first_checkpoint = 0;  // the first checkpoint that referenced it (0: none yet)
  bool registered = false;       // a completed checkpoint referenced it: the store owns the file
};

// A materialization of the wrapped backend: its handles and files (SHARED, relative to shared/).
struct ChangelogBase {
  int64_t id = 0;         // materialization id (the checkpoint during which it was taken)
  uint64_t sequence = 0;  // every change up to here is in it
  std::vector<pb::KeyedStateHandle> handles;
  std::vector<pb::FileEntry> files;
  uint64_t created_bytes = 0;  // of the files it uploaded itself (created_by_checkpoint_id == id)
  int64_t first_checkpoint = 0;
  bool registered = false;
};

using SegmentPtr = std::shared_ptr<ChangelogSegment>;
using BasePtr = std::shared_ptr<ChangelogBase>;

struct ChangelogLogOptions {
  uint64_t upload_size_bytes = 0;    // 0: no size trigger
  uint64_t upload_interval_ms = 0;   // 0: no time trigger
};

class ChangelogLog {
 public:
  explicit ChangelogLog(ChangelogLogOptions options);
  ~ChangelogLog();  // Shutdown()

  // Task thread. Appends one change; returns its sequence number.
  uint64_t Append(format::ChangeOp op, uint32_t state, uint32_t key_group, std::string_view key,
                  std::string_view ns, std::string_view user_key, std::string_view value);
  uint64_t last_sequence() const;

  // Where segments go: the first call wins (the job's shared/ directory, the subtask's file
  // stem, the Fs and container options); starts the writer thread.
  void SetTarget(base::Fs* fs, const std::string& shared_dir, const std::string& stem,
                 const SnapshotWriteOptions& write);
  bool has_target() const;
  struct Target {
    base::Fs* fs = nullptr;
    std::string shared_dir, stem;
    SnapshotWriteOptions write;
  };
  Target target() const;

  // Seals the open batch and returns the current segments (every change after the current base
  // up to now), marking `checkpoint_id` as their first referrer where they had none.
  std::vector<SegmentPtr> SealForCheckpoint(int64_t checkpoint_id);
  // Seals the open batch (a materialization starts at last_sequence()).
  void Seal();
  // Waits until every segment is durable. A segment whose earlier upload failed is retried
  // once; IOError if an upload fails, Cancelled on Shutdown.
  base::Status WaitDurable(const std::vector<SegmentPtr>& segments);
  // The FileEntry of a durable segment.
  pb::FileEntry EntryOf(const ChangelogSegment& segment) const;

  // The current base (null: none yet) and its replacement: segments up to its sequence leave the
  // current set.
  BasePtr base() const;
  void Adopt(BasePtr base);
  std::vector<SegmentPtr> segments() const;

  // Pending checkpoints and what they reference (for ownership).
  void AddPending(int64_t checkpoint_id, BasePtr base, std::vector<SegmentPtr> segments);
  void SetPendingBase(int64_t checkpoint_id, BasePtr base);
  // Completed: what it and every earlier pending checkpoint referenced now belongs to the store.
  void Complete(int64_t checkpoint_id);
  void Abort(int64_t checkpoint_id);
  // A materialization that will never become current (its files are ours to delete).
  void Discard(BasePtr base);
  // Deletes the files this log owns that nothing current or pending references.
  void CollectGarbage();

  // Stops the writer (waiters get Cancelled) and collects garbage; idempotent.
  void Shutdown();

  struct Stats {
    uint64_t appended = 0;
    uint64_t in_memory = 0;  // changes not yet durable
    uint64_t current_segments = 0;
    uint64_t durable_segments = 0;  // uploaded since the log started
    uint64_t files_deleted = 0;     // by this log
  };
  Stats stats() const;

  const std::string& token() const { return token_; }

 private:
  void SealLocked();
  void WriterLoop();
  base::Status Upload(const Target& t, ChangelogSegment& s, const std::string& rel);
  // Files of `b` and `s` (relative to shared/).
  static void FilesOf(const ChangelogBase& b, std::set<std::string>* out);
  void CollectGarbageLocked();

  const ChangelogLogOptions options_;
  const std::string token_;
  mutable std::mutex mu_;
  std::condition_variable cv_;

  uint64_t next_seq_ = 1;
  uint64_t appended_ = 0;
  std::vector<std::string> open_;  // the open batch
  uint64_t open_from_ = 0, open_bytes_ = 0;
  LogClock::time_point open_since_{};

  Target target_;
  bool has_target_ = false;
  std::thread writer_;
  bool stop_ = false;
  uint64_t durable_segments_ = 0;
  uint64_t files_deleted_ = 0;

  BasePtr base_;
  std::vector<SegmentPtr> segments_;  // current, contiguous after base_->sequence
  std::deque<SegmentPtr> upload_queue_;  // sealed, not yet durable, in order
  struct Pending {
    BasePtr base;
    std::vector<SegmentPtr> segments;
  };
  std::map<int64_t, Pending> pending_;
  // Objects that left the current set or never joined it, until they are registered or deleted.
  std::vector<BasePtr> dropped_bases_;
  std::vector<SegmentPtr> dropped_segments_;
  // Files a completed checkpoint referenced (the store owns them), of objects still tracked.
  std::set<std::string> registered_files_;
};

}  // namespace ckpt::engine::state_internal
