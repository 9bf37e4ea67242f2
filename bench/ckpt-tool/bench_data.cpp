// Generates the benchmark's data with ckpt::format (see bench_data.h).
#include "bench_data.h"

#include <sys/resource.h>
#include <zstd.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "ckpt/base/endian.h"
#include "ckpt/base/fs.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/value_codec.h"

namespace ckpt::bench {
namespace {

constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// A value with ~6 bits of entropy per byte (base64-like text), deterministic per key: zstd
// level 1 compresses it by roughly a quarter, like serialized records with mixed content.
void FillValue(int64_t key, uint32_t n, std::string* out) {
  uint64_t x = static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull + 1;
  out->resize(n);
  for (uint32_t i = 0; i < n;) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    uint64_t bits = x;
    for (int j = 0; j < 10 && i < n; ++j, ++i, bits >>= 6) (*out)[i] = kAlphabet[bits & 63];
  }
}

std::string RecordFor(int64_t key, uint32_t value_bytes, std::string* value) {
  std::string k;
  format::EncodeValue(format::types::Int64(), format::Value(key), &k).IgnoreError();
  FillValue(key, value_bytes, value);
  std::string v;
  base::PutLengthPrefixed(&v, *value);  // BYTES encoding: varint length, bytes
  std::string record;
  format::EncodeKeyedRecord({0, k, "", "", v}, &record);
  return record;
}

// Streams bytes into one zstd frame written through Fs.
class ZstdFile {
 public:
  static base::Result<std::unique_ptr<ZstdFile>> Create(base::Fs& fs, const std::string& path) {
    auto z = std::unique_ptr<ZstdFile>(new ZstdFile());
    CKPT_ASSIGN_OR_RETURN(z->file_, fs.OpenWriteExclusive(path));
    z->cctx_ = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z->cctx_, ZSTD_c_compressionLevel, 1);
    z->out_.resize(ZSTD_CStreamOutSize());
    return z;
  }
  ~ZstdFile() { ZSTD_freeCCtx(cctx_); }
  base::Status Add(std::string_view data) { return Pump(data, ZSTD_e_continue); }
  base::Status Finish() {
    CKPT_RETURN_IF_ERROR(Pump({}, ZSTD_e_end));
    CKPT_RETURN_IF_ERROR(file_->Sync());
    return file_->Close();
  }
  uint64_t bytes() const { return bytes_; }

 private:
  ZstdFile() = default;
  base::Status Pump(std::string_view data, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    while (true) {
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      size_t left = ZSTD_compressStream2(cctx_, &out, &in, mode);
      if (ZSTD_isError(left)) return base::Status::Internal(ZSTD_getErrorName(left));
      CKPT_RETURN_IF_ERROR(file_->Append(std::string_view(out_.data(), out.pos)));
      bytes_ += out.pos;
      bool done = mode == ZSTD_e_end ? left == 0 : in.pos == in.size;
      if (done) return base::Status::OK();
    }
  }
  std::unique_ptr<base::WritableFile> file_;
  ZSTD_CCtx* cctx_ = nullptr;
  std::string out_;
  uint64_t bytes_ = 0;
};

// Compressed/raw ratio of zstd level 1 over a sample of records.
double SampleRatio(uint32_t value_bytes) {
  std::string raw, value;
  for (int64_t k = 0; raw.size() < (1u << 20); ++k) {
    std::string r = RecordFor(k, value_bytes, &value);
    base::PutLengthPrefixed(&raw, r);
  }
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 1);
  return static_cast<double>(n) / static_cast<double>(raw.size());
}

void FillSavepointHeader(pb::CheckpointMetadata* m, int64_t id) {
  m->set_format_version(format::kFormatVersion);
  m->set_engine_name("bench_ckpt_tool");
  m->set_engine_version("0.1.0");
  m->set_job_id(std::string("\x1a\x2b\x3c\x4d\x5e\x6f\x70\x81\x92\xa3\xb4\xc5\xd6\xe7\xf8\x01", 16));
  m->set_job_name("bench");
  m->set_checkpoint_id(id);
  m->set_kind(pb::SAVEPOINT);
  m->set_savepoint_format(pb::CANONICAL);
  m->set_checkpoint_type(pb::FULL);
  m->set_post_action(pb::POST_ACTION_STOP);
  m->set_mode(pb::ALIGNED_EXACTLY_ONCE);
  m->set_trigger_timestamp(1767225600000);
  m->set_completion_timestamp(1767225600500);
}

