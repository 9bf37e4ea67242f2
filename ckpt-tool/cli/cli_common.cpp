// CliContext plumbing: --format parsing, -o FILE through Fs, and the TTY-only progress line.
#include "cli_common.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <streambuf>

#include "ckpt/base/resolving_fs.h"
#include "ckpt/base/text_escape.h"
#include "ckpt/cli_support/style.h"
#include "ckpt/ops/open.h"
#include "ckpt/ops/snapshot.h"
#include "render.h"

namespace ckpt::cli {
namespace {

// A streambuf that appends to a base::WritableFile in 64 KiB chunks, so even a long dump goes
// through Fs in constant memory. The first failed append is kept and reported on close.
class FsStreamBuf : public std::streambuf {
 public:
  explicit FsStreamBuf(std::unique_ptr<base::WritableFile> file) : file_(std::move(file)) {
    buffer_.resize(64 << 10);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  base::Status Close() {
    FlushBuffer();
    if (status_.ok()) status_ = file_->Sync();
    base::Status close = file_->Close();
    if (status_.ok()) status_ = close;
    return status_;
  }

 protected:
  int_type overflow(int_type ch) override {
    FlushBuffer();
    if (ch != traits_type::eof()) {
      *pptr() = static_cast<char>(ch);
      pbump(1);
    }
    return status_.ok() ? traits_type::not_eof(ch) : traits_type::eof();
  }
  int sync() override {
    FlushBuffer();
    return status_.ok() ? 0 : -1;
  }

 private:
  void FlushBuffer() {
    const std::ptrdiff_t n = pptr() - pbase();
    if (n > 0 && status_.ok()) {
      status_ = file_->Append(std::string_view(pbase(), static_cast<size_t>(n)));
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }

  std::unique_ptr<base::WritableFile> file_;
  std::string buffer_;
  base::Status status_;
};

}  // namespace

struct CliContext::OutputState {
  std::unique_ptr<FsStreamBuf> buf;
  std::unique_ptr<std::ostream> stream;
};

CliContext::CliContext() = default;
CliContext::~CliContext() = default;

CommandResult CommandResult::Error(const base::Status& status) {
  // The message names paths and names read from disk; it is printed to a terminal.
  return {Outcome::kError, base::EscapeForText(status.ToString())};
}

std::string Join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string_view OutputFormatName(OutputFormat f) {
  switch (f) {
    case OutputFormat::kText: return "text";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kJunit: return "junit";
    case OutputFormat::kGithubActions: return "github-actions";
  }
  return "text";
}

std::vector<std::string> VerbFormats(std::string_view verb) {
  if (verb == "help" || verb == "completion") return {};
  if (verb == "validate") return {"text", "json", "junit", "github-actions", "sarif"};
  if (verb == "stats") return {"text", "json", "junit", "github-actions"};
  return {"text", "json"};
}

base::Result<OutputFormat> CliContext::format() const {
  for (OutputFormat f : {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kJunit,
                         OutputFormat::kGithubActions}) {
    if (global.format == OutputFormatName(f)) return f;
  }
  if (global.format == "sarif") {
    return base::Status::InvalidArgument("--format sarif is supported by validate only");
  }
  return base::Status::InvalidArgument("unknown --format '" + global.format +
                                       "' (text, json, junit, github-actions)");
}

base::Result<OutputFormat> CliContext::FormatAmong(std::initializer_list<OutputFormat> allowed,
                                                   std::string_view verb) const {
  CKPT_ASSIGN_OR_RETURN(OutputFormat f, format());
  std::string names;
  for (OutputFormat a : allowed) {
    if (a == f) return f;
    if (!names.empty()) names += ", ";
    names += OutputFormatName(a);
  }
  return base::Status::InvalidArgument(std::string(verb) + " supports --format " + names +
                                       ", not " + global.format);
}

base::Result<base::ResolvedLocation> CliContext::Locate(std::string_view arg) const {
  return base::ResolveFs(arg);
}

base::Result<base::ResolvedLocation> CliContext::LocateSnapshot(std::string_view arg) const {
  CKPT_ASSIGN_OR_RETURN(base::ResolvedLocation where, Locate(arg));
  CKPT_RETURN_IF_ERROR(ops::CheckSnapshotTarget(*where.fs, where.path));
  return where;
}

base::Result<Located> CliContext::LocateAll(std::initializer_list<std::string_view> args) const {
  Located out;
  bool mixed = false;
  for (std::string_view arg : args) {
    if (arg.empty()) {
      out.paths.emplace_back();
      continue;
    }
    CKPT_ASSIGN_OR_RETURN(base::ResolvedLocation where, Locate(arg));
    if (out.fs == nullptr) out.fs = where.fs;
    mixed = mixed || out.fs != where.fs;
    out.paths.push_back(std::move(where.path));
  }
  if (out.fs == nullptr) out.fs = &base::Fs::Default();
  if (mixed) {
    // Several filesystems (a snapshot on S3, --to a local directory): one Fs that resolves
    // every location it is handed, so the paths stay the locations as given.
    out.fs = &base::ResolvingFs();
    out.paths.assign(args.begin(), args.end());
  }
  return out;
}

std::ostream& CliContext::out() {
  if (output_ && output_->stream) return *output_->stream;
  return std::cout;
}

base::Status CliContext::OpenOutput() {
  if (global.output.empty() || global.output == "-") return base::Status::OK();
  auto file = fs->OpenWrite(global.output);
  if (!file.ok()) return file.status().WithContext("-o");
  output_ = std::make_unique<OutputState>();
  output_->buf = std::make_unique<FsStreamBuf>(std::move(file).value());
  output_->stream = std::make_unique<std::ostream>(output_->buf.get());
  return base::Status::OK();
}

base::Status CliContext::CloseOutput() {
  if (!output_) {
    std::cout.flush();
    return std::cout ? base::Status::OK() : base::Status::IOError("writing to stdout failed");
  }
  output_->stream->flush();
  base::Status st = output_->buf->Close();
  output_.reset();
  return st;
}

namespace {

// "1:05" or "1:02:05" for `secs` seconds.
std::string ProgressClock(uint64_t secs) {
  char buf[32];
  if (secs >= 3600) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, secs / 3600,
                  secs / 60 % 60, secs % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%" PRIu64 ":%02" PRIu64, secs / 60, secs % 60);
  }
  return buf;
}

// The progress line without the path: "[#####.....]  42.0%  12.0 MiB/29.0 MiB  3.1 MiB/s  ETA
// 0:05". A byte count always shows as a human size here (--bytes is for reports).
std::string ProgressHead(uint64_t done, uint64_t total, double seconds, bool bytes) {
  auto amount = [bytes](uint64_t n) { return bytes ? HumanBytes(n) : std::to_string(n); };
  std::string line;
  if (total > 0) {
    const uint64_t permille = std::min<uint64_t>(1000, done * 1000 / total);
    constexpr uint64_t kBarWidth = 20;
    line += "[" + std::string(permille * kBarWidth / 1000, '#') +
            std::string(kBarWidth - permille * kBarWidth / 1000, '.') + "] ";
    char pct[16];
    std::snprintf(pct, sizeof pct, "%5.1f%%", static_cast<double>(permille) / 10.0);
    line += pct;
    line += "  " + amount(done) + "/" + amount(total);
  } else {
    line += amount(done) + (bytes ? "" : " done");
  }
  if (seconds >= 1.0 && done > 0) {
    const double rate = static_cast<double>(done) / seconds;
    line += "  " + amount(static_cast<uint64_t>(rate)) + "/s";
    if (total > done) {
      const double left_seconds = static_cast<double>(total - done) / rate;
      line += "  ETA " + ProgressClock(static_cast<uint64_t>(left_seconds));
    }
  }
  return line;
}

}  // namespace

base::Progress CliContext::MakeProgress(ProgressUnit unit) {
  base::Progress progress;
  progress.cancel = &cancel;
  if (global.quiet || global.format != "text" || isatty(STDERR_FILENO) == 0) return progress;
  using Clock = std::chrono::steady_clock;
  progress.on_progress = [this, bytes = unit == ProgressUnit::kBytes, start = Clock::now(),
                          last_draw = Clock::time_point{}, last_permille = uint64_t{1001}](
                             uint64_t done, uint64_t total, std::string_view what) mutable {
    // Redraw when the percentage moves or a fifth of a second has passed, not per block.
    const Clock::time_point now = Clock::now();
    const uint64_t permille = total == 0 ? 0 : std::min<uint64_t>(1000, done * 1000 / total);
    if (permille == last_permille && now - last_draw < std::chrono::milliseconds(200)) return;
    last_permille = permille;
    last_draw = now;
    const double seconds = std::chrono::duration<double>(now - start).count();
    std::string line = ProgressHead(done, total, seconds, bytes);
    // The terminal's last column stays free: writing it wraps the line on some terminals.
    const size_t columns = clistyle::TerminalColumns(STDERR_FILENO) - 1;
    const std::string path = base::EscapeForText(what);
    // The path at work only where enough of it shows to recognise it.
    constexpr size_t kMinPathColumns = 16;
    const size_t used = clistyle::DisplayWidth(line) + 2;
    if (!path.empty() && used + kMinPathColumns <= columns) {
      line += "  " + clistyle::ElideMiddle(path, columns - used);
    }
    line = clistyle::ElideMiddle(line, columns);
    const size_t width = clistyle::DisplayWidth(line);
    if (width < bar_width_) line.append(bar_width_ - width, ' ');
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
    bar_width_ = std::max(bar_width_, width);
  };
  return progress;
}

bool CliContext::ReportOnTerminal() const {
  return output_ == nullptr && isatty(STDOUT_FILENO) != 0;
}

void CliContext::EndProgress() {
  if (bar_width_ == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(bar_width_), "");
  std::fflush(stderr);
  bar_width_ = 0;
}

void SetExamples(CLI::App* sub, std::vector<std::string> examples) {
  std::string footer = "\nExamples:\n";
  for (const std::string& e : examples) footer += "  " + e + "\n";
  sub->footer(footer);
}

void AddUidsOption(CLI::App* sub, std::string* file) {
  sub->add_option("--uids", *file,
                  "Uids of the job (one per line, or a job spec): names operators whose metadata "
                  "records no uid (Apache Flink) by their uid hash")
      ->type_name("FILE");
}

base::Result<std::vector<std::string>> ReadUidsOption(const CliContext& ctx,
                                                      const std::string& file) {
  if (file.empty()) return std::vector<std::string>{};
  auto text = base::ReadUserFileToString(*ctx.fs, file, uint64_t{64} << 20);
  if (!text.ok()) return text.status().WithContext("--uids " + file);
  return ops::ParseUidList(*text, "--uids " + file);
}

}  // namespace ckpt::cli
