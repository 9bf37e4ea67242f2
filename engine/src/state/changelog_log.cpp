// ChangelogLog: appending, sealing, the background writer, and the ownership of the files (see
// changelog_log.h).
#include "state/changelog_log.h"

#include <algorithm>
#include <random>
#include <utility>

#include "ckpt/format/state_file_writer.h"

namespace ckpt::engine::state_internal {

namespace {

std::string RandomToken() {
  static const char* kHex = "0123456789abcdef";
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(kHex[gen() & 15]);
  return s;
}

bool Referenced(const std::map<int64_t, std::vector<const void*>>& refs, const void* p) {
  for (const auto& [id, objects] : refs) {
    if (std::find(objects.begin(), objects.end(), p) != objects.end()) return true;
  }
  return false;
}

}  // namespace

ChangelogLog::ChangelogLog(ChangelogLogOptions options)
    : options_(options), token_(RandomToken()) {}

ChangelogLog::~ChangelogLog() { Shutdown(); }

uint64_t ChangelogLog::Append(format::ChangeOp op, uint32_t state, uint32_t key_group,
                              std::string_view key, std::string_view ns,
                              std::string_view user_key, std::string_view value) {
  format::ChangelogRecord r;
  r.op = op;
  r.key_group = key_group;
  r.change.state_index = state;
  r.change.key = key;
  r.change.ns = ns;
  r.change.user_key = user_key;
  r.change.value = value;
  std::lock_guard<std::mutex> lock(mu_);
  r.sequence = next_seq_++;
  std::string bytes;
  format::EncodeChangelogRecord(r, &bytes);
  if (open_.empty()) {
    open_from_ = r.sequence;
    open_since_ = LogClock::now();
  }
  open_bytes_ += bytes.size();
  open_.push_back(std::move(bytes));
  ++appended_;
  if (options_.upload_size_bytes > 0 && open_bytes_ >= options_.upload_size_bytes) {
    SealLocked();
    cv_.notify_all();
  } else if (open_.size() == 1 && options_.upload_interval_ms > 0) {
    cv_.notify_all();  // the writer's timer starts with the batch
  }
  return r.sequence;
}

uint64_t ChangelogLog::last_sequence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_seq_ - 1;
}

void ChangelogLog::SealLocked() {
  if (open_.empty()) return;
  auto s = std::make_shared<ChangelogSegment>();
  s->from = open_from_;
  s->to = next_seq_ - 1;
  s->records = std::move(open_);
  open_.clear();
  open_bytes_ = 0;
  segments_.push_back(s);
  upload_queue_.push_back(std::move(s));
}

void ChangelogLog::Seal() {
  std::lock_guard<std::mutex> lock(mu_);
  SealLocked();
  cv_.notify_all();
}

void ChangelogLog::SetTarget(base::Fs* fs, const std::string& shared_dir, const std::string& stem,
                             const SnapshotWriteOptions& write) {
  std::lock_guard<std::mutex> lock(mu_);
  if (has_target_ || stop_) return;
  target_.fs = fs;
  target_.shared_dir = shared_dir;
  target_.stem = stem;
  target_.write = write;
  has_target_ = true;
  writer_ = std::thread([this] { WriterLoop(); });
}

bool ChangelogLog::has_target() const {
  std::lock_guard<std::mutex> lock(mu_);
  return has_target_;
}

ChangelogLog::Target ChangelogLog::target() const {
  std::lock_guard<std::mutex> lock(mu_);
  return target_;
}

std::vector<SegmentPtr> ChangelogLog::SealForCheckpoint(int64_t checkpoint_id) {
  std::lock_guard<std::mutex> lock(mu_);
  SealLocked();
  cv_.notify_all();
  for (const SegmentPtr& s : segments_) {
    if (s->first_checkpoint == 0) s->first_checkpoint = checkpoint_id;
  }
  return segments_;
}

void ChangelogLog::WriterLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (options_.upload_interval_ms > 0 && !open_.empty() &&
        LogClock::now() - open_since_ >= std::chrono::milliseconds(options_.upload_interval_ms)) {
      SealLocked();
    }
    SegmentPtr next;
    // Without a base, no checkpoint references a segment: the first materialization (taken
    // synchronously by a checkpoint) covers every change before it, and the segments after it
    // are needed only once it is adopted.
    for (const SegmentPtr& s : base_ ? upload_queue_ : std::deque<SegmentPtr>()) {
      if (s->state == ChangelogSegment::State::kSealed) {
        next = s;
        break;
      }
      if (s->state == ChangelogSegment::State::kUploading) break;  // in order
    }
    if (next) {
      next->state = ChangelogSegment::State::kUploading;
      const int attempt = next->attempts++;
      const Target t = target_;
      std::string rel = t.stem + "/changelog-" + token_ + "-" + std::to_string(next->from) + "-" +
                        std::to_string(next->to) +
                        (attempt > 0 ? "-" + std::to_string(attempt) : std::string()) + ".log";
      lock.unlock();
      // The records are immutable once sealed; only this thread reads them until durable.
      base::Status st = Upload(t, *next, rel);
      lock.lock();
      if (st.ok()) {
        next->state = ChangelogSegment::State::kDurable;
        next->path = std::move(rel);
        next->records.clear();
        next->records.shrink_to_fit();
        ++durable_segments_;
        upload_queue_.erase(std::find(upload_queue_.begin(), upload_queue_.end(), next));
        // Truncated while it uploaded: it may be garbage already.
        if (std::find(dropped_segments_.begin(), dropped_segments_.end(), next) !=
            dropped_segments_.end()) {
          CollectGarbageLocked();
        }
      } else {
        next->state = ChangelogSegment::State::kFailed;
        next->error = st;
      }
      cv_.notify_all();
      continue;
    }
    if (options_.upload_interval_ms > 0 && !open_.empty()) {
      cv_.wait_until(lock, open_since_ + std::chrono::milliseconds(options_.upload_interval_ms));
    } else {
      cv_.wait(lock);
    }
  }
}

