#include "operators/failure_ledger.h"

#include <map>
#include <mutex>

namespace ckpt::engine::operators {

base::Result<bool> FailureLedger::TryFire(base::Fs& fs, const std::string& marker_dir,
                                          const std::string& trigger, int64_t limit) {
  if (limit <= 0) return false;
  if (marker_dir.empty()) {
    static std::mutex mu;
    static std::map<std::string, int64_t>* fired = new std::map<std::string, int64_t>();
    std::lock_guard<std::mutex> lock(mu);
    int64_t& count = (*fired)[trigger];
    if (count >= limit) return false;
    ++count;
    return true;
  }
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(marker_dir));
  for (int64_t i = 0; i < limit; ++i) {
    const std::string path = base::JoinPath(marker_dir, trigger + "." + std::to_string(i));
    base::Result<std::unique_ptr<base::WritableFile>> f = fs.OpenWriteExclusive(path);
    if (f.ok()) {
      CKPT_RETURN_IF_ERROR((*f)->Sync());
      CKPT_RETURN_IF_ERROR((*f)->Close());
      CKPT_RETURN_IF_ERROR(fs.SyncDir(marker_dir));
      return true;
    }
    if (f.status().code() != base::StatusCode::kAlreadyExists) return f.status();
  }
  return false;
}

}  // namespace ckpt::engine::operators
