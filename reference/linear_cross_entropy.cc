// File: reference/linear_cross_entropy.cc
// -----------------------------------------------------------------------------
// Reference kernels for torch.nn's fused linear + cross-entropy library ops
// (torch/nn/modules/linear_cross_entropy.py, namespace torch_nn), computed
// row by row in double: logits = input @ linear_weight^T + linear_bias, a
// log-softmax, the target's entry weighted by weight[target] (0 for
// ignore_index rows), then none / sum / mean (over the unmasked weights).
// The gradients the chunked op can also return are its empty placeholders
// unless requested, which this interpreter refuses.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// Per-row losses and the weight each row carries (0 when ignored).
struct Rows {
  std::vector<double> loss;
  std::vector<double> weight;
};

absl::StatusOr<Rows> RowLosses(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor linear_weight, call.Input("linear_weight"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor target, call.Input("target"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias, call.OptionalInput("linear_bias"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> class_weight, call.OptionalInput("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t ignore_index, call.Int("ignore_index"));
  if (input.rank() != 2 || linear_weight.rank() != 2 || target.rank() != 1 ||
      linear_weight.dim(1) != input.dim(1) || target.dim(0) != input.dim(0)) {
    return call.Invalid("expected input (N, F), linear_weight (C, F) and target (N)");
  }
  const int64_t n = input.dim(0), f = input.dim(1), c = linear_weight.dim(0);
  const std::vector<double> x = ToDoubles(input), w = ToDoubles(linear_weight);
  const std::vector<int64_t> t = ToInts(target);
  const std::vector<double> b = bias ? ToDoubles(*bias) : std::vector<double>(c, 0.0);
  const std::vector<double> cw = class_weight ? ToDoubles(*class_weight) : std::vector<double>(c, 1.0);
  if (static_cast<int64_t>(b.size()) != c || static_cast<int64_t>(cw.size()) != c) {
    return call.Invalid("linear_bias and weight need one entry per class");
  }
  Rows rows{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  std::vector<double> logits(c);
  for (int64_t i = 0; i < n; ++i) {
    if (t[i] == ignore_index) continue;
    if (t[i] < 0 || t[i] >= c) return call.Invalid(absl::StrCat("target ", t[i], " is out of bounds"));
    for (int64_t k = 0; k < c; ++k) {
      double s = b[k];
      for (int64_t j = 0; j < f; ++j) s += x[i * f + j] * w[k * f + j];
      logits[k] = s;
    }
    const double top = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (double v : logits) sum += std::exp(v - top);
    rows.weight[i] = cw[t[i]];
    rows.loss[i] = -(logits[t[i]] - top - std::log(sum)) * cw[t[i]];
  }
  return rows;
}

// The chunked op's gradient outputs: empty placeholders unless requested.
absl::Status EmptyGradients(RefCall& call) {
  for (const char* flag : {"compute_input_grad", "compute_linear_weight_grad", "compute_linear_bias_grad"}) {
    if (!call.Has(flag)) continue;
    PT2ONNX_ASSIGN_OR_RETURN(bool requested, call.Bool(flag));
    if (requested) return call.Invalid(absl::StrCat("linear_cross_entropy with ", flag, "=True"));
  }
  for (size_t i = 1; i < call.node().outputs.size(); ++i) {
    const pt2::TensorMeta* meta = call.OutputMeta(i);
    const Dims dims(meta == nullptr ? 1 : meta->sizes.size(), 0);  // (0,) * rank
    const DataType dtype = call.OutputDtype(i) == DataType::kUndefined ? DataType::kFloat : call.OutputDtype(i);
    PT2ONNX_ASSIGN_OR_RETURN(Tensor empty, NewTensor(dtype, dims));
    PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(empty)));
  }
  return absl::OkStatus();
}

DataType OutDtype(const RefCall& call, const Tensor& input) {
  return call.OutputDtype() == DataType::kUndefined ? input.dtype() : call.OutputDtype();
}

// torch_nn::_linear_cross_entropy_batch_chunked(... str reduction, ...) -> (loss, grad_input, grad_linear_weight, grad_linear_bias)
absl::Status Chunked(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduction, call.String("reduction"));
  if (reduction != "mean" && reduction != "sum") return call.Invalid("reduction must be 'mean' or 'sum'");
  if (call.Has("label_smoothing")) {
    PT2ONNX_ASSIGN_OR_RETURN(double smoothing, call.Double("label_smoothing"));
    if (smoothing > 0) return call.Invalid("linear_cross_entropy does not support label smoothing");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Rows rows, RowLosses(call));
  double total = 0, weights = 0;
  for (size_t i = 0; i < rows.loss.size(); ++i) {
    total += rows.loss[i];
    weights += rows.weight[i];
  }
  if (reduction == "mean") total = weights == 0 ? std::nan("") : total / weights;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor loss, FromDoubles(OutDtype(call, input), {}, {total}));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(loss)));
  return EmptyGradients(call);
}

// torch_nn::_linear_cross_entropy_batch_chunked_no_reduction(...) -> Tensor
absl::Status NoReduction(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Rows rows, RowLosses(call));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor loss, FromDoubles(OutDtype(call, input), {input.dim(0)}, rows.loss));
  return call.SetTensor(std::move(loss));
}

}  // namespace

void RegisterLinearCrossEntropyRef(RefRegistry& r) {
  r.Add("torch_nn::_linear_cross_entropy_batch_chunked.default", Chunked);
  r.Add("torch_nn::_linear_cross_entropy_batch_chunked_no_reduction.default", NoReduction);
}

}  // namespace pt2onnx::reference
