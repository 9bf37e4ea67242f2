// The text report of `ckpt-tool validate`: by default the verdict and the findings that decide
// it; every finding with --verbose; the capability table with --capabilities. Stateless.
#pragma once

#include <ostream>
#include <string_view>

#include "ckpt/ops/validate.h"

namespace ckpt::cli {

struct ValidateTextOptions {
  // Every finding (warnings and notes too), not only the ones that fail the check. Default: off.
  bool verbose = false;
  // --strict: warnings fail the check too, so they are shown with the errors. Default: off.
  bool strict = false;
  // Print the table of supported operations after the verdict. Default: off.
  bool capabilities = false;
  // --deep ran: the records decoded are counted. Default: off.
  bool deep = false;
};

// Prints `report` of the snapshot named `path_as_given`: a headline, the findings that fail the
// check (errors; with strict, warnings) in full, a count of the others and how to list them,
// the rules that could not be checked, what was checked, and "verdict: ..." on the restore.
void RenderValidateText(const ops::ValidateReport& report, std::string_view path_as_given,
                        const ValidateTextOptions& options, std::ostream& out);

// The verdict line's text (without "verdict: "): whether the snapshot restores, and if not, the
// rules that block it or could not be checked; with `strict`, also whether warnings fail it.
std::string ValidateVerdict(const ops::ValidateReport& report, bool strict);

}  // namespace ckpt::cli
