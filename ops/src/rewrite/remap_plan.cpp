#include "rewrite/remap_plan.h"

#include <set>

#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/ops/mapping.h"

namespace ckpt::ops::internal {
namespace {

using format::OperatorId;

std::string Describe(const KnownOperator& op) {
  std::string s = op.name.empty() ? op.id.ToHex() : "'" + op.name + "'";
  if (!op.uid.empty()) s += " (uid " + op.uid + ")";
  return s + " [" + op.id.ToHex() + "]";
}

bool IsHexId(std::string_view s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Splits "id:..."/"uid:..."/"name:..." into (kind, rest); kind "" when there is no prefix.
std::pair<std::string, std::string> SplitRef(const std::string& ref) {
  for (const char* kind : {"id", "uid", "name"}) {
    std::string prefix = std::string(kind) + ":";
    if (ref.rfind(prefix, 0) == 0) return {kind, ref.substr(prefix.size())};
  }
  return {"", ref};
}

base::Result<std::vector<KnownOperator>> CollectKnown(const pb::CheckpointMetadata& metadata) {
  std::vector<KnownOperator> known;
  std::map<OperatorId, size_t> by_id;
  const auto& graph = metadata.job_graph().operators();
  for (int i = 0; i < graph.size(); ++i) {
    CKPT_ASSIGN_OR_RETURN(OperatorId id, OperatorId::FromBytes(graph[i].operator_id()));
    if (by_id.count(id)) continue;
    by_id[id] = known.size();
    known.push_back({id, graph[i].uid(), graph[i].name(), graph[i].spec_id(), i, -1});
  }
  for (int i = 0; i < metadata.operators_size(); ++i) {
    CKPT_ASSIGN_OR_RETURN(OperatorId id, OperatorId::FromBytes(metadata.operators(i).operator_id()));
    auto it = by_id.find(id);
    if (it != by_id.end()) {
      known[it->second].state_index = i;
    } else {
      by_id[id] = known.size();
      known.push_back({id, "", "", "", -1, i});
    }
  }
  return known;
}

// The operators `ref` names: by ID, uid, then name. InvalidArgument if a name is ambiguous
// or a forced ID is malformed; empty if nothing matches.
base::Result<std::vector<size_t>> ResolveOld(const std::vector<KnownOperator>& known,
                                             const std::string& ref) {
  auto [kind, value] = SplitRef(ref);
  std::vector<size_t> hits;
  if (kind == "id" || (kind.empty() && IsHexId(value))) {
    auto id = OperatorId::FromHex(value);
    if (!id.ok()) {
      if (kind == "id") return base::Status::InvalidArgument("'" + ref + "' is not a 32-hex ID");
    } else {
      for (size_t i = 0; i < known.size(); ++i) {
        if (known[i].id == *id) hits.push_back(i);
      }
      if (!hits.empty() || kind == "id") return hits;
    }
  }
  if (kind == "uid" || kind.empty()) {
    for (size_t i = 0; i < known.size(); ++i) {
      if (!known[i].uid.empty() && known[i].uid == value) hits.push_back(i);
    }
    if (!hits.empty() || kind == "uid") return hits;
  }
  for (size_t i = 0; i < known.size(); ++i) {
    if (!known[i].name.empty() && known[i].name == value) hits.push_back(i);
  }
  if (hits.empty() && !value.empty()) {
    // A uid the snapshot does not store (Flink before metadata v5 keeps only the ID): the
    // operator whose ID is that uid's hash, as Flink derives it.
    const OperatorId hashed = OperatorId::FromUid(value);
    for (size_t i = 0; i < known.size(); ++i) {
      if (known[i].uid.empty() && known[i].id == hashed) hits.push_back(i);
    }
  }
  if (hits.size() > 1) {
    std::string which;
    for (size_t h : hits) which += (which.empty() ? "" : ", ") + Describe(known[h]);
    return base::Status::InvalidArgument("'" + ref + "' is ambiguous: " + std::to_string(hits.size()) +
                                         " operators are named so (" + which +
                                         "); use the ID or uid");
  }
  return hits;
}

base::Result<RemapDecision> ParseNew(const std::string& to, const std::string& reason) {
  auto [kind, value] = SplitRef(to);
  if (value.empty() || kind == "name") {
    return base::Status::InvalidArgument("mapping target '" + to +
                                         "' must be a 32-hex ID or a uid");
  }
  RemapDecision d;
  d.reason = reason;
  if (kind == "id" || (kind.empty() && IsHexId(value))) {
    auto id = OperatorId::FromHex(value);
    if (!id.ok()) return base::Status::InvalidArgument("'" + to + "' is not a 32-hex ID");
    d.new_id = *id;
    d.new_uid = "";  // an ID alone says nothing about the uid; a stale one would contradict it
  } else {
    d.new_id = OperatorId::FromUid(value);
    d.new_uid = value;
  }
  return d;
}

struct NewJob {
  pb::JobGraph graph;
  std::map<OperatorId, int> by_id;
};

base::Result<NewJob> LoadNewJob(base::Fs& fs, const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(auto spec, format::ReadJobSpecFile(fs, path));
  NewJob job;
  CKPT_ASSIGN_OR_RETURN(job.graph, format::BuildJobGraph(spec));
  for (int i = 0; i < job.graph.operators_size(); ++i) {
    CKPT_ASSIGN_OR_RETURN(OperatorId id, OperatorId::FromBytes(job.graph.operators(i).operator_id()));
    job.by_id[id] = i;
  }
  return job;
}

// Applies the first matching prefix and suffix rewrite to `uid`; records which rewrites hit.
base::Result<std::optional<std::string>> RewriteUid(const RemapOptions& options,
                                                    const std::string& uid,
                                                    std::set<std::string>* used) {
  std::string out = uid;
  bool changed = false;
  auto apply = [&](const std::vector<UidRewrite>& rewrites, bool prefix,
                   const char* flag) -> base::Status {
    const UidRewrite* hit = nullptr;
    for (const auto& r : rewrites) {
      bool matches = prefix ? out.rfind(r.from, 0) == 0
                            : out.size() >= r.from.size() &&
                                  out.compare(out.size() - r.from.size(), r.from.size(), r.from) == 0;
      if (!matches) continue;
      if (hit != nullptr) {
        return base::Status::InvalidArgument(std::string("uid '") + uid + "' matches both " +
                                             flag + " " + hit->from + "=" + hit->to + " and " +
                                             r.from + "=" + r.to);
      }
      hit = &r;
    }
    if (hit == nullptr) return base::Status::OK();
    used->insert(std::string(flag) + " " + hit->from + "=" + hit->to);
    out = prefix ? hit->to + out.substr(hit->from.size())
                 : out.substr(0, out.size() - hit->from.size()) + hit->to;
    changed = true;
    return base::Status::OK();
  };
  CKPT_RETURN_IF_ERROR(apply(options.uid_prefix_rewrites, true, "--uid-prefix"));
  CKPT_RETURN_IF_ERROR(apply(options.uid_suffix_rewrites, false, "--uid-suffix"));
  if (!changed) return std::optional<std::string>();
  return std::optional<std::string>(out);
}

base::Status AddRename(RemapPlan* plan, size_t index, RemapDecision decision) {
  if (plan->drops.count(index)) {
    return base::Status::InvalidArgument(Describe(plan->known[index]) +
                                         " is both dropped and mapped (" + decision.reason + ")");
  }
  auto it = plan->renames.find(index);
  if (it != plan->renames.end()) {
    if (it->second.new_id == decision.new_id) return base::Status::OK();
    return base::Status::InvalidArgument(
        "ambiguous mapping: " + Describe(plan->known[index]) + " is mapped to " +
        it->second.new_id.ToHex() + " (" + it->second.reason + ") and to " +
        decision.new_id.ToHex() + " (" + decision.reason + ")");
  }
  if (decision.new_id == plan->known[index].id) return base::Status::OK();  // a no-op mapping
  plan->renames[index] = std::move(decision);
  return base::Status::OK();
}

// Refuses chains (A=B, B=C), two olds to one new, and collisions with an operator that keeps
// its ID: each would silently merge or swap states.
base::Status CheckConsistent(const RemapPlan& plan) {
  std::map<OperatorId, size_t> target_of;
  std::map<OperatorId, size_t> renamed_old;
  for (const auto& [i, d] : plan.renames) renamed_old[plan.known[i].id] = i;
  for (const auto& [i, d] : plan.renames) {
    auto [it, fresh] = target_of.emplace(d.new_id, i);
    if (!fresh) {
      return base::Status::InvalidArgument(
          "two operators map to " + d.new_id.ToHex() + ": " + Describe(plan.known[it->second]) +
          " (" + plan.renames.at(it->second).reason + ") and " + Describe(plan.known[i]) + " (" +
          d.reason + ")");
    }
    auto chained = renamed_old.find(d.new_id);
    if (chained != renamed_old.end()) {
      return base::Status::InvalidArgument(
          "chained mapping: " + Describe(plan.known[i]) + " maps to " + d.new_id.ToHex() +
          ", which is itself mapped on (" + plan.renames.at(chained->second).reason +
          "); remap in two separate steps");
    }
    for (size_t k = 0; k < plan.known.size(); ++k) {
      if (k == i || plan.renames.count(k) || plan.drops.count(k)) continue;
      if (plan.known[k].id == d.new_id && plan.known[k].state_index >= 0) {
        return base::Status::InvalidArgument(
            Describe(plan.known[i]) + " would take the ID of " + Describe(plan.known[k]) +
            ", which keeps its state (" + d.reason + "); --drop it or map it elsewhere");
      }
    }
  }
  return base::Status::OK();
}

}  // namespace

base::Result<RemapPlan> PlanRemap(base::Fs& fs, const pb::CheckpointMetadata& metadata,
                                  const RemapOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto known, CollectKnown(metadata));
  return PlanRemapOf(fs, std::move(known),
                     [&](int i) { return metadata.operators(i).max_parallelism(); }, options);
}

base::Result<RemapPlan> PlanRemapOf(base::Fs& fs, std::vector<KnownOperator> known,
                                    const std::function<uint32_t(int)>& max_parallelism_of_state,
                                    const RemapOptions& options) {
  if (options.mappings.empty() && options.against_job_path.empty() &&
      options.uid_prefix_rewrites.empty() && options.uid_suffix_rewrites.empty() &&
      options.drop.empty()) {
    return base::Status::InvalidArgument(
        "nothing to remap: give --map, --against, --uid-prefix, --uid-suffix or --drop");
  }
  if (!options.mappings.empty() && !options.against_job_path.empty()) {
    return base::Status::InvalidArgument("--map and --against are exclusive");
  }
  if (options.by_name && options.against_job_path.empty()) {
    return base::Status::InvalidArgument("--by-name needs --against");
  }
  RemapPlan plan;
  plan.known = std::move(known);

  for (const auto& ref : options.drop) {
    CKPT_ASSIGN_OR_RETURN(auto hits, ResolveOld(plan.known, ref));
    if (hits.empty()) plan.unmatched.push_back("--drop " + ref);
    for (size_t h : hits) plan.drops[h] = "--drop " + ref;
  }
  for (const auto& m : options.mappings) {
    if (m.from.empty() || m.to.empty()) {
      return base::Status::InvalidArgument("mapping '" + m.from + "=" + m.to +
                                           "' needs OLD=NEW");
    }
    std::string reason = "--map " + m.from + "=" + m.to;
    for (std::string& w : MappingWarnings(m)) plan.warnings.push_back(std::move(w));
    CKPT_ASSIGN_OR_RETURN(auto hits, ResolveOld(plan.known, m.from));
    if (hits.empty()) {
      plan.unmatched.push_back(reason);
      continue;
    }
    CKPT_ASSIGN_OR_RETURN(RemapDecision d, ParseNew(m.to, reason));
    CKPT_RETURN_IF_ERROR(AddRename(&plan, hits[0], std::move(d)));
  }

  std::optional<NewJob> job;
  if (!options.against_job_path.empty()) {
    CKPT_ASSIGN_OR_RETURN(job, LoadNewJob(fs, options.against_job_path));
  }
  std::set<std::string> used_rewrites;
  for (size_t i = 0; i < plan.known.size(); ++i) {
    const KnownOperator& op = plan.known[i];
    if (plan.drops.count(i) || plan.renames.count(i) || op.uid.empty()) continue;
    CKPT_ASSIGN_OR_RETURN(auto rewritten, RewriteUid(options, op.uid, &used_rewrites));
    if (!rewritten) continue;
    RemapDecision d{OperatorId::FromUid(*rewritten), *rewritten,
                    "uid " + op.uid + " rewritten to " + *rewritten};
    CKPT_RETURN_IF_ERROR(AddRename(&plan, i, std::move(d)));
  }
  for (const auto* list : {&options.uid_prefix_rewrites, &options.uid_suffix_rewrites}) {
    const char* flag = list == &options.uid_prefix_rewrites ? "--uid-prefix" : "--uid-suffix";
    for (const auto& r : *list) {
      std::string s = std::string(flag) + " " + r.from + "=" + r.to;
      if (!used_rewrites.count(s)) plan.unmatched.push_back(s);
    }
  }

  if (job) {
    const std::string& jp = options.against_job_path;
    for (size_t i = 0; i < plan.known.size(); ++i) {
      const KnownOperator& op = plan.known[i];
      if (plan.drops.count(i) || plan.renames.count(i)) continue;
      if (job->by_id.count(op.id)) {
        plan.keep_reasons[i] = "same ID in " + jp;
        continue;
      }
      const std::string& key = options.by_name ? op.name : op.spec_id;
      std::vector<int> candidates;
      for (int k = 0; k < job->graph.operators_size() && !key.empty(); ++k) {
        const auto& n = job->graph.operators(k);
        if ((options.by_name ? n.name() : n.spec_id()) == key) candidates.push_back(k);
      }
      if (candidates.size() > 1) {
        return base::Status::InvalidArgument("ambiguous: " + std::to_string(candidates.size()) +
                                             " operators of " + jp + " have " +
                                             (options.by_name ? "name '" : "spec id '") + key +
                                             "' (for " + Describe(op) + ")");
      }
      if (candidates.empty()) continue;  // reported below if it has state
      const auto& n = job->graph.operators(candidates[0]);
      CKPT_ASSIGN_OR_RETURN(OperatorId nid, OperatorId::FromBytes(n.operator_id()));
      RemapDecision d{nid, n.uid(),
                      std::string(options.by_name ? "same name '" : "same spec id '") + key +
                          "' in " + jp};
      CKPT_RETURN_IF_ERROR(AddRename(&plan, i, std::move(d)));
    }
  }
  CKPT_RETURN_IF_ERROR(CheckConsistent(plan));

  if (job) {
    for (size_t i = 0; i < plan.known.size(); ++i) {
      const KnownOperator& op = plan.known[i];
      if (op.state_index < 0 || plan.drops.count(i)) continue;
      auto r = plan.renames.find(i);
      OperatorId final_id = r == plan.renames.end() ? op.id : r->second.new_id;
      auto n = job->by_id.find(final_id);
      if (n == job->by_id.end()) {
        plan.warnings.push_back("state of " + Describe(op) + " has no operator in " +
                                options.against_job_path +
                                ": a restore needs --allow-non-restored-state; --map or --drop it");
        continue;
      }
      uint32_t old_max = max_parallelism_of_state(op.state_index);
      uint32_t new_max = job->graph.operators(n->second).max_parallelism();
      if (old_max != new_max) {
        plan.warnings.push_back("max parallelism of " + Describe(op) + " is " +
                                std::to_string(old_max) + " in the snapshot but " +
                                std::to_string(new_max) + " in " + options.against_job_path +
                                ": the restore will fail");
      }
    }
  }
  return plan;
}

RemapEntry PlannedEntry(const RemapPlan& plan, size_t i) {
  const KnownOperator& k = plan.known[i];
  RemapEntry e;
  e.name = k.name;
  e.old_id_hex = k.id.ToHex();
  e.old_uid = k.uid;
  e.new_id_hex = e.old_id_hex;
  e.new_uid = k.uid;
  if (auto d = plan.drops.find(i); d != plan.drops.end()) {
    e.action = RemapAction::kDrop;
    e.new_id_hex.clear();
    e.new_uid.clear();
    e.reason = d->second;
  } else if (auto r = plan.renames.find(i); r != plan.renames.end()) {
    e.action = RemapAction::kRename;
    e.new_id_hex = r->second.new_id.ToHex();
    if (r->second.new_uid) e.new_uid = *r->second.new_uid;
    e.reason = r->second.reason;
  } else if (auto kr = plan.keep_reasons.find(i); kr != plan.keep_reasons.end()) {
    e.reason = kr->second;
  }
  return e;
}

}  // namespace ckpt::ops::internal
