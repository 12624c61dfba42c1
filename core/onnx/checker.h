// File: core/onnx/checker.h
// -----------------------------------------------------------------------------
// Validates a ModelProto with ONNX's own C++ checker (full check) and strict
// shape inference. The onnx library reports problems by throwing; this is the
// one place that catches and turns them into a Status.
#ifndef PT2ONNX_CORE_ONNX_CHECKER_H_
#define PT2ONNX_CORE_ONNX_CHECKER_H_

#include "absl/status/status.h"
#include "core/ir/graph.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx::onnx_writer {

// The highest ai.onnx opset the bundled checker knows (26 for onnx 1.21).
int CheckerMaxOpset();

// Runs checker::check_model(full_check) then strict shape inference on a
// copy; on success `model` gets the inferred value_info. Models whose opset
// is above CheckerMaxOpset() are checked structurally only.
absl::Status CheckModel(::onnx::ModelProto& model);

// A quick structural check the CLI runs on every result: each ai.onnx node
// names an operator that exists at the model's opset (capped at
// CheckerMaxOpset()) and has an input and output count its schema allows.
// Above CheckerMaxOpset(), operators the library does not know yet are
// skipped. Internal error naming the first offending node.
absl::Status CheckArity(const ir::Model& model);

// Strict ONNX shape inference over the model (weights reduced to their
// shapes): every declared shape and dtype (taken from the program's
// metadata) must agree with what the operators compute, or the model is
// invalid. InvalidArgument naming the node; skipped (OK) above
// CheckerMaxOpset().
absl::Status CheckInferredShapes(const ir::Model& model);

}  // namespace pt2onnx::onnx_writer

#endif  // PT2ONNX_CORE_ONNX_CHECKER_H_
