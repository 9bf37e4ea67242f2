#include "ckpt/format/job_spec.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <tuple>

#include "ckpt/format/key_groups.h"
#include "job_spec_rules.h"
#include "json_location.h"

namespace ckpt::format {
namespace internal {

uint32_t EffectiveParallelism(const pb::JobSpec& spec, const pb::OperatorSpec& op) {
  if (op.parallelism() != 0) return op.parallelism();
  return spec.parallelism() != 0 ? spec.parallelism() : 1;
}

uint32_t EffectiveMaxParallelism(const pb::JobSpec& spec, const pb::OperatorSpec& op) {
  if (op.max_parallelism() != 0) return op.max_parallelism();
  if (spec.max_parallelism() != 0) return spec.max_parallelism();
  return DefaultMaxParallelism(EffectiveParallelism(spec, op));
}

std::unordered_map<std::string, int> OperatorIndex(const pb::JobSpec& spec) {
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < spec.operators_size(); ++i) index.emplace(spec.operators(i).id(), i);
  return index;
}

}  // namespace internal

namespace {

constexpr uint64_t kMaxJobSpecBytes = 64u << 20;
constexpr uint32_t kDefaultRestartAttempts = 3;

base::Status Invalid(const std::string& path, const std::string& what) {
  return base::Status::InvalidArgument(path + ": " + what);
}

std::string OpField(const pb::JobSpec& spec, int i, const char* field) {
  return "operators[" + std::to_string(i) + "] ('" + spec.operators(i).id() + "')." + field;
}

bool IsHex32(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

base::Status CheckOperators(const pb::JobSpec& spec, const std::string& path) {
  if (spec.operators_size() == 0) return Invalid(path, "operators: a job needs at least one");
  std::unordered_map<std::string, int> ids;
  std::unordered_map<std::string, int> uids;
  for (int i = 0; i < spec.operators_size(); ++i) {
    const pb::OperatorSpec& op = spec.operators(i);
    if (op.id().empty()) {
      return Invalid(path, "operators[" + std::to_string(i) + "].id: required field is missing");
    }
    if (auto [it, fresh] = ids.emplace(op.id(), i); !fresh) {
      return Invalid(path, OpField(spec, i, "id") + ": duplicate id, also used by operators[" +
                               std::to_string(it->second) + "]");
    }
    if (op.kind().empty()) return Invalid(path, OpField(spec, i, "kind") + ": required field is missing");
    if (!op.uid().empty()) {
      if (auto [it, fresh] = uids.emplace(op.uid(), i); !fresh) {
        return Invalid(path, OpField(spec, i, "uid") + ": duplicate uid '" + op.uid() +
                                 "', also used by operators[" + std::to_string(it->second) +
                                 "] ('" + spec.operators(it->second).id() + "')");
      }
    }
    base::Status st = CheckParallelism(internal::EffectiveParallelism(spec, op),
                                       internal::EffectiveMaxParallelism(spec, op));
    if (!st.ok()) {
      // Name the field the user wrote; an inherited value is named as such.
      const char* field = op.parallelism() != 0       ? "parallelism"
                          : op.max_parallelism() != 0 ? "max_parallelism"
                                                      : "parallelism (inherited from the job)";
      return Invalid(path, OpField(spec, i, field) + ": " + st.message());
    }
  }
  return base::Status::OK();
}

base::Status CheckEdges(const pb::JobSpec& spec, const std::string& path) {
  const auto index = internal::OperatorIndex(spec);
  std::set<std::tuple<std::string, std::string, uint32_t>> seen;
  for (int i = 0; i < spec.edges_size(); ++i) {
    const pb::EdgeSpec& e = spec.edges(i);
    const std::string where = "edges[" + std::to_string(i) + "]";
    if (e.from().empty()) return Invalid(path, where + ".from: required field is missing");
    if (e.to().empty()) return Invalid(path, where + ".to: required field is missing");
    auto from = index.find(e.from());
    if (from == index.end()) {
      return Invalid(path, where + ".from: no operator has id '" + e.from() + "'");
    }
    auto to = index.find(e.to());
    if (to == index.end()) return Invalid(path, where + ".to: no operator has id '" + e.to() + "'");
    if (e.partitioning() == pb::PARTITIONING_UNSPECIFIED || !pb::Partitioning_IsValid(e.partitioning())) {
      return Invalid(path, where + ".partitioning: required (FORWARD, REBALANCE, HASH, BROADCAST " +
                               "or RESCALE)");
    }
    if (e.input() > 1) {
      return Invalid(path, where + ".input: " + std::to_string(e.input()) + " is not 0 or 1");
    }
    if (e.from() == e.to()) {
      return Invalid(path, where + ": cycle: operator '" + e.from() + "' feeds itself");
    }
    if (!seen.emplace(e.from(), e.to(), e.input()).second) {
      return Invalid(path, where + ": duplicate edge '" + e.from() + "' -> '" + e.to() + "'");
    }
    if (e.partitioning() == pb::FORWARD) {
      uint32_t pf = internal::EffectiveParallelism(spec, spec.operators(from->second));
      uint32_t pt = internal::EffectiveParallelism(spec, spec.operators(to->second));
      if (pf != pt) {
        return Invalid(path, where + ".partitioning: FORWARD from '" + e.from() + "' (parallelism " +
                                 std::to_string(pf) + ") to '" + e.to() + "' (parallelism " +
                                 std::to_string(pt) + ") needs equal parallelism; use " +
                                 "REBALANCE or RESCALE");
      }
    }
  }
  return base::Status::OK();
}

// Iterative DFS (a hostile spec may be a very long chain) that names the operators on the first
// cycle it finds.
base::Status CheckAcyclic(const pb::JobSpec& spec, const std::string& path) {
  const auto index = internal::OperatorIndex(spec);
  const int n = spec.operators_size();
  std::vector<std::vector<int>> out(n);
  for (const auto& e : spec.edges()) out[index.at(e.from())].push_back(index.at(e.to()));
  enum : uint8_t { kWhite, kGrey, kBlack };
  std::vector<uint8_t> color(n, kWhite);
  std::vector<int> parent(n, -1);
  for (int root = 0; root < n; ++root) {
    if (color[root] != kWhite) continue;
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    color[root] = kGrey;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == out[node].size()) {
        color[node] = kBlack;
        stack.pop_back();
        continue;
      }
      int child = out[node][next++];
      if (color[child] == kGrey) {
        std::vector<std::string> cycle{spec.operators(child).id()};
        for (int v = node; v != child; v = parent[v]) cycle.push_back(spec.operators(v).id());
        std::reverse(cycle.begin() + 1, cycle.end());
        std::string text;
        for (const auto& id : cycle) text += "'" + id + "' -> ";
        return Invalid(path, "edges: cycle " + text + "'" + cycle.front() + "'");
      }
      if (color[child] == kWhite) {
        color[child] = kGrey;
        parent[child] = node;
        stack.emplace_back(child, 0);
      }
    }
  }
  return base::Status::OK();
}

