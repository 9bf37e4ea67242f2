// ckpt-format-demo [DIR]: writes the sample savepoint (the same one fixtures/v1/savepoint freezes)
// with ckpt::format into DIR (default: a fresh directory under $TMPDIR), reads it back checking
// every checksum, and prints it decoded: a readable summary, then the metadata as protobuf JSON.
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>

#include "ckpt/base/checksum.h"
#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_json.h"
#include "sample_snapshot.h"

namespace ckpt::format {
namespace {

using base::Status;

const char* Enum(const google::protobuf::EnumDescriptor* d, int v) {
  const auto* value = d->FindValueByNumber(v);
  return value != nullptr ? value->name().c_str() : "?";
}

// Whole-file checksum and size against the file table, then the container's own checks: block
// checksums without decompressing, then every record decoded. Returns the record count.
base::Result<uint64_t> VerifyFile(base::Fs& fs, const std::string& snapshot_dir,
                                  const pb::FileEntry& entry) {
  CKPT_ASSIGN_OR_RETURN(std::string path, ResolveFile(snapshot_dir, entry));
  CKPT_ASSIGN_OR_RETURN(std::string bytes, base::ReadFileToString(fs, path));
  if (bytes.size() != entry.size_bytes() || base::Xxh3(bytes) != entry.checksum_xxh3()) {
    return Status::Corruption(path + ": size or XXH3 differs from the metadata's file table");
  }
  CKPT_ASSIGN_OR_RETURN(auto reader, StateFileReader::Open(fs, path));
  CKPT_RETURN_IF_ERROR(reader->VerifyChecksums());
  CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
  RecordRef record;
  uint64_t n = 0;
  while (true) {
    CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&record));
    if (!more) break;
    ++n;
  }
  if (n != reader->index().total_records) {
    return Status::Corruption(path + ": iterated " + std::to_string(n) + " records, footer says " +
                              std::to_string(reader->index().total_records));
  }
  return n;
}

std::string Json(const pb::TypeDescriptor& type, std::string_view bytes) {
  auto json = ValueBytesToJson(type, bytes);
  return json.ok() ? *json : "<" + json.status().ToString() + ">";
}

// Prints the first `limit` keyed records of a KEYED_STATE file, decoded with the declared types.
Status PrintKeyedSample(base::Fs& fs, const std::string& path, const pb::OperatorState& op,
                        int limit) {
  CKPT_ASSIGN_OR_RETURN(auto reader, KeyedStateReader::Open(fs, path, op.states()));
  CKPT_ASSIGN_OR_RETURN(KeyedRecordIterator it, reader->NewIterator());
  KeyedEntry entry;
  for (int i = 0; i < limit; ++i) {
    CKPT_ASSIGN_OR_RETURN(bool more, it.Next(&entry));
    if (!more) break;
    const KeyedRecord& r = entry.record;
    const pb::StateDescriptor& s = op.states(static_cast<int>(r.state_index));
    std::printf("      key group %3u  %-18s key=%s", entry.key_group, s.name().c_str(),
                Json(s.key_type(), r.key).c_str());
    if (s.has_user_key_type()) std::printf(" user_key=%s", Json(s.user_key_type(), r.user_key).c_str());
    if (s.kind() != pb::STATE_TIMERS) {
      pb::TypeDescriptor value_type = s.value_type();
      if (s.kind() == pb::STATE_LIST) value_type = types::List(s.value_type());
      std::printf(" value=%s", Json(value_type, r.value).c_str());
    }
    std::printf("\n");
  }
  return Status::OK();
}

void PrintOperatorEntries(base::Fs& fs, const std::string& dir, const pb::CheckpointMetadata& m,
                          const pb::OperatorState& op) {
  for (const auto& st : op.subtasks()) {
    for (const auto& h : st.operator_state()) {
      auto path = ResolveFile(dir, m.files(static_cast<int>(h.file_index())));
      if (!path.ok()) continue;
      auto reader = StateFileReader::Open(fs, *path);
      if (!reader.ok()) continue;
      for (const auto& part : h.partitions()) {
        const pb::StateDescriptor* desc = nullptr;
        for (const auto& s : op.states()) {
          if (s.name() == part.state_name()) desc = &s;
        }
        if (desc == nullptr) continue;
        for (uint64_t offset : part.entry_offsets()) {
          auto it = (*reader)->NewIteratorAt(offset, 1);
          RecordRef ref;
          OperatorRecord rec;
          if (!it.ok() || !(*it)->Next(&ref).ValueOr(false) || !DecodeOperatorRecord(ref.bytes, &rec)) {
            continue;
          }
          std::printf("      subtask %u  %-18s %s\n", st.subtask_index(), part.state_name().c_str(),
                      Json(desc->value_type(), rec.value).c_str());
        }
      }
    }
  }
}

