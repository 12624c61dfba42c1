// Reference kernels: the backward ops a training graph keeps
// (embedding_dense_backward, native_layer_norm_backward,
// native_group_norm_backward, convolution_backward), as ATen's CPU kernels
// define them: normalization gradients from the saved mean and rstd,
// outputs masked off by output_mask are None. In double, rounded once.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<std::vector<bool>> OutputMask(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, call.Arg("output_mask"));
  if (a.kind != pt2::Argument::Kind::kBools || a.bools.size() != 3) return call.Invalid("output_mask must be 3 bools");
  return a.bools;
}

// aten::embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor
absl::Status EmbeddingDenseBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, call.Input("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t num_weights, call.Int("num_weights"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t padding_idx, call.Int("padding_idx"));
  PT2ONNX_ASSIGN_OR_RETURN(bool by_freq, call.Bool("scale_grad_by_freq"));
  if (num_weights < 0 || num_weights > (int64_t{1} << 40)) return call.Invalid("num_weights is out of range");
  const int64_t count = indices.numel();
  if (grad.rank() != indices.rank() + 1) return call.Invalid("grad_output must have the indices' dims plus one");
  const int64_t width = grad.dims().back();
  if (count * width != grad.numel()) return call.Invalid("grad_output does not match the indices");
  const std::vector<int64_t> idx = ToInts(indices);
  std::vector<int64_t> freq(num_weights, 0);
  for (int64_t i : idx) {
    if (i < 0 || i >= num_weights) return call.Invalid(absl::StrCat("index ", i, " out of range [0, ", num_weights, ")"));
    ++freq[i];
  }
  const std::vector<double> g = ToDoubles(grad);
  std::vector<double> out(num_weights * width, 0.0);
  for (int64_t k = 0; k < count; ++k) {
    if (idx[k] == padding_idx) continue;
    const double scale = by_freq ? 1.0 / static_cast<double>(freq[idx[k]]) : 1.0;
    for (int64_t d = 0; d < width; ++d) out[idx[k] * width + d] += scale * g[k * width + d];
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(grad.dtype(), {num_weights, width}, out));
  return call.SetTensor(std::move(result));
}

// The gradient of x_hat * w over `rows` groups of elements: group r holds
// the elements at index[r][*], scaled by weight at wi[element] (or 1).
// dx = rstd * (gw - mean(gw) - x_hat * mean(gw * x_hat)).
void NormInputGradient(const std::vector<double>& g, const std::vector<double>& x, const std::vector<double>& mean,
                       const std::vector<double>& rstd, const std::vector<double>* weight,
                       const std::vector<int64_t>& weight_index, int64_t groups, int64_t per_group,
                       std::vector<double>& dx) {
  for (int64_t r = 0; r < groups; ++r) {
    double sum_g = 0, sum_gx = 0;
    for (int64_t j = 0; j < per_group; ++j) {
      const int64_t e = r * per_group + j;
      const double gw = g[e] * (weight ? (*weight)[weight_index[e]] : 1.0);
      sum_g += gw;
      sum_gx += gw * (x[e] - mean[r]) * rstd[r];
    }
    const double n = static_cast<double>(per_group);
    for (int64_t j = 0; j < per_group; ++j) {
      const int64_t e = r * per_group + j;
      const double gw = g[e] * (weight ? (*weight)[weight_index[e]] : 1.0);
      const double xhat = (x[e] - mean[r]) * rstd[r];
      dx[e] = rstd[r] * (gw - sum_g / n - xhat * sum_gx / n);
    }
  }
}

// aten::native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
absl::Status NativeLayerNormBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_out"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, call.Ints("normalized_shape"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mean_t, call.Input("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor rstd_t, call.Input("rstd"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weight_t, call.OptionalInput("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias_t, call.OptionalInput("bias"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<bool> mask, OutputMask(call));
  const int64_t axis = input.rank() - static_cast<int64_t>(shape.size());
  if (axis < 0) return call.Invalid("normalized_shape has more dims than the input");
  int64_t inner = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (input.dims()[axis + d] != shape[d]) return call.Invalid("normalized_shape does not match the input's trailing dims");
    inner *= shape[d];
  }
  const int64_t rows = inner == 0 ? 0 : input.numel() / inner;
  if (grad.dims() != input.dims() || mean_t.numel() != rows || rstd_t.numel() != rows) {
    return call.Invalid("grad_out, mean or rstd do not match the input");
  }
  if (weight_t && weight_t->numel() != inner) return call.Invalid("weight does not match normalized_shape");
  const std::vector<double> g = ToDoubles(grad), x = ToDoubles(input), mean = ToDoubles(mean_t),
                            rstd = ToDoubles(rstd_t);
  std::vector<double> w;
  std::vector<int64_t> wi(input.numel());
  for (int64_t e = 0; e < input.numel(); ++e) wi[e] = e % inner;
  if (weight_t) w = ToDoubles(*weight_t);
  std::vector<RefValue> outs(3);
  if (mask[0]) {
    std::vector<double> dx(input.numel());
    NormInputGradient(g, x, mean, rstd, weight_t ? &w : nullptr, wi, rows, inner, dx);
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(input.dtype(), input.dims(), dx));
    outs[0] = RefValue::OfTensor(std::move(t));
  }
  std::vector<double> dw(inner, 0.0), db(inner, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t e = r * inner + j;
      dw[j] += g[e] * (x[e] - mean[r]) * rstd[r];
      db[j] += g[e];
    }
  }
  if (mask[1] && weight_t) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(weight_t->dtype(), weight_t->dims(), dw));
    outs[1] = RefValue::OfTensor(std::move(t));
  }
  if (mask[2] && bias_t) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(bias_t->dtype(), bias_t->dims(), db));
    outs[2] = RefValue::OfTensor(std::move(t));
  }
  for (RefValue& v : outs) PT2ONNX_RETURN_IF_ERROR(call.Set(std::move(v)));
  return absl::OkStatus();
}

