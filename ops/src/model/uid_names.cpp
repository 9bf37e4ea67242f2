// NameOperatorsByUids and ParseUidList: operators of metadata that records no uid named by the
// uids the user's job sets, through the uid hash (format::OperatorId::FromUid).
#include <map>
#include <string>

#include "ckpt/format/job_spec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/uids.h"

namespace ckpt::ops {

std::string_view UidOriginName(UidOrigin v) {
  switch (v) {
    case UidOrigin::kRecorded: return "recorded";
    case UidOrigin::kNotRecorded: return "not-recorded";
    case UidOrigin::kUserUids: return "user-uids";
  }
  return "recorded";
}

void NameOperatorsByUids(const std::vector<std::string>& uids, Snapshot* snapshot) {
  if (uids.empty()) return;
  std::map<std::string, const std::string*> by_hash;
  for (const auto& uid : uids) by_hash.emplace(format::OperatorId::FromUid(uid).ToHex(), &uid);
  for (auto& op : snapshot->operators) {
    if (!op.uid.empty()) continue;
    auto it = by_hash.find(op.id_hex);
    if (it == by_hash.end()) continue;
    op.uid = *it->second;
    op.uid_origin = UidOrigin::kUserUids;
  }
}

void NameFindingsByUids(const std::vector<std::string>& uids, std::vector<Finding>* findings) {
  if (uids.empty()) return;
  std::map<std::string, const std::string*> by_hash;
  for (const auto& uid : uids) by_hash.emplace(format::OperatorId::FromUid(uid).ToHex(), &uid);
  for (auto& f : *findings) {
    // A display name comes first (OperatorLabel); the uid names only what has no name.
    if (!f.location.operator_name.empty()) continue;
    auto it = by_hash.find(f.location.operator_id);
    if (it != by_hash.end()) f.location.operator_name = *it->second;
  }
}

base::Result<std::vector<std::string>> ParseUidList(std::string_view text, const std::string& what) {
  std::vector<std::string> uids;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    CKPT_ASSIGN_OR_RETURN(pb::JobSpec spec, format::ParseJobSpec(text, what));
    for (const auto& op : spec.operators()) {
      if (!op.uid().empty()) uids.push_back(op.uid());
    }
    if (uids.empty()) {
      return base::Status::InvalidArgument(what + ": the job spec sets no operator uid");
    }
    return uids;
  }
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    const size_t b = line.find_first_not_of(" \t\r");
    const size_t e = line.find_last_not_of(" \t\r");
    if (b != std::string_view::npos) {
      line = line.substr(b, e - b + 1);
      if (line.front() != '#') uids.emplace_back(line);
    }
    pos = end + 1;
  }
  if (uids.empty()) {
    return base::Status::InvalidArgument(what + ": no uid (one uid per line, or a job spec)");
  }
  return uids;
}

}  // namespace ckpt::ops
