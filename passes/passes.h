// File: passes/passes.h
// -----------------------------------------------------------------------------
// Factories of every pass, and the default pipeline.
#ifndef PT2ONNX_PASSES_PASSES_H_
#define PT2ONNX_PASSES_PASSES_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/graph.h"
#include "passes/pass.h"

namespace pt2onnx::passes {

// Removes nodes whose outputs nobody reads (graph outputs are roots).
std::unique_ptr<Pass> CreateDeadCodeEliminationPass();
// Drops Identity nodes whose output is not a graph output.
std::unique_ptr<Pass> CreateIdentityEliminationPass();

// The default optimization pipeline (see pipeline.cc for the order and why).
std::vector<std::unique_ptr<Pass>> DefaultPipeline();

// Runs `pipeline` to a fixed point (at most `max_iterations` rounds). Errors
// name the failing pass and the passes run before it. With `verify`, checks
// the IR invariants after every pass.
absl::Status RunPipeline(const std::vector<std::unique_ptr<Pass>>& pipeline, ir::Model& model,
                         bool verify, int max_iterations = 4);

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_PASSES_H_
