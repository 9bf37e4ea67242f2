#include "operators/line_reader.h"

#include <algorithm>

namespace ckpt::engine::operators {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;
constexpr size_t kMaxLineBytes = 64u << 20;

}  // namespace

base::Result<std::unique_ptr<LineReader>> LineReader::Open(base::Fs& fs, const std::string& path,
                                                           uint64_t offset) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<base::RandomAccessFile> file,
                        fs.OpenReadFollowingLinks(path));  // an input file the job spec names
  if (offset > file->Size()) {
    return base::Status::InvalidArgument("offset " + std::to_string(offset) + " is beyond the " +
                                         std::to_string(file->Size()) + " bytes of " + path);
  }
  return std::unique_ptr<LineReader>(new LineReader(std::move(file), offset));
}

base::Result<bool> LineReader::Next(std::string* line) {
  size_t scan_from = pos_;
  while (true) {
    const size_t nl = buffer_.find('\n', scan_from);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > pos_ && buffer_[end - 1] == '\r') --end;
      line->assign(buffer_, pos_, end - pos_);
      offset_ += nl + 1 - pos_;
      pos_ = nl + 1;
      return true;
    }
    if (read_pos_ >= file_->Size()) {
      if (pos_ == buffer_.size()) return false;
      size_t end = buffer_.size();
      if (buffer_[end - 1] == '\r') --end;
      line->assign(buffer_, pos_, end - pos_);
      offset_ += buffer_.size() - pos_;
      pos_ = buffer_.size();
      return true;
    }
    if (buffer_.size() - pos_ > kMaxLineBytes) {
      return base::Status::InvalidArgument("line at offset " + std::to_string(offset_) + " of " +
                                           file_->path() + " is longer than 64 MiB");
    }
    // Drop consumed bytes, then append the next chunk.
    buffer_.erase(0, pos_);
    pos_ = 0;
    scan_from = buffer_.size();
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(kChunkBytes, file_->Size() - read_pos_));
    const size_t old_size = buffer_.size();
    buffer_.resize(old_size + want);
    CKPT_ASSIGN_OR_RETURN(size_t got, file_->ReadAt(read_pos_, want, buffer_.data() + old_size));
    buffer_.resize(old_size + got);
    read_pos_ += got;
    if (got == 0) read_pos_ = file_->Size();  // the file shrank: treat as end of file
  }
}

base::Result<std::vector<std::string>> ListInputFiles(base::Fs& fs, const std::string& dir) {
  CKPT_ASSIGN_OR_RETURN(std::vector<base::DirEntry> entries, fs.ListDir(dir));
  std::vector<std::string> out;
  for (const base::DirEntry& e : entries) {
    if (e.is_dir || e.name.empty() || e.name[0] == '.') continue;
    out.push_back(base::JoinPath(dir, e.name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ckpt::engine::operators
