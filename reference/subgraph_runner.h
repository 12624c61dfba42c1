// File: reference/subgraph_runner.h
// -----------------------------------------------------------------------------
// What the control-flow kernels (control_flow.cc) need from the interpreter:
// running a nested FX graph (a cond branch, a loop or scan body) on values.
// Interpret() implements it; a kernel reaches it through RefCall.
#ifndef PT2ONNX_REFERENCE_SUBGRAPH_RUNNER_H_
#define PT2ONNX_REFERENCE_SUBGRAPH_RUNNER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/pt2/schema.h"
#include "reference/ref_value.h"

namespace pt2onnx::reference {

// Deepest nesting of higher-order ops run (as the translator accepts).
inline constexpr int kMaxNestedGraphDepth = 16;

class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  // Runs `graph` with its inputs bound, in order, to `inputs`; returns its
  // outputs in order. Outputs never share a buffer with an input.
  virtual absl::StatusOr<std::vector<RefValue>> Run(const pt2::Graph& graph,
                                                    const std::vector<RefValue>& inputs) = 0;
  // Most while_loop iterations run before giving up (InterpretOptions).
  virtual int64_t max_loop_iterations() const = 0;
};

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_SUBGRAPH_RUNNER_H_
