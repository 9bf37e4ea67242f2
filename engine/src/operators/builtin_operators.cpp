// The built-in operator catalog (issue 3). Each operator lives in its own file in this folder;
// this function registers them all.
#include "ckpt/engine/operator_registry.h"

namespace ckpt::engine {

void RegisterBuiltinOperators(OperatorRegistry& registry) { (void)registry; }

}  // namespace ckpt::engine
