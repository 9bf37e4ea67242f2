// Where each operator of a job spec is written in its file (validate.h): the spec's operators
// are identified by the IDs the job graph derives for them, as findings name them.
#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops {

base::Result<std::map<std::string, SpecOperatorPosition>> JobSpecOperatorPositions(
    base::Fs& fs, const std::string& spec_path) {
  CKPT_ASSIGN_OR_RETURN(pb::JobSpec spec, format::ReadJobSpecFile(fs, spec_path));
  // ReadJobSpecFile bounded the size and checked the syntax; the text is read again for its
  // positions.
  CKPT_ASSIGN_OR_RETURN(std::string json,
                        base::ReadUserFileToString(fs, spec_path, uint64_t{64} << 20));
  auto graph = format::BuildJobGraph(spec);
  if (!graph.ok()) return graph.status().WithContext(spec_path);
  std::map<std::string, SpecOperatorPosition> positions;
  for (const auto& op : graph->operators()) {
    for (int i = 0; i < spec.operators_size(); ++i) {
      if (spec.operators(i).id() != op.spec_id()) continue;
      const auto at = format::JobSpecOperatorPosition(json, i);
      if (!at) break;
      const std::string id =
          format::OperatorId::FromBytes(op.operator_id()).ValueOr(format::OperatorId()).ToHex();
      positions[id] = SpecOperatorPosition{at->line, at->column};
      break;
    }
  }
  return positions;
}

}  // namespace ckpt::ops
