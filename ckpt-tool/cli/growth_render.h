// Rendering of ckpt-tool growth: text tables and JSON lines (docs/json/growth.schema.json).
#pragma once

#include <ostream>

#include "ckpt/ops/growth.h"

namespace ckpt::cli {

// Per job: the checkpoints table, the latest's needs against storage, the split of the stored
// bytes, the operators' trend and the notes.
void PrintGrowthText(const ops::GrowthReport& report, std::ostream& out);

// Per job: one line per checkpoint, one per operator, then the job's summary line.
void PrintGrowthJson(const ops::GrowthReport& report, std::ostream& out);

}  // namespace ckpt::cli
