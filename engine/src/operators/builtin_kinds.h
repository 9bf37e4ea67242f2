// Registration functions of the built-in operator kinds, one per source file of this folder;
// RegisterBuiltinOperators (builtin_operators.cpp) calls them all. Private to the engine.
#pragma once

#include "ckpt/base/status.h"
#include "ckpt/engine/operator_registry.h"

namespace ckpt::engine::operators {

base::Status RegisterSequenceSource(OperatorRegistry& registry);      // sequence_source.cpp
base::Status RegisterFailureInjector(OperatorRegistry& registry);     // failure_injector.cpp
base::Status RegisterKeyedAggregates(OperatorRegistry& registry);     // keyed_aggregates.cpp
base::Status RegisterFileSink(OperatorRegistry& registry);            // file_sink.cpp
base::Status RegisterSimpleSinks(OperatorRegistry& registry);         // simple_sinks.cpp
base::Status RegisterTransforms(OperatorRegistry& registry);          // transforms.cpp
base::Status RegisterSlowOperator(OperatorRegistry& registry);        // slow_operator.cpp
base::Status RegisterDedupe(OperatorRegistry& registry);              // dedupe.cpp
base::Status RegisterWindowOperators(OperatorRegistry& registry);     // window_operator.cpp
base::Status RegisterWindowJoin(OperatorRegistry& registry);          // window_join.cpp
base::Status RegisterIntervalJoin(OperatorRegistry& registry);        // interval_join.cpp
base::Status RegisterTextFileSource(OperatorRegistry& registry);      // text_file_source.cpp
base::Status RegisterDirectorySource(OperatorRegistry& registry);     // directory_source.cpp

}  // namespace ckpt::engine::operators
