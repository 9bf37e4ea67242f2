// SharedStateRegistry: reference counting of shared snapshot files.
#include "ckpt/engine/checkpoint/shared_state_registry.h"

namespace ckpt::engine {

void SharedStateRegistry::Register(const std::string& snapshot,
                                   const std::vector<std::string>& paths, bool owned) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string>& mine = by_snapshot_[snapshot];
  for (const std::string& p : paths) {
    Entry& e = files_[p];
    if (!owned) e.protected_ = true;
    if (mine.insert(p).second) ++e.references;
  }
}

std::vector<std::string> SharedStateRegistry::Release(const std::string& snapshot) {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_snapshot_.find(snapshot);
  if (it == by_snapshot_.end()) return out;
  for (const std::string& p : it->second) {
    auto f = files_.find(p);
    if (f == files_.end()) continue;
    if (--f->second.references == 0 && !f->second.protected_) {
      out.push_back(p);
      files_.erase(f);  // protected entries stay: their protection is sticky
    }
  }
  by_snapshot_.erase(it);
  return out;
}

uint32_t SharedStateRegistry::ReferenceCount(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(path);
  return it == files_.end() ? 0 : it->second.references;
}

std::vector<std::string> SharedStateRegistry::Files() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  out.reserve(files_.size());
  for (const auto& [p, e] : files_) out.push_back(p);
  return out;
}

}  // namespace ckpt::engine
