// File: reference/value_binding.h
// -----------------------------------------------------------------------------
// How the reference interpreter binds values by name: a program's inputs
// (user inputs, weights, constants) before the graph runs, and each node's
// results after its kernel ran, checked against what torch recorded.
#ifndef PT2ONNX_REFERENCE_VALUE_BINDING_H_
#define PT2ONNX_REFERENCE_VALUE_BINDING_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "reference/ref_call.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::reference {

// Binds every placeholder of `program`: user inputs from `inputs` (copied),
// weights from `weights`, constant inputs and tokens.
absl::Status BindPlaceholders(const pt2::ExportedProgram& program, const pt2::WeightTable& weights,
                              const std::vector<NamedTensor>& inputs, ValueMap& values);

// Binds `results` to `node`'s outputs in `values` (moved), each tensor checked
// against the dtype and static sizes torch recorded in `graph`; the names of
// the tensors bound are appended to `defined`.
absl::Status BindOutputs(const pt2::Graph& graph, const pt2::Node& node, std::vector<RefValue>& results,
                         ValueMap& values, std::vector<std::string>& defined);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_VALUE_BINDING_H_
