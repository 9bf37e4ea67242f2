// The small state file a running `ckpt-engine run --rest-port` writes so that client verbs
// (`ckpt-engine list`, `savepoint`, ...) find it without --address: JSON {"address", "job_id",
// "pid"}. Location: $CKPT_ENGINE_STATE_FILE if set, else $XDG_RUNTIME_DIR/ckpt-engine/rest.json,
// else $HOME/.ckpt-engine/rest.json. The newest engine wins; an engine removes the file at exit
// only if it is still its own.
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::engine::cli {

struct EngineStateRecord {
  std::string address;  // http://127.0.0.1:8081
  std::string job_id;
  long pid = 0;
  // The engine's command line, to print the exact command that resumes from a savepoint.
  std::vector<std::string> argv;
};

// "" if no location can be derived (no variable set).
std::string EngineStateFilePath();
base::Status WriteEngineState(const EngineStateRecord& record);
// NotFound (saying to pass --address) when there is no state file; Corruption naming the file
// when it does not parse.
base::Result<EngineStateRecord> ReadEngineState();
// Removes the file if it still names this process.
void RemoveEngineStateIfOurs();

}  // namespace ckpt::engine::cli