void FillDefaults(pb::JobSpec* spec) {
  for (auto& op : *spec->mutable_operators()) {
    if (op.name().empty()) op.set_name(op.id());
    const uint32_t maxp = internal::EffectiveMaxParallelism(*spec, op);
    op.set_parallelism(internal::EffectiveParallelism(*spec, op));
    op.set_max_parallelism(maxp);
  }
  if (spec->parallelism() == 0) spec->set_parallelism(1);
  // Zero is not a meaningful value for these, so an explicit 0 and an absent field both mean the
  // default. Fields where 0 is meaningful (interval, pause, tolerable failures) stay as given.
  pb::CheckpointSpec* cp = spec->mutable_checkpointing();
  if (cp->mode() == pb::CHECKPOINTING_MODE_UNSPECIFIED) cp->set_mode(pb::ALIGNED_EXACTLY_ONCE);
  if (cp->timeout_ms() == 0) cp->set_timeout_ms(600000);
  if (cp->max_concurrent() == 0) cp->set_max_concurrent(1);
  if (cp->num_retained() == 0) cp->set_num_retained(1);
  if (cp->retention() == pb::RETENTION_POLICY_UNSPECIFIED) cp->set_retention(pb::NO_EXTERNALIZED);
  // A restart section the user wrote is taken literally; only an absent one gets the default:
  // Flink's fixed-delay strategy with a finite number of attempts, so a failure that repeats
  // (a corrupt state file, an unwritable sink) ends the job with its cause instead of looping.
  if (!spec->has_restart()) {
    pb::RestartSpec* r = spec->mutable_restart();
    r->set_max_attempts(cp->interval_ms() == 0 ? 0 : kDefaultRestartAttempts);
    r->set_delay_ms(1000);
  }
}

}  // namespace