// aten::native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
absl::Status NativeGroupNormBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_out"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mean_t, call.Input("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor rstd_t, call.Input("rstd"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weight_t, call.OptionalInput("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, call.Int("N"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t c, call.Int("C"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t hw, call.Int("HxW"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t group, call.Int("group"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<bool> mask, OutputMask(call));
  if (n < 0 || c < 0 || hw < 0 || group <= 0 || c % group != 0) return call.Invalid("N, C, HxW or group are invalid");
  if (input.numel() != n * c * hw || grad.dims() != input.dims() || mean_t.numel() != n * group ||
      rstd_t.numel() != n * group) {
    return call.Invalid("grad_out, input, mean or rstd do not match N, C, HxW and group");
  }
  if (weight_t && weight_t->numel() != c) return call.Invalid("weight must have C elements");
  const int64_t per_group = c / group * hw;
  const std::vector<double> g = ToDoubles(grad), x = ToDoubles(input), mean = ToDoubles(mean_t),
                            rstd = ToDoubles(rstd_t);
  std::vector<double> w;
  if (weight_t) w = ToDoubles(*weight_t);
  std::vector<int64_t> wi(input.numel());
  for (int64_t e = 0; e < input.numel(); ++e) wi[e] = hw == 0 ? 0 : (e / hw) % c;
  std::vector<RefValue> outs(3);
  if (mask[0]) {
    std::vector<double> dx(input.numel());
    NormInputGradient(g, x, mean, rstd, weight_t ? &w : nullptr, wi, n * group, per_group, dx);
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(input.dtype(), input.dims(), dx));
    outs[0] = RefValue::OfTensor(std::move(t));
  }
  std::vector<double> dw(c, 0.0), db(c, 0.0);
  for (int64_t e = 0; e < input.numel(); ++e) {
    const int64_t r = e / per_group;  // (n, group) row
    dw[wi[e]] += g[e] * (x[e] - mean[r]) * rstd[r];
    db[wi[e]] += g[e];
  }
  const DataType param_dtype = weight_t ? weight_t->dtype() : input.dtype();
  if (mask[1]) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(param_dtype, {c}, dw));
    outs[1] = RefValue::OfTensor(std::move(t));
  }
  if (mask[2]) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(param_dtype, {c}, db));
    outs[2] = RefValue::OfTensor(std::move(t));
  }
  for (RefValue& v : outs) PT2ONNX_RETURN_IF_ERROR(call.Set(std::move(v)));
  return absl::OkStatus();
}

// aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor
// gx = y * (g - sum_dim(g * y)) (aten/src/ATen/native/SoftMax.cpp), stored
// as input_dtype.
absl::Status SoftmaxBackwardData(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor g, call.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, call.Input("output"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> in_dtype, call.Dtype("input_dtype"));
  if (g.dims() != y.dims()) return call.Invalid("_softmax_backward_data: grad_output and output shapes differ");
  if (!IsFloatLike(y.dtype())) return call.Invalid("_softmax_backward_data of a non-floating output");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, std::max<int64_t>(y.rank(), 1)));
  int64_t outer = 1, size = 1, inner = 1;
  for (int64_t a = 0; a < y.rank(); ++a) {
    if (a < dim) outer *= y.dim(a);
    else if (a == dim) size = y.dim(a);
    else inner *= y.dim(a);
  }
  const std::vector<double> gv = ToDoubles(g), yv = ToDoubles(y);
  std::vector<double> out(gv.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double dot = 0;
      for (int64_t k = 0; k < size; ++k) dot += gv[(o * size + k) * inner + i] * yv[(o * size + k) * inner + i];
      for (int64_t k = 0; k < size; ++k) {
        const int64_t at = (o * size + k) * inner + i;
        out[at] = yv[at] * (gv[at] - dot);
      }
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(in_dtype.value_or(y.dtype()), y.dims(), out));
  return call.SetTensor(std::move(result));
}

// aten::hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor
// grad_output where min_val < self < max_val, else 0 (NaN self included).
absl::Status HardtanhBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar low, call.Scalar("min_val"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar high, call.Scalar("max_val"));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(grad.dims(), self.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor g, BroadcastTo(grad, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, BroadcastTo(self, dims));
  std::vector<double> gv = ToDoubles(g);
  const std::vector<double> xv = ToDoubles(x);
  const double lo = low.AsDouble(), hi = high.AsDouble();
  for (size_t i = 0; i < gv.size(); ++i) {
    if (!(xv[i] > lo && xv[i] < hi)) gv[i] = 0;
  }
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = grad.dtype();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(dtype, dims, gv));
  return call.SetTensor(std::move(result));
}

}  // namespace

void RegisterBackwardRef(RefRegistry& r) {
  r.Add("aten::hardtanh_backward.default", HardtanhBackward);
  r.Add("aten::_softmax_backward_data.default", SoftmaxBackwardData);
  r.Add("aten::embedding_dense_backward.default", EmbeddingDenseBackward);
  r.Add("aten::native_layer_norm_backward.default", NativeLayerNormBackward);
  r.Add("aten::native_group_norm_backward.default", NativeGroupNormBackward);
}

}  // namespace pt2onnx::reference
