// Renderers of `ckpt-tool positions` and of the positions section of `ckpt-tool diff`: text
// tables and JSON over ops::PositionsReport and ops::PositionAdvance (docs/positions.md). Pure
// formatting; stateless.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ckpt/ops/positions.h"

namespace ckpt::cli {

// One table per operator (splits; a sink's transactions), then the findings.
void RenderPositionsText(const ops::PositionsReport& report, std::ostream& out);
// One JSON document on one line: {"operators":[...],"findings":[...]} (positions.schema.json).
void RenderPositionsJson(const ops::PositionsReport& report, std::ostream& out);

// A resume offset for people: Kafka's special offsets as "earliest", "latest", "committed"
// (when `kafka`); the engine file source's finished split (-1, when `engine_file`) as "done";
// unset as "-".
std::string OffsetText(const std::optional<int64_t>& offset, bool kafka, bool engine_file);

// diff's positions section: per operator and split, from -> to and how far reading advanced.
void RenderAdvancesText(const std::vector<ops::PositionAdvance>& advances, std::ostream& out);
// One JSON line of diff per advance: {"type":"position",...} (diff.schema.json).
std::string AdvanceJson(const ops::PositionAdvance& advance);

}  // namespace ckpt::cli