base::Status ValidateJobSpec(const pb::JobSpec& spec, const std::string& path) {
  if (spec.name().empty()) return Invalid(path, "name: required field is missing");
  if (!spec.job_id().empty() && !IsHex32(spec.job_id())) {
    return Invalid(path, "job_id: '" + spec.job_id() + "' is not 32 hex characters");
  }
  if (spec.max_parallelism() > kUpperBoundMaxParallelism) {
    return Invalid(path, "max_parallelism: " + std::to_string(spec.max_parallelism()) +
                             " is above 32768");
  }
  if (spec.has_checkpointing() &&
      !pb::CheckpointingMode_IsValid(spec.checkpointing().mode())) {
    return Invalid(path, "checkpointing.mode: unknown value");
  }
  if (!spec.state_backend().empty() && spec.state_backend() != "heap" &&
      spec.state_backend() != "rocksdb") {
    return Invalid(path, "state_backend: unknown state backend '" + spec.state_backend() +
                             "' (expected heap or rocksdb)");
  }
  if (spec.incremental() && spec.state_backend() == "heap") {
    return Invalid(path, "incremental: incremental checkpoints need \"state_backend\": "
                         "\"rocksdb\" (the heap backend takes full snapshots only)");
  }
  CKPT_RETURN_IF_ERROR(CheckOperators(spec, path));
  CKPT_RETURN_IF_ERROR(CheckEdges(spec, path));
  return CheckAcyclic(spec, path);
}

namespace {

// proto3 cannot tell `"parallelism": 0` from an absent field, so the JSON is looked at again:
// an explicit 0 is refused instead of silently meaning "the default".
base::Status RefuseExplicitZeroParallelism(std::string_view json, const std::string& path) {
  google::protobuf::Struct raw;
  auto st = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &raw);
  if (!st.ok()) return base::Status::OK();  // the typed parse already accepted it: not an object
  auto is_zero = [](const google::protobuf::Struct& s) {
    auto it = s.fields().find("parallelism");
    return it != s.fields().end() &&
           it->second.kind_case() == google::protobuf::Value::kNumberValue &&
           it->second.number_value() == 0;
  };
  const std::string why = "0 is not a parallelism (omit the field for the default)";
  if (is_zero(raw)) return Invalid(path, "parallelism: " + why);
  auto ops = raw.fields().find("operators");
  if (ops == raw.fields().end() || !ops->second.has_list_value()) return base::Status::OK();
  const auto& list = ops->second.list_value();
  for (int i = 0; i < list.values_size(); ++i) {
    if (!list.values(i).has_struct_value() || !is_zero(list.values(i).struct_value())) continue;
    auto id = list.values(i).struct_value().fields().find("id");
    const std::string name = id != list.values(i).struct_value().fields().end()
                                 ? " ('" + id->second.string_value() + "')"
                                 : "";
    return Invalid(path, "operators[" + std::to_string(i) + "]" + name + ".parallelism: " + why);
  }
  return base::Status::OK();
}

