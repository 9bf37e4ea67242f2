// ArchiveIndex: the answers of every usable job archive in a directory (rest_archive.h), kept
// current by Refresh(): new and replaced archives are (re)loaded, removed ones dropped, and an
// archive that cannot be used is skipped with one message naming the file (until it changes).
// Refresh() from one thread at a time; Current() from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/rest/rest_archive.h"

namespace ckpt::engine::history {

// OK if `entries`, the archive of job `jid` read from `file`, can be served: every path is
// /jobs/overview or lies under /jobs/<jid>, made of non-empty segments of [A-Za-z0-9._:-] that
// are not "." or "..", every body is JSON, and the /jobs/overview entry lists jobs. Corruption
// naming the file and the entry otherwise.
base::Status CheckArchiveEntries(const std::vector<ArchivedJson>& entries, const std::string& jid,
                                 const std::string& file);

class ArchiveIndex {
 public:
  struct Snapshot {
    // URL path -> JSON body, of every loaded archive.
    std::map<std::string, std::string> answers;
    // {"jobs": [...]}: the /jobs/overview entries of every loaded archive, merged.
    std::string overview = "{\"jobs\":[]}";
    size_t jobs = 0;
  };

  ArchiveIndex(std::string dir, uint64_t max_archive_bytes);

  // Scans the directory; appends a line per archive loaded, dropped or skipped to `messages`.
  // Returns the number of jobs loaded.
  size_t Refresh(std::vector<std::string>* messages);
  std::shared_ptr<const Snapshot> Current() const;

 private:
  // Which version of a file was seen (a replacement by rename changes the inode).
  struct Version {
    uint64_t inode = 0;
    int64_t mtime_ns = 0;
    uint64_t size = 0;
    bool operator==(const Version&) const = default;
  };
  struct Job {
    Version version;
    std::vector<ArchivedJson> entries;
  };

  base::Result<std::vector<ArchivedJson>> Load(const std::string& jid, const std::string& file,
                                               const Version& v);
  void Publish();

  const std::string dir_;
  const uint64_t max_archive_bytes_;
  std::map<std::string, Job> jobs_;           // by job id
  std::map<std::string, Version> skipped_;    // by file name: told once per version
  mutable std::mutex mu_;
  std::shared_ptr<const Snapshot> current_;
};

}  // namespace ckpt::engine::history
