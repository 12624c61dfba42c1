// File: reference/broadcasting.cc
// -----------------------------------------------------------------------------
// Reference kernels for broadcast_tensors and atleast_1d/2d/3d (single
// tensor and Sequence overloads); broadcast_to runs expand's kernel (an
// alias, core/aten/aliases.h).
#include <vector>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// aten::broadcast_tensors(Tensor[] tensors) -> Tensor[]
absl::Status BroadcastTensors(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, call.Inputs("tensors"));
  Dims dims;
  for (const Tensor& t : tensors) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, BroadcastDims(dims, t.dims()));
  }
  std::vector<Tensor> outputs;
  for (const Tensor& t : tensors) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BroadcastTo(t, dims));
    outputs.push_back(std::move(out));
  }
  return call.SetTensors(std::move(outputs));
}

// torch/_refs: 0-d -> [1]*n; atleast_2d: (k) -> (1, k); atleast_3d:
// (k) -> (1, k, 1), (m, k) -> (m, k, 1).
Tensor AtLeast(const Tensor& t, size_t n) {
  const Dims& d = t.dims();
  if (d.size() >= n) return t;
  if (d.empty()) return t.Alias(Dims(n, 1));
  if (n == 2) return t.Alias({1, d[0]});
  return t.Alias(d.size() == 1 ? Dims{1, d[0], 1} : Dims{d[0], d[1], 1});
}

absl::Status AtLeastOne(RefCall& call, size_t n) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return call.SetTensor(AtLeast(self, n));
}
absl::Status AtLeastSequence(RefCall& call, size_t n) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, call.Inputs("tensors"));
  for (Tensor& t : tensors) t = AtLeast(t, n);
  return call.SetTensors(std::move(tensors));
}
// aten::atleast_1d(Tensor self) -> Tensor; aten::atleast_1d.Sequence(Tensor[] tensors) -> Tensor[]
absl::Status Atleast1d(RefCall& call) { return AtLeastOne(call, 1); }
absl::Status Atleast2d(RefCall& call) { return AtLeastOne(call, 2); }
absl::Status Atleast3d(RefCall& call) { return AtLeastOne(call, 3); }
absl::Status Atleast1dSequence(RefCall& call) { return AtLeastSequence(call, 1); }
absl::Status Atleast2dSequence(RefCall& call) { return AtLeastSequence(call, 2); }
absl::Status Atleast3dSequence(RefCall& call) { return AtLeastSequence(call, 3); }

}  // namespace

void RegisterBroadcastingRef(RefRegistry& r) {
  r.Add("aten::broadcast_tensors.default", BroadcastTensors);
  r.Add("aten::atleast_1d.default", Atleast1d);
  r.Add("aten::atleast_2d.default", Atleast2d);
  r.Add("aten::atleast_3d.default", Atleast3d);
  r.Add("aten::atleast_1d.Sequence", Atleast1dSequence);
  r.Add("aten::atleast_2d.Sequence", Atleast2dSequence);
  r.Add("aten::atleast_3d.Sequence", Atleast3dSequence);
}

}  // namespace pt2onnx::reference
