// The built-in operator catalog. Each kind lives in its own file in this folder and
// registers itself through a function declared in builtin_kinds.h.
#include "ckpt/engine/operator_registry.h"

#include <cstdio>
#include <cstdlib>

#include "operators/builtin_kinds.h"

namespace ckpt::engine {

void RegisterBuiltinOperators(OperatorRegistry& registry) {
  using Fn = base::Status (*)(OperatorRegistry&);
  static constexpr Fn kRegistrations[] = {
      operators::RegisterSequenceSource, operators::RegisterFailureInjector,
      operators::RegisterKeyedAggregates, operators::RegisterFileSink,
      operators::RegisterSimpleSinks,     operators::RegisterTransforms,
      operators::RegisterSlowOperator,    operators::RegisterDedupe,
      operators::RegisterWindowOperators, operators::RegisterWindowJoin,
      operators::RegisterTextFileSource,  operators::RegisterDirectorySource,
      operators::RegisterIntervalJoin,
  };
  for (Fn fn : kRegistrations) {
    base::Status st = fn(registry);
    if (!st.ok()) {
      // Only a duplicate kind name can fail here: a programming error in this folder.
      std::fprintf(stderr, "ckpt-engine: registering the built-in operators: %s\n",
                   st.ToString().c_str());
      std::abort();
    }
  }
}

}  // namespace ckpt::engine