base::Status ChangelogLog::Upload(const Target& t, ChangelogSegment& s, const std::string& rel) {
  const std::string path = base::JoinPath(t.shared_dir, rel);
  CKPT_RETURN_IF_ERROR(t.fs->CreateDirs(base::DirName(path)));
  format::StateFileWriterOptions wo;
  wo.kind = pb::CHANGELOG;
  wo.compression = t.write.compression;
  wo.block_size_bytes = t.write.block_size_bytes;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileWriter> w,
                        format::StateFileWriter::Create(*t.fs, path, wo));
  base::Status st = w->BeginSection(0);
  const uint64_t offset = w->logical_offset();
  for (size_t i = 0; st.ok() && i < s.records.size(); ++i) st = w->Add(s.records[i]).status();
  const uint64_t length = w->logical_offset() - offset;
  if (!st.ok()) {
    w->Abandon();
    return st.WithContext(path);
  }
  base::Result<format::StateFileSummary> done = w->Finish();
  if (!done.ok()) {
    w->Abandon();
    return done.status();
  }
  // Fields read by others only once the state is kDurable (under the lock).
  s.offset = offset;
  s.length = length;
  s.size_bytes = done->size_bytes;
  s.checksum_xxh3 = done->checksum_xxh3;
  s.compression = done->compression;
  return base::Status::OK();
}

base::Status ChangelogLog::WaitDurable(const std::vector<SegmentPtr>& segments) {
  std::unique_lock<std::mutex> lock(mu_);
  bool retried = false;
  for (const SegmentPtr& s : segments) {
    if (s->state == ChangelogSegment::State::kFailed) {
      s->state = ChangelogSegment::State::kSealed;  // retried for this checkpoint
      retried = true;
    }
  }
  if (retried) cv_.notify_all();
  for (;;) {
    if (stop_) return base::Status::Cancelled("changelog writer stopped");
    bool all = true;
    for (const SegmentPtr& s : segments) {
      if (s->state == ChangelogSegment::State::kFailed) {
        return s->error.WithContext("uploading changelog segment " + std::to_string(s->from) +
                                    ".." + std::to_string(s->to));
      }
      if (s->state != ChangelogSegment::State::kDurable) all = false;
    }
    if (all) return base::Status::OK();
    if (!has_target_) {
      return base::Status::FailedPrecondition("changelog writer has no upload location");
    }
    cv_.wait(lock);
  }
}

pb::FileEntry ChangelogLog::EntryOf(const ChangelogSegment& s) const {
  std::lock_guard<std::mutex> lock(mu_);
  pb::FileEntry f;
  f.set_path(s.path);
  f.set_scope(pb::SHARED);
  f.set_kind(pb::CHANGELOG);
  f.set_size_bytes(s.size_bytes);
  f.set_checksum_xxh3(s.checksum_xxh3);
  f.set_compression(s.compression);
  f.set_created_by_checkpoint_id(s.first_checkpoint);
  return f;
}

BasePtr ChangelogLog::base() const {
  std::lock_guard<std::mutex> lock(mu_);
  return base_;
}

std::vector<SegmentPtr> ChangelogLog::segments() const {
  std::lock_guard<std::mutex> lock(mu_);
  return segments_;
}

void ChangelogLog::Adopt(BasePtr b) {
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();  // the writer may upload now
  if (base_) dropped_bases_.push_back(base_);
  base_ = std::move(b);
  // Segments never straddle a materialization (it seals first): those up to it leave.
  auto keep = std::stable_partition(segments_.begin(), segments_.end(), [&](const SegmentPtr& s) {
    return s->from > base_->sequence;
  });
  for (auto it = keep; it != segments_.end(); ++it) dropped_segments_.push_back(*it);
  segments_.erase(keep, segments_.end());
  CollectGarbageLocked();
}

void ChangelogLog::AddPending(int64_t checkpoint_id, BasePtr b, std::vector<SegmentPtr> segments) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_[checkpoint_id] = Pending{std::move(b), std::move(segments)};
}

void ChangelogLog::SetPendingBase(int64_t checkpoint_id, BasePtr b) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(checkpoint_id);
  if (it != pending_.end()) it->second.base = std::move(b);
}

