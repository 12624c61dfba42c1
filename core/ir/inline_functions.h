// File: core/ir/inline_functions.h
// -----------------------------------------------------------------------------
// Model-local ONNX functions expanded in place, for consumers that run only
// plain graphs (the executor): each node calling a function of the model
// (its domain and op type are the function's domain and name), in the graph
// and in its subgraphs, becomes the function's body with fresh value names.
#ifndef PT2ONNX_CORE_IR_INLINE_FUNCTIONS_H_
#define PT2ONNX_CORE_IR_INLINE_FUNCTIONS_H_

#include "absl/status/status.h"
#include "core/ir/graph.h"

namespace pt2onnx::ir {

// Inlines every call and clears model.functions. InvalidArgument for a call
// with more inputs or outputs than its function declares, or calls nested
// deeper than 16; Unimplemented for a body node with a subgraph.
absl::Status InlineLocalFunctions(Model& model);

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_INLINE_FUNCTIONS_H_
