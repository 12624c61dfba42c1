// File: passes/pass.h
// -----------------------------------------------------------------------------
// A graph optimization: one rewrite of the IR, stateless between runs.
// Run() returns whether it changed the graph, so the pipeline can iterate to
// a fixed point. Each pass lives in passes/<name>.cc behind a factory
// listed in passes/pass_list.inc; only passes/pipeline.cc decides their order.
#ifndef PT2ONNX_PASSES_PASS_H_
#define PT2ONNX_PASSES_PASS_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/ir/graph.h"

namespace pt2onnx::passes {

class Pass {
 public:
  virtual ~Pass() = default;
  // snake_case name used in errors and by the CLI ("dead_code_elimination").
  virtual std::string Name() const = 0;
  // Rewrites `model` in place; true if anything changed.
  virtual absl::StatusOr<bool> Run(ir::Model& model) const = 0;
};

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_PASS_H_