pb::OperatorInfo* AddOperator(pb::CheckpointMetadata* m, const std::string& uid, uint32_t p,
                              uint32_t max_p, uint32_t index) {
  pb::OperatorInfo* info = m->mutable_job_graph()->add_operators();
  info->set_operator_id(format::OperatorId::FromUid(uid).ToBytes());
  info->set_uid(uid);
  info->set_name(uid);
  info->set_kind("keyed-sum");
  info->set_parallelism(p);
  info->set_max_parallelism(max_p);
  info->set_chain_index(index);
  info->set_spec_id(uid);
  return info;
}

pb::StateDescriptor PayloadState() {
  pb::StateDescriptor d;
  d.set_name("payload");
  d.set_kind(pb::STATE_VALUE);
  *d.mutable_key_type() = format::types::Int64();
  *d.mutable_namespace_type() = format::types::Void();
  *d.mutable_value_type() = format::types::Bytes();
  d.set_serializer_version(1);
  return d;
}

}  // namespace

base::Status WriteBigSavepoint(const SavepointSpec& spec, const std::string& dir,
                               const std::string& zst_path, SavepointData* out) {
  base::Fs& fs = base::Fs::Default();
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
  out->dir = dir;
  out->zst_path = zst_path;
  const double ratio = SampleRatio(spec.value_bytes);
  std::string value;
  const double record_disk = static_cast<double>(RecordFor(0, spec.value_bytes, &value).size() + 2) * ratio;
  // 4% above the target so block overheads never leave it short.
  const double target = static_cast<double>(spec.target_disk_bytes);
  const auto n = spec.records > 0 ? static_cast<int64_t>(spec.records)
                                  : static_cast<int64_t>(target * 1.04 / record_disk);
  std::vector<std::vector<int64_t>> buckets(spec.max_parallelism);
  for (int64_t k = 0; k < n; ++k) {
    std::string key;
    CKPT_RETURN_IF_ERROR(format::EncodeValue(format::types::Int64(), format::Value(k), &key));
    buckets[format::KeyGroupForKey(key, spec.max_parallelism)].push_back(k);
  }

  pb::CheckpointMetadata m;
  FillSavepointHeader(&m, 1);
  AddOperator(&m, "bench-keyed", spec.parallelism, spec.max_parallelism, 0);
  pb::OperatorState* op = m.add_operators();
  op->set_operator_id(format::OperatorId::FromUid("bench-keyed").ToBytes());
  op->set_parallelism(spec.parallelism);
  op->set_max_parallelism(spec.max_parallelism);
  *op->add_states() = PayloadState();
  std::unique_ptr<ZstdFile> zst;
  if (!zst_path.empty()) {
    CKPT_ASSIGN_OR_RETURN(zst, ZstdFile::Create(fs, zst_path));
  }
  for (uint32_t s = 0; s < spec.parallelism; ++s) {
    format::KeyGroupRange range =
        format::RangeForSubtask(spec.max_parallelism, spec.parallelism, s);
    std::string path = base::JoinPath(dir, "keyed-" + std::to_string(s) + ".state");
    format::StateFileWriterOptions wo;
    wo.kind = pb::KEYED_STATE;
    CKPT_ASSIGN_OR_RETURN(auto writer, format::StateFileWriter::Create(fs, path, wo));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    pb::KeyGroupsStateHandle* h = st->add_keyed_state()->mutable_key_groups();
    h->set_key_group_start(range.start);
    h->set_key_group_end(range.end);
    for (uint32_t g = range.start; g <= range.end; ++g) {
      h->add_key_group_offsets(writer->logical_offset());
      h->add_key_group_record_counts(buckets[g].size());
      if (buckets[g].empty()) continue;
      CKPT_RETURN_IF_ERROR(writer->BeginSection(g));
      for (int64_t k : buckets[g]) {
        std::string record = RecordFor(k, spec.value_bytes, &value);
        CKPT_RETURN_IF_ERROR(writer->Add(record).status());
        std::string framed;
        base::PutLengthPrefixed(&framed, record);
        if (zst) {
          CKPT_RETURN_IF_ERROR(zst->Add(framed));
        }
        out->logical_bytes += framed.size();
        ++out->records;
      }
    }
    CKPT_ASSIGN_OR_RETURN(format::StateFileSummary sum, writer->Finish());
    pb::FileEntry* f = m.add_files();
    f->set_path("keyed-" + std::to_string(s) + ".state");
    f->set_scope(pb::EXCLUSIVE);
    f->set_kind(pb::KEYED_STATE);
    f->set_size_bytes(sum.size_bytes);
    f->set_checksum_xxh3(sum.checksum_xxh3);
    f->set_compression(sum.compression);
    f->set_created_by_checkpoint_id(1);
    h->set_file_index(static_cast<uint32_t>(m.files_size() - 1));
    out->files.push_back(path);
    out->disk_bytes += sum.size_bytes;
  }
  if (zst) {
    CKPT_RETURN_IF_ERROR(zst->Finish());
    out->zst_bytes = zst->bytes();
  }
  m.mutable_metrics()->set_state_size(out->disk_bytes);
  m.mutable_metrics()->set_checkpointed_size(out->disk_bytes);
  return format::WriteMetadataFile(fs, dir, m);
}

