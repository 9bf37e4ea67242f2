// validate: every referenced file — presence, size, whole-file XXH3 (large sequential reads),
// state-file containers (header/footer/index, block checksums, agreement with the handles) and,
// with --deep, every record decoded through the declared types.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "ckpt/base/checksum.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/state_file_reader.h"
#include "model/snapshot_raw.h"
#include "formats/own/validate_groups.h"
#include "formats/own/validate_read_once.h"
#include "validate/parallel_checks.h"

namespace ckpt::ops::internal {
namespace {

bool IsContainer(FileKind k) {
  return k == FileKind::kKeyedState || k == FileKind::kOperatorState ||
         k == FileKind::kChannelState || k == FileKind::kChangelog;
}

// The file's XXH3-64, reporting progress and honouring cancellation chunk by chunk.
base::Result<base::FileDigest> ChecksumFile(const base::RandomAccessFile& file,
                                            ValidateContext& ctx, SharedProgress& progress,
                                            std::string* buffer) {
  return base::Xxh3OfFile(file, buffer, [&](size_t n) {
    if (ctx.progress().cancelled()) return base::Status::Cancelled("validate cancelled");
    progress.Add(n, file.path());
    return base::Status::OK();
  });
}

const OperatorInfo* FindInfo(const Snapshot& s, const std::string& bytes) {
  const std::string hex =
      format::OperatorId::FromBytes(bytes).ValueOr(format::OperatorId()).ToHex();
  for (const auto& op : s.operators) {
    if (op.id_hex == hex) return &op;
  }
  return nullptr;
}

// Every use of every file, by file index.
std::multimap<uint32_t, FileUse> CollectUses(const Snapshot& s) {
  std::multimap<uint32_t, FileUse> uses;
  const auto& md = RawMetadata(s);
  for (const auto& os : md.operators()) {
    const OperatorInfo* info = FindInfo(s, os.operator_id());
    for (const auto& st : os.subtasks()) {
      FileUse base_use{&os, info, st.subtask_index(), nullptr, nullptr, {}};
      std::function<void(const pb::KeyedStateHandle&)> keyed = [&](const pb::KeyedStateHandle& h) {
        if (h.has_key_groups()) {
          FileUse u = base_use;
          u.key_groups = &h.key_groups();
          uses.emplace(h.key_groups().file_index(), u);
        }
        if (h.has_changelog()) {
          for (const auto& m : h.changelog().materialized()) keyed(m);
          for (const auto& seg : h.changelog().segments()) {
            FileUse u = base_use;
            u.slices.push_back(&seg.slice());
            uses.emplace(seg.slice().file_index(), u);
          }
        }
      };
      for (const auto& h : st.keyed_state()) keyed(h);
      for (const auto& h : st.operator_state()) {
        FileUse u = base_use;
        u.operator_handle = &h;
        uses.emplace(h.file_index(), u);
      }
      auto channel = [&](const google::protobuf::RepeatedPtrField<pb::FileSlice>& buffers) {
        for (const auto& b : buffers) {
          FileUse u = base_use;
          u.slices.push_back(&b);
          uses.emplace(b.file_index(), u);
        }
      };
      for (const auto& c : st.input_channel_state()) channel(c.buffers());
      for (const auto& c : st.output_channel_state()) channel(c.buffers());
    }
  }
  return uses;
}

}  // namespace

Location UseLocation(const FileUse& u, const SnapshotFile& f) {
  Location l = u.info != nullptr ? OperatorLocation(*u.info) : Location();
  l.file = PathFromSnapshot(f);
  l.subtask = u.subtask;
  return l;
}

namespace {


// Handles vs the container's footer index (no record reads).
void CheckContainerAgainstHandles(ValidateContext& ctx, const SnapshotFile& f,
                                  const format::StateFileReader& reader,
                                  const std::multimap<uint32_t, FileUse>& uses) {
  const format::StateFileIndex& index = reader.index();
  const auto range = uses.equal_range(f.index);
  for (auto it = range.first; it != range.second; ++it) {
    const FileUse& u = it->second;
    if (u.key_groups != nullptr) {
      const auto& kg = *u.key_groups;
      std::optional<uint32_t> bad_group;
      std::string why;
      for (const auto& sec : index.sections) {
        if (sec.section_id < kg.key_group_start() || sec.section_id > kg.key_group_end()) {
          bad_group = sec.section_id;
          why = "the container has key group " + std::to_string(sec.section_id) +
                " outside the handle's range [" + std::to_string(kg.key_group_start()) + ", " +
                std::to_string(kg.key_group_end()) + "]";
          break;
        }
      }
      for (uint32_t g = kg.key_group_start(); !bad_group && g <= kg.key_group_end(); ++g) {
        const size_t i = g - kg.key_group_start();
        if (i >= static_cast<size_t>(kg.key_group_record_counts_size())) break;
        auto sec = std::lower_bound(
            index.sections.begin(), index.sections.end(), g,
            [](const format::SectionInfo& s, uint32_t id) { return s.section_id < id; });
        const bool present = sec != index.sections.end() && sec->section_id == g;
        const uint64_t count = present ? sec->record_count : 0;
        if (count != kg.key_group_record_counts(static_cast<int>(i))) {
          bad_group = g;
          why = "key group " + std::to_string(g) + ": the handle records " +
                std::to_string(kg.key_group_record_counts(static_cast<int>(i))) +
                " record(s), the container " + std::to_string(count);
        } else if (present && count > 0 && i < static_cast<size_t>(kg.key_group_offsets_size()) &&
                   kg.key_group_offsets(static_cast<int>(i)) != sec->logical_offset) {
          bad_group = g;
          why = "key group " + std::to_string(g) + ": the handle's offset " +
                std::to_string(kg.key_group_offsets(static_cast<int>(i))) +
                " differs from the container's " + std::to_string(sec->logical_offset);
        }
      }
      if (bad_group) {
        Location l = UseLocation(u, f);
        l.key_group = *bad_group;
        ctx.Add("CKPT-K006", l, why);
      }
    }
    if (u.operator_handle != nullptr) {
      for (const auto& p : u.operator_handle->partitions()) {
        for (uint64_t off : p.entry_offsets()) {
          if (off >= index.logical_size) {
            ctx.Add("CKPT-F010", UseLocation(u, f),
                    "state '" + p.state_name() + "': entry offset " + std::to_string(off) +
                        " is beyond the container's " + std::to_string(index.logical_size) +
                        " bytes of records");
            break;
          }
        }
      }
    }
    for (const pb::FileSlice* sl : u.slices) {
      if (sl->offset() > index.logical_size || sl->length() > index.logical_size - sl->offset()) {
        ctx.Add("CKPT-F010", UseLocation(u, f),
                "slice [" + std::to_string(sl->offset()) + ", +" + std::to_string(sl->length()) +
                    ") is beyond the container's " + std::to_string(index.logical_size) +
                    " bytes of records");
      }
    }
  }
}

}  // namespace

namespace {

// --deep over a container whose size matches the metadata, reading it once: the record pass
// hashes the bytes as it reads them (HashingFile) and the rest of the file is hashed after it.
// When the checksum matches, the answer is complete (true) and is exactly CheckFile's: the
// checksum finds nothing, so no block search runs and the record pass runs with
// block_damage_reported = false, as CheckFile would. Otherwise the record pass's findings are
// dropped and `*digest` is set for CheckFile to continue as without this pass (false).
base::Result<bool> CheckContainerReadOnce(ValidateContext& ctx, const Snapshot& s,
                                          const SnapshotFile& f,
                                          const base::RandomAccessFile& file,
                                          const std::multimap<uint32_t, FileUse>& uses,
                                          SharedProgress& progress, std::string* buffer,
                                          std::optional<base::FileDigest>* digest) {
  HashingFile hashing(file, [&](size_t n) { progress.Add(n, f.resolved_path); });
  OneFileFs one_file(ctx.fs(), f.resolved_path, hashing);
  auto reader = format::StateFileReader::Open(one_file, f.resolved_path);
  ValidateReport deep_report;
  ValidateContext deep_ctx(ctx.fs(), ctx.options(), ctx.progress(), &deep_report);
  if (reader.ok()) {
    CKPT_RETURN_IF_ERROR(DeepCheckContainer(deep_ctx, s, f, **reader, uses, false));
  }
  CKPT_ASSIGN_OR_RETURN(base::FileDigest c, hashing.Finish(buffer, [&](size_t n) {
    if (ctx.progress().cancelled()) return base::Status::Cancelled("validate cancelled");
    progress.Add(n, file.path());
    return base::Status::OK();
  }));
  if (!c.complete || c.checksum != f.checksum_xxh3) {
    *digest = c;
    return false;
  }
  ctx.report().bytes_checked += c.bytes;
  const Location loc = FileLocation(f);
  if (!reader.ok()) {
    if (reader.status().code() == base::StatusCode::kIOError) return reader.status();
    ctx.Add("CKPT-F005", loc, reader.status().message());
    return true;
  }
  if (static_cast<int>((*reader)->index().kind) != static_cast<int>(f.kind)) {
    ctx.Add("CKPT-F009", loc,
            "the container holds " +
                std::string(FileKindName(static_cast<FileKind>((*reader)->index().kind))) +
                ", the file table says " + std::string(FileKindName(f.kind)));
  }
  CheckContainerAgainstHandles(ctx, f, **reader, uses);
  AppendReport(std::move(deep_report), ctx.report());
  progress.Add(f.size_bytes, f.resolved_path);
  return true;
}

// One file of the file table: presence, size, checksum, container and handles, and with --deep
// its records. Findings go to `ctx`; non-OK only when cancelled or on an I/O error other than
// absence.
base::Status CheckFile(ValidateContext& ctx, const Snapshot& s, const SnapshotFile& f,
                       const std::multimap<uint32_t, FileUse>& uses, SharedProgress& progress,
                       std::string* buffer) {
  if (f.resolved_path.empty()) return base::Status::OK();  // CKPT-F004 already reported
  base::Fs& fs = ctx.fs();
  const Location loc = FileLocation(f);
  auto file = fs.OpenRead(f.resolved_path);
  if (!file.ok()) {
    if (file.status().code() == base::StatusCode::kFailedPrecondition) {
      // A symbolic link, FIFO, socket or device: reported, never followed or read.
      ctx.Add("CKPT-F011", loc, "file #" + std::to_string(f.index) + ": " +
                                    file.status().message());
      return base::Status::OK();
    }
    if (!file.status().IsNotFound()) return file.status();
    ctx.Add("CKPT-F001", loc, "file #" + std::to_string(f.index) + " (" +
                                  std::string(FileKindName(f.kind)) + ", " +
                                  std::to_string(f.size_bytes) + " bytes) does not exist");
    return base::Status::OK();
  }
  ++ctx.report().files_checked;
  const uint64_t size = (*file)->Size();
  if (size != f.size_bytes) {
    ctx.Add("CKPT-F002", loc,
            "size is " + std::to_string(size) + " bytes, the metadata records " +
                std::to_string(f.size_bytes));
  }
  bool checksum_ok = true;
  std::optional<base::FileDigest> digest;
  if (ctx.options().verify_checksums && ctx.options().deep && IsContainer(f.kind) &&
      size == f.size_bytes) {
    // The common case in one read; `digest` is set unless the answer is complete.
    CKPT_ASSIGN_OR_RETURN(bool done,
                          CheckContainerReadOnce(ctx, s, f, **file, uses, progress, buffer, &digest));
    if (done) return base::Status::OK();
  }
  if (ctx.options().verify_checksums) {
    if (!digest) {
      CKPT_ASSIGN_OR_RETURN(digest, ChecksumFile(**file, ctx, progress, buffer));
    }
    const base::FileDigest& c = *digest;
    ctx.report().bytes_checked += c.bytes;
    // A size mismatch already explains a checksum mismatch; report the checksum only when
    // the sizes agree.
    if (size == f.size_bytes && (!c.complete || c.checksum != f.checksum_xxh3)) {
      checksum_ok = false;
      ctx.Add("CKPT-F003", loc,
              "XXH3 is " + (c.complete ? base::ChecksumHex(c.checksum) : "unreadable") +
                  ", the metadata records " + base::ChecksumHex(f.checksum_xxh3));
    }
  } else {
    progress.Add(f.size_bytes, f.resolved_path);
  }
  if (!IsContainer(f.kind)) return base::Status::OK();
  auto reader = format::StateFileReader::Open(fs, f.resolved_path);
  if (!reader.ok()) {
    if (reader.status().code() == base::StatusCode::kIOError) return reader.status();
    ctx.Add("CKPT-F005", loc, reader.status().message());
    return base::Status::OK();
  }
  if (static_cast<int>((*reader)->index().kind) != static_cast<int>(f.kind)) {
    ctx.Add("CKPT-F009", loc,
            "the container holds " +
                std::string(FileKindName(static_cast<FileKind>((*reader)->index().kind))) +
                ", the file table says " + std::string(FileKindName(f.kind)));
  }
  bool block_damage = false;
  if (!checksum_ok || size != f.size_bytes) {
    // Locate the damage: which block fails its own checksum.
    base::Status blocks = (*reader)->VerifyChecksums(ctx.progress());
    if (blocks.code() == base::StatusCode::kCancelled) return blocks;
    if (!blocks.ok()) {
      ctx.Add("CKPT-F006", loc, blocks.message());
      block_damage = true;
    }
  }
  CheckContainerAgainstHandles(ctx, f, **reader, uses);
  if (ctx.options().deep) {
    CKPT_RETURN_IF_ERROR(DeepCheckContainer(ctx, s, f, **reader, uses, block_damage));
    progress.Add(f.size_bytes, f.resolved_path);
  }
  return base::Status::OK();
}

}  // namespace

// The files are checked on several threads (RunParallelChecks: the answer is one thread's).
base::Status CheckFiles(ValidateContext& ctx, const Snapshot& s) {
  for (const char* r : {"CKPT-F001", "CKPT-F002", "CKPT-F003", "CKPT-F005", "CKPT-F006",
                        "CKPT-F010", "CKPT-F011", "CKPT-K006"}) {
    ctx.Checked(r);
  }
  if (ctx.options().deep) {
    for (const char* r : {"CKPT-D001", "CKPT-D002", "CKPT-D003", "CKPT-K005"}) ctx.Checked(r);
  }
  const auto uses = CollectUses(s);
  uint64_t total = 0;
  for (const auto& f : s.files) total += f.size_bytes;
  if (ctx.options().deep) total *= 2;
  SharedProgress progress(ctx.progress(), total);
  const base::Progress for_threads = progress.ForThreads();
  // Largest files first: the last file started is a small one, so the threads finish together.
  std::vector<size_t> order(s.files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&s](size_t a, size_t b) {
    return s.files[a].size_bytes > s.files[b].size_bytes;
  });
  return RunParallelChecks(
      ctx, s.files.size(), for_threads,
      [&](ValidateContext& file_ctx, size_t i) {
        std::string buffer;
        return CheckFile(file_ctx, s, s.files[i], uses, progress, &buffer);
      },
      order);
}

}  // namespace ckpt::ops::internal