// The field path a job-spec error starts with: "operators[0] ('a').kind: ..." ->
// "operators[0].kind", "(operators[1].parallelism): ..." -> "operators[1].parallelism",
// "(operators[0]) kindd: ..." -> "operators[0].kindd".
std::string FieldPathOf(std::string_view message) {
  std::string field;
  size_t i = message.empty() || message[0] != '(' ? 0 : 1;
  for (;;) {
    while (i < message.size() && (std::isalnum(static_cast<unsigned char>(message[i])) ||
                                  std::string_view("_.[]").find(message[i]) !=
                                      std::string_view::npos)) {
      field.push_back(message[i++]);
    }
    // An operator's or edge's name in parentheses between the index and the member.
    if (message.substr(i, 2) != " (") break;
    const size_t close = message.find(')', i);
    if (close == std::string_view::npos || close + 1 >= message.size() ||
        message[close + 1] != '.') {
      break;
    }
    i = close + 1;
  }
  // protobuf's "(operators[0]) kindd: Cannot find field.": the unknown member after the path.
  if (message.substr(i, 2) == ") ") {
    const size_t colon = message.find(':', i + 2);
    if (colon != std::string_view::npos) field += "." + std::string(message.substr(i + 2, colon - i - 2));
  }
  return field;
}

// "PATH:LINE:COL: WHAT" when `field` (a path such as "operators[0].kind", or a bare member name)
// is found in `json`, else "PATH: WHAT".
base::Status InvalidAtField(std::string_view json, const std::string& path,
                            const std::string& field, const std::string& what) {
  std::optional<size_t> at = internal::JsonPathOffset(json, field);
  if (!at && !field.empty()) {
    // protobuf names an unknown member without its path: find its key.
    const size_t dot = field.find_last_of('.');
    at = internal::JsonMemberOffset(json, dot == std::string::npos ? field : field.substr(dot + 1));
  }
  if (!at) return Invalid(path, what);
  const internal::TextPosition pos = internal::PositionOf(json, *at);
  return Invalid(path + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column), what);
}

// A job-spec rule's error ("PATH: FIELD...: WHY") pointed at the line and column of its field.
base::Status PointedAtField(const base::Status& error, std::string_view json,
                            const std::string& path) {
  const std::string_view message = error.message();
  if (message.substr(0, path.size() + 2) != path + ": ") return error;
  const std::string what(message.substr(path.size() + 2));
  return InvalidAtField(json, path, FieldPathOf(what), what);
}

}  // namespace

base::Result<pb::JobSpec> ParseJobSpec(std::string_view json, const std::string& path) {
  pb::JobSpec spec;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto st = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &spec, options);
  if (!st.ok()) {
    // protobuf's syntax errors carry no position: find the first one ourselves.
    if (auto syntax = internal::FirstJsonSyntaxError(json)) {
      const internal::TextPosition pos = internal::PositionOf(json, syntax->offset);
      return Invalid(path + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column),
                     "not valid JSON: expected " + syntax->expected);
    }
    // Otherwise protobuf names the offending field, e.g. "paralelism: Cannot find field.".
    const std::string message(st.message());
    return InvalidAtField(json, path, FieldPathOf(message), "not a valid job spec: " + message);
  }
  base::Status valid = ValidateJobSpec(spec, path);
  if (valid.ok()) valid = RefuseExplicitZeroParallelism(json, path);
  if (!valid.ok()) return PointedAtField(valid, json, path);
  FillDefaults(&spec);
  return spec;
}

std::optional<SpecTextPosition> JobSpecOperatorPosition(std::string_view json, int index) {
  if (index < 0 || internal::FirstJsonSyntaxError(json)) return std::nullopt;
  const std::optional<size_t> at =
      internal::JsonPathOffset(json, "operators[" + std::to_string(index) + "]");
  if (!at) return std::nullopt;
  const internal::TextPosition pos = internal::PositionOf(json, *at);
  return SpecTextPosition{pos.line, pos.column};
}

base::Result<pb::JobSpec> ReadJobSpecFile(base::Fs& fs, const std::string& path) {
  auto data = base::ReadUserFileToString(fs, path, kMaxJobSpecBytes);
  if (!data.ok()) return data.status();
  return ParseJobSpec(*data, path);
}

}  // namespace ckpt::format