base::Status WriteWideMetadata(const std::string& dir, uint32_t operators, uint32_t parallelism) {
  base::Fs& fs = base::Fs::Default();
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
  pb::CheckpointMetadata m;
  FillSavepointHeader(&m, 2);
  const uint32_t max_p = 4096;
  for (uint32_t o = 0; o < operators; ++o) {
    const std::string uid = "operator-" + std::to_string(o);
    AddOperator(&m, uid, parallelism, max_p, o);
    if (o > 0) {
      pb::EdgeInfo* e = m.mutable_job_graph()->add_edges();
      e->set_source_operator_id(format::OperatorId::FromUid("operator-" + std::to_string(o - 1)).ToBytes());
      e->set_target_operator_id(format::OperatorId::FromUid(uid).ToBytes());
      e->set_partitioning(pb::HASH);
    }
    pb::OperatorState* op = m.add_operators();
    op->set_operator_id(format::OperatorId::FromUid(uid).ToBytes());
    op->set_parallelism(parallelism);
    op->set_max_parallelism(max_p);
    *op->add_states() = PayloadState();
    for (uint32_t s = 0; s < parallelism; ++s) {
      format::KeyGroupRange range = format::RangeForSubtask(max_p, parallelism, s);
      pb::FileEntry* f = m.add_files();
      f->set_path(uid + "-" + std::to_string(s) + ".state");
      f->set_scope(pb::EXCLUSIVE);
      f->set_kind(pb::KEYED_STATE);
      f->set_size_bytes(4096 + s);
      f->set_checksum_xxh3(0x1234567890abcdefull ^ s);
      f->set_compression(pb::COMPRESSION_ZSTD);
      f->set_created_by_checkpoint_id(2);
      pb::SubtaskState* st = op->add_subtasks();
      st->set_subtask_index(s);
      pb::KeyGroupsStateHandle* h = st->add_keyed_state()->mutable_key_groups();
      h->set_key_group_start(range.start);
      h->set_key_group_end(range.end);
      h->set_file_index(static_cast<uint32_t>(m.files_size() - 1));
      for (uint32_t g = range.start; g <= range.end; ++g) {
        h->add_key_group_offsets(64 * (g - range.start));
        h->add_key_group_record_counts(1);
      }
      pb::SubtaskMetrics* mt = st->mutable_metrics();
      mt->set_ack_timestamp(1767225600400 + s);
      mt->set_state_size(4096 + s);
      mt->set_checkpointed_size(4096 + s);
      mt->set_sync_duration(1);
      mt->set_async_duration(20 + s % 7);
    }
  }
  return format::WriteMetadataFile(fs, dir, m);
}

std::map<std::string, std::vector<Timing>>& Timings() {
  static std::map<std::string, std::vector<Timing>> timings;
  return timings;
}

void RecordTiming(const std::string& name, Timing t) { Timings()[name].push_back(t); }

double CpuMs(bool children) {
  rusage u{};
  getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &u);
  auto ms = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) * 1000.0 + static_cast<double>(tv.tv_usec) / 1000.0;
  };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

BenchEnv& Env() {
  static BenchEnv env;
  return env;
}

Timing TimeShell(const std::string& command) {
  double cpu0 = CpuMs(true);
  auto start = std::chrono::steady_clock::now();
  int rc = std::system(command.c_str());
  auto end = std::chrono::steady_clock::now();
  Timing t;
  t.wall_ms = rc != 0 ? -1 : std::chrono::duration<double, std::milli>(end - start).count();
  t.cpu_ms = CpuMs(true) - cpu0;
  return t;
}

}  // namespace ckpt::bench