void ChangelogLog::FilesOf(const ChangelogBase& b, std::set<std::string>* out) {
  for (const pb::FileEntry& f : b.files) out->insert(f.path());
}

void ChangelogLog::Complete(int64_t checkpoint_id) {
  std::lock_guard<std::mutex> lock(mu_);
  // Earlier pending checkpoints were subsumed: whether they completed is unknown here, so their
  // files are left to the store (or to prune).
  for (auto it = pending_.begin(); it != pending_.end() && it->first <= checkpoint_id;) {
    Pending& p = it->second;
    if (p.base) {
      p.base->registered = true;
      FilesOf(*p.base, &registered_files_);
    }
    for (const SegmentPtr& s : p.segments) {
      s->registered = true;
      if (!s->path.empty()) registered_files_.insert(s->path);
    }
    it = pending_.erase(it);
  }
  CollectGarbageLocked();
}

void ChangelogLog::Abort(int64_t checkpoint_id) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.erase(checkpoint_id);
  CollectGarbageLocked();
}

void ChangelogLog::Discard(BasePtr b) {
  std::lock_guard<std::mutex> lock(mu_);
  dropped_bases_.push_back(std::move(b));
  CollectGarbageLocked();
}

void ChangelogLog::CollectGarbage() {
  std::lock_guard<std::mutex> lock(mu_);
  CollectGarbageLocked();
}

void ChangelogLog::CollectGarbageLocked() {
  if (!has_target_) return;  // nothing was uploaded yet
  // What current or pending state references stays.
  std::set<std::string> keep;
  std::map<int64_t, std::vector<const void*>> refs;
  if (base_) FilesOf(*base_, &keep);
  for (const SegmentPtr& s : segments_) keep.insert(s->path);
  for (const auto& [id, p] : pending_) {
    if (p.base) {
      FilesOf(*p.base, &keep);
      refs[id].push_back(p.base.get());
    }
    for (const SegmentPtr& s : p.segments) {
      keep.insert(s->path);
      refs[id].push_back(s.get());
    }
  }
  base::Fs& fs = *target_.fs;
  auto remove = [&](const std::string& rel) {
    if (rel.empty() || keep.count(rel) != 0 || registered_files_.count(rel) != 0) return;
    if (fs.RemoveFile(base::JoinPath(target_.shared_dir, rel)).ok()) ++files_deleted_;
  };
  for (auto it = dropped_segments_.begin(); it != dropped_segments_.end();) {
    ChangelogSegment& s = **it;
    if (s.registered) {
      it = dropped_segments_.erase(it);
      continue;
    }
    if (Referenced(refs, &s) || s.state == ChangelogSegment::State::kUploading) {
      ++it;
      continue;
    }
    if (s.state == ChangelogSegment::State::kDurable) {
      remove(s.path);
    } else {  // never uploaded and nobody waits for it
      auto q = std::find(upload_queue_.begin(), upload_queue_.end(), *it);
      if (q != upload_queue_.end()) upload_queue_.erase(q);
    }
    it = dropped_segments_.erase(it);
  }
  for (auto it = dropped_bases_.begin(); it != dropped_bases_.end();) {
    ChangelogBase& b = **it;
    if (b.registered) {
      it = dropped_bases_.erase(it);
      continue;
    }
    if (Referenced(refs, &b)) {
      ++it;
      continue;
    }
    for (const pb::FileEntry& f : b.files) {
      if (f.created_by_checkpoint_id() == b.id) remove(f.path());
    }
    it = dropped_bases_.erase(it);
  }
  // Registered files matter only while a base that created them may still be collected.
  std::set<std::string> created;
  auto add_created = [&](const BasePtr& b) {
    if (!b) return;
    for (const pb::FileEntry& f : b->files) {
      if (f.created_by_checkpoint_id() == b->id) created.insert(f.path());
    }
  };
  add_created(base_);
  for (const auto& [id, p] : pending_) add_created(p.base);
  for (const BasePtr& b : dropped_bases_) add_created(b);
  for (auto it = registered_files_.begin(); it != registered_files_.end();) {
    it = created.count(*it) != 0 ? std::next(it) : registered_files_.erase(it);
  }
}

void ChangelogLog::Shutdown() {
  std::thread writer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
    cv_.notify_all();
    writer = std::move(writer_);
  }
  if (writer.joinable()) writer.join();
  std::lock_guard<std::mutex> lock(mu_);
  // Current objects no completed checkpoint referenced are ours: none will reference them now.
  // Pending checkpoints' objects stay (they may still complete).
  if (base_) dropped_bases_.push_back(base_);
  base_.reset();
  for (const SegmentPtr& s : segments_) dropped_segments_.push_back(s);
  segments_.clear();
  CollectGarbageLocked();
}

ChangelogLog::Stats ChangelogLog::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats st;
  st.appended = appended_;
  st.in_memory = open_.size();
  for (const SegmentPtr& s : upload_queue_) st.in_memory += s->records.size();
  st.current_segments = segments_.size();
  st.durable_segments = durable_segments_;
  st.files_deleted = files_deleted_;
  return st;
}

}  // namespace ckpt::engine::state_internal