void PrintSummary(base::Fs& fs, const std::string& dir, const pb::CheckpointMetadata& m) {
  auto job = JobIdHex(m.job_id());
  std::printf("Snapshot %s\n", dir.c_str());
  std::printf("  job %s (%s), checkpoint %lld, %s %s %s, %s, %s\n", m.job_name().c_str(),
              job.ok() ? job->c_str() : "?", static_cast<long long>(m.checkpoint_id()),
              Enum(pb::SnapshotKind_descriptor(), m.kind()),
              Enum(pb::SavepointFormat_descriptor(), m.savepoint_format()),
              Enum(pb::CheckpointType_descriptor(), m.checkpoint_type()),
              Enum(pb::SavepointPostAction_descriptor(), m.post_action()),
              Enum(pb::CheckpointingMode_descriptor(), m.mode()));
  std::printf("  %d files, %llu bytes of state, end-to-end %lld ms\n", m.files_size(),
              static_cast<unsigned long long>(m.metrics().state_size()),
              static_cast<long long>(m.metrics().end_to_end_duration()));
  for (const auto& info : m.job_graph().operators()) {
    auto id = OperatorId::FromBytes(info.operator_id());
    std::printf("\nOperator %-20s uid=%-20s uid hash=%s\n", info.name().c_str(),
                info.uid().c_str(), id.ok() ? id->ToHex().c_str() : "?");
    std::printf("  kind %s, parallelism %u, max parallelism %u, chain %u/%u\n", info.kind().c_str(),
                info.parallelism(), info.max_parallelism(), info.chain_index(),
                info.position_in_chain());
    const pb::OperatorState* op = nullptr;
    for (const auto& o : m.operators()) {
      if (o.operator_id() == info.operator_id()) op = &o;
    }
    if (op == nullptr) continue;
    for (const auto& s : op->states()) {
      std::string type = s.has_key_type() ? "key " + TypeName(s.key_type()) + ", " : "";
      if (s.has_user_key_type()) type += "user key " + TypeName(s.user_key_type()) + ", ";
      type += "value " + TypeName(s.value_type());
      std::printf("  state %-18s %-22s %s\n", s.name().c_str(),
                  Enum(pb::StateKind_descriptor(), s.kind()), type.c_str());
    }
    if (op->has_coordinator_state()) {
      std::printf("  coordinator state: %s\n",
                  Json(op->coordinator_state().type(), op->coordinator_state().inline_data()).c_str());
    }
    for (const auto& st : op->subtasks()) {
      for (const auto& h : st.keyed_state()) {
        if (!h.has_key_groups()) continue;
        uint64_t records = 0, groups = 0;
        for (uint64_t c : h.key_groups().key_group_record_counts()) {
          records += c;
          groups += c > 0 ? 1 : 0;
        }
        std::printf("  subtask %u: key groups [%u, %u], %llu records in %llu non-empty groups\n",
                    st.subtask_index(), h.key_groups().key_group_start(),
                    h.key_groups().key_group_end(), static_cast<unsigned long long>(records),
                    static_cast<unsigned long long>(groups));
        auto path = ResolveFile(dir, m.files(static_cast<int>(h.key_groups().file_index())));
        if (path.ok() && st.subtask_index() == 0) {
          Status s = PrintKeyedSample(fs, *path, *op, 6);
          if (!s.ok()) std::printf("      %s\n", s.ToString().c_str());
        }
      }
      for (const auto& c : st.committables()) {
        std::printf("  subtask %u commits %s -> %s (%llu bytes)\n", st.subtask_index(),
                    c.pending_path().c_str(), c.final_path().c_str(),
                    static_cast<unsigned long long>(c.size_bytes()));
      }
    }
    PrintOperatorEntries(fs, dir, m, *op);
  }
}

int Run(int argc, char** argv) {
  base::Fs& fs = base::Fs::Default();
  std::string root;
  std::random_device rd;
  std::mt19937_64 rng((uint64_t{rd()} << 32) | rd());
  if (argc >= 2) {
    root = argv[1];
  } else {
    root = (std::filesystem::temp_directory_path() /
            ("ckpt-format-demo-" + base::ChecksumHex(rng()).substr(0, 8)))
               .string();
  }
  const std::string dir = base::JoinPath(root, NewSavepointDirName(sample::kJobIdHex, rng));
  auto written = sample::WriteSampleSavepoint(fs, dir);
  if (!written.ok()) {
    std::fprintf(stderr, "ckpt-format-demo: writing %s failed: %s\n", dir.c_str(),
                 written.status().ToString().c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", dir.c_str());

  auto loc = LocateSnapshot(fs, dir);
  auto m = loc.ok() ? ReadMetadataFile(fs, loc->metadata) : base::Result<pb::CheckpointMetadata>(loc.status());
  if (!m.ok()) {
    std::fprintf(stderr, "ckpt-format-demo: %s\n", m.status().ToString().c_str());
    return 1;
  }
  uint64_t records = 0;
  for (const auto& entry : m->files()) {
    auto n = VerifyFile(fs, dir, entry);
    if (!n.ok()) {
      std::fprintf(stderr, "ckpt-format-demo: %s\n", n.status().ToString().c_str());
      return 1;
    }
    records += *n;
  }
  std::fprintf(stderr, "verified _metadata and %d state files (%llu records): all checksums match\n\n",
               m->files_size(), static_cast<unsigned long long>(records));
  PrintSummary(fs, dir, *m);

  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto st = google::protobuf::util::MessageToJsonString(*m, &json, options);
  if (!st.ok()) {
    std::fprintf(stderr, "ckpt-format-demo: rendering JSON failed: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("\n_metadata as protobuf JSON:\n%s", json.c_str());
  return 0;
}

}  // namespace
}  // namespace ckpt::format

int main(int argc, char** argv) {
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    std::fprintf(stderr, "usage: ckpt-format-demo [DIR]\n"
                         "Writes a sample savepoint into DIR (default: a new temporary directory),\n"
                         "reads it back with every checksum checked and prints it decoded.\n");
    return 2;
  }
  return ckpt::format::Run(argc, argv);
}
