// Reference kernels: max/avg pooling (1-3 spatial dims, padding, dilation,
// ceil_mode, count_include_pad, divisor_override, indices) and adaptive
// avg/max pooling, all over per-dim windows of input positions; the 2-D
// backward ops (gradients with respect to the input).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// For one spatial dim: the input positions of each output's window and the
// divisor factor an average uses.
struct DimWindows {
  std::vector<std::vector<int64_t>> positions;
  std::vector<int64_t> divisor;
};

absl::StatusOr<std::vector<int64_t>> PerDim(std::vector<int64_t> v, size_t n, const char* what) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n) return absl::InvalidArgumentError(absl::StrCat(what, " needs ", n, " values"));
  return v;
}

absl::StatusOr<int64_t> PooledSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t dil, bool ceil_mode) {
  if (k <= 0 || s <= 0 || dil <= 0 || p < 0) return absl::InvalidArgumentError("kernel, stride and dilation must be positive");
  if (p > k / 2) return absl::InvalidArgumentError("pad should be at most half of effective kernel size");
  const int64_t span = dil * (k - 1) + 1;
  const int64_t numer = in + 2 * p - span + (ceil_mode ? s - 1 : 0);
  if (numer < 0) return absl::InvalidArgumentError("the pooling output would be empty");
  int64_t out = numer / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// Pools `input` ([*, spatial...]) over the windows; `max` takes the maximum
// (NaN wins) and returns flat indices in the spatial plane too.
absl::StatusOr<std::vector<Tensor>> Pool(const Tensor& input, const std::vector<DimWindows>& windows, bool max,
                                         std::optional<int64_t> divisor_override) {
  const size_t sd = windows.size();
  Dims out_dims(input.dims().begin(), input.dims().end() - sd);
  int64_t in_sp[3] = {1, 1, 1}, out_sp[3] = {1, 1, 1};
  std::vector<const DimWindows*> w(3, nullptr);
  DimWindows unit{{{0}}, {1}};
  for (size_t d = 0; d < 3; ++d) w[d] = &unit;
  for (size_t d = 0; d < sd; ++d) {
    const size_t o = 3 - sd + d;
    in_sp[o] = input.dims()[input.rank() - sd + d];
    out_sp[o] = static_cast<int64_t>(windows[d].positions.size());
    w[o] = &windows[d];
    out_dims.push_back(out_sp[o]);
  }
  const int64_t in_plane = in_sp[0] * in_sp[1] * in_sp[2], out_plane = out_sp[0] * out_sp[1] * out_sp[2];
  const int64_t planes = in_plane == 0 ? 0 : input.numel() / in_plane;
  std::vector<double> x = ToDoubles(input);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t numel, CheckedNumel(out_dims));
  std::vector<double> y(numel);
  std::vector<int64_t> idx(numel);
  for (int64_t p = 0; p < planes; ++p) {
    const double* xp = x.data() + p * in_plane;
    for (int64_t a = 0; a < out_sp[0]; ++a) {
      for (int64_t b = 0; b < out_sp[1]; ++b) {
        for (int64_t c = 0; c < out_sp[2]; ++c) {
          double acc = max ? -INFINITY : 0.0;
          int64_t arg = -1;
          for (int64_t i0 : w[0]->positions[a]) {
            for (int64_t i1 : w[1]->positions[b]) {
              for (int64_t i2 : w[2]->positions[c]) {
                const int64_t flat = (i0 * in_sp[1] + i1) * in_sp[2] + i2;
                const double v = xp[flat];
                if (!max) {
                  acc += v;
                } else if (arg < 0 || v > acc || std::isnan(v)) {
                  acc = v;  // torch: a later NaN replaces an earlier one too
                  arg = flat;
                }
              }
            }
          }
          const int64_t o = p * out_plane + (a * out_sp[1] + b) * out_sp[2] + c;
          if (!max) {
            const int64_t div = divisor_override ? *divisor_override
                                                 : w[0]->divisor[a] * w[1]->divisor[b] * w[2]->divisor[c];
            acc = acc / static_cast<double>(div);
          }
          y[o] = acc;
          idx[o] = arg;
        }
      }
    }
  }
  std::vector<Tensor> outs;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(input.dtype(), out_dims, y));
  outs.push_back(std::move(out));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, FromInts(DataType::kInt64, out_dims, idx));
  outs.push_back(std::move(indices));
  return outs;
}

// The gradient of an average pooling: each output's gradient divided by its
// divisor and added to every input position of its window.
absl::StatusOr<Tensor> AvgPoolGradient(const Tensor& grad, const Tensor& input, const std::vector<DimWindows>& windows,
                                       std::optional<int64_t> divisor_override) {
  const size_t sd = windows.size();
  int64_t in_sp[3] = {1, 1, 1}, out_sp[3] = {1, 1, 1};
  std::vector<const DimWindows*> w(3, nullptr);
  DimWindows unit{{{0}}, {1}};
  for (size_t d = 0; d < 3; ++d) w[d] = &unit;
  Dims expected(input.dims().begin(), input.dims().end() - sd);
  for (size_t d = 0; d < sd; ++d) {
    const size_t o = 3 - sd + d;
    in_sp[o] = input.dims()[input.rank() - sd + d];
    out_sp[o] = static_cast<int64_t>(windows[d].positions.size());
    w[o] = &windows[d];
    expected.push_back(out_sp[o]);
  }
  if (grad.dims() != expected) {
    return absl::InvalidArgumentError(absl::StrCat("grad_output has shape ", DimsString(grad.dims()),
                                                   ", the pooling gives ", DimsString(expected)));
  }
  const int64_t in_plane = in_sp[0] * in_sp[1] * in_sp[2], out_plane = out_sp[0] * out_sp[1] * out_sp[2];
  const int64_t planes = in_plane == 0 ? 0 : input.numel() / in_plane;
  const std::vector<double> g = ToDoubles(grad);
  std::vector<double> gin(input.numel(), 0.0);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t a = 0; a < out_sp[0]; ++a) {
      for (int64_t b = 0; b < out_sp[1]; ++b) {
        for (int64_t c = 0; c < out_sp[2]; ++c) {
          const int64_t div = divisor_override ? *divisor_override
                                               : w[0]->divisor[a] * w[1]->divisor[b] * w[2]->divisor[c];
          const double share = g[p * out_plane + (a * out_sp[1] + b) * out_sp[2] + c] / static_cast<double>(div);
          for (int64_t i0 : w[0]->positions[a]) {
            for (int64_t i1 : w[1]->positions[b]) {
              for (int64_t i2 : w[2]->positions[c]) gin[p * in_plane + (i0 * in_sp[1] + i1) * in_sp[2] + i2] += share;
            }
          }
        }
      }
    }
  }
  return FromDoubles(input.dtype(), input.dims(), gin);
}

absl::Status MaxPool(RefCall& call, size_t sd, bool with_indices) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.rank() != static_cast<int64_t>(sd) + 1 && self.rank() != static_cast<int64_t>(sd) + 2) {
    return call.Invalid("max pooling input has the wrong rank");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ks, call.Ints("kernel_size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> st, call.Ints("stride"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> pad, call.Ints("padding"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dil, call.Ints("dilation"));
  PT2ONNX_ASSIGN_OR_RETURN(bool ceil_mode, call.Bool("ceil_mode"));
  PT2ONNX_ASSIGN_OR_RETURN(ks, PerDim(ks, sd, "kernel_size"));
  PT2ONNX_ASSIGN_OR_RETURN(st, PerDim(st.empty() ? ks : st, sd, "stride"));
  PT2ONNX_ASSIGN_OR_RETURN(pad, PerDim(pad, sd, "padding"));
  PT2ONNX_ASSIGN_OR_RETURN(dil, PerDim(dil, sd, "dilation"));
  std::vector<DimWindows> windows(sd);
  for (size_t d = 0; d < sd; ++d) {
    const int64_t in = self.dims()[self.rank() - sd + d];
    absl::StatusOr<int64_t> out = PooledSize(in, ks[d], st[d], pad[d], dil[d], ceil_mode);
    if (!out.ok()) return call.Invalid(out.status().message());
    for (int64_t o = 0; o < *out; ++o) {
      std::vector<int64_t> pos;
      for (int64_t j = 0; j < ks[d]; ++j) {
        const int64_t i = o * st[d] - pad[d] + j * dil[d];
        if (i >= 0 && i < in) pos.push_back(i);
      }
      windows[d].positions.push_back(pos);
      windows[d].divisor.push_back(1);
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, Pool(self, windows, true, std::nullopt));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(outs[0]));
  return with_indices ? call.SetTensor(outs[1]) : absl::OkStatus();
}

// aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor
absl::Status MaxPool1d(RefCall& c) { return MaxPool(c, 1, false); }
absl::Status MaxPool2d(RefCall& c) { return MaxPool(c, 2, false); }
absl::Status MaxPool3d(RefCall& c) { return MaxPool(c, 3, false); }
// aten::max_pool2d_with_indices(...same...) -> (Tensor, Tensor)
absl::Status MaxPool1dIdx(RefCall& c) { return MaxPool(c, 1, true); }
absl::Status MaxPool2dIdx(RefCall& c) { return MaxPool(c, 2, true); }
absl::Status MaxPool3dIdx(RefCall& c) { return MaxPool(c, 3, true); }

// aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor
// backward: avg_pool2d_backward(Tensor grad_output, Tensor self, <the same
// arguments>) -> Tensor, the gradient with respect to self.
absl::Status AvgPool(RefCall& call, size_t sd, bool backward = false) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ks, call.Ints("kernel_size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> st, call.Ints("stride"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> pad, call.Ints("padding"));
  PT2ONNX_ASSIGN_OR_RETURN(bool ceil_mode, call.Bool("ceil_mode"));
  PT2ONNX_ASSIGN_OR_RETURN(bool include_pad, call.Bool("count_include_pad"));
  std::optional<int64_t> divisor;
  if (sd > 1) {
    PT2ONNX_ASSIGN_OR_RETURN(divisor, call.OptionalInt("divisor_override"));
    if (divisor && *divisor == 0) return call.Invalid("divisor must be not zero");
  }
  PT2ONNX_ASSIGN_OR_RETURN(ks, PerDim(ks, sd, "kernel_size"));
  PT2ONNX_ASSIGN_OR_RETURN(st, PerDim(st.empty() ? ks : st, sd, "stride"));
  PT2ONNX_ASSIGN_OR_RETURN(pad, PerDim(pad, sd, "padding"));
  if (self.rank() != static_cast<int64_t>(sd) + 1 && self.rank() != static_cast<int64_t>(sd) + 2) {
    return call.Invalid("avg pooling input has the wrong rank");
  }
  std::vector<DimWindows> windows(sd);
  for (size_t d = 0; d < sd; ++d) {
    const int64_t in = self.dims()[self.rank() - sd + d];
    absl::StatusOr<int64_t> out = PooledSize(in, ks[d], st[d], pad[d], 1, ceil_mode);
    if (!out.ok()) return call.Invalid(out.status().message());
    for (int64_t o = 0; o < *out; ++o) {
      const int64_t start = o * st[d] - pad[d];
      const int64_t end = std::min(start + ks[d], in + pad[d]);
      std::vector<int64_t> pos;
      for (int64_t i = std::max<int64_t>(start, 0); i < std::min(end, in); ++i) pos.push_back(i);
      windows[d].divisor.push_back(include_pad ? end - start : static_cast<int64_t>(pos.size()));
      windows[d].positions.push_back(std::move(pos));
    }
  }
  if (backward) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_output"));
    absl::StatusOr<Tensor> gin = AvgPoolGradient(grad, self, windows, divisor);
    if (!gin.ok()) return call.Invalid(gin.status().message());
    return call.SetTensor(*std::move(gin));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, Pool(self, windows, false, divisor));
  return call.SetTensor(outs[0]);
}
// aten::avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor
absl::Status AvgPool2dBackward(RefCall& c) { return AvgPool(c, 2, true); }
absl::Status AvgPool1d(RefCall& c) { return AvgPool(c, 1); }
absl::Status AvgPool2d(RefCall& c) { return AvgPool(c, 2); }
absl::Status AvgPool3d(RefCall& c) { return AvgPool(c, 3); }

// aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
// aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)
// backward: the gradient of adaptive avg pooling to grad_output's sizes.
absl::Status AdaptivePool(RefCall& call, size_t sd, bool max, bool backward = false) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::optional<Tensor> grad;
  std::vector<int64_t> size;
  if (backward) {
    PT2ONNX_ASSIGN_OR_RETURN(grad, call.Input("grad_output"));
    if (grad->rank() < static_cast<int64_t>(sd)) return call.Invalid("grad_output has the wrong rank");
    size.assign(grad->dims().end() - sd, grad->dims().end());
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(size, call.Ints("output_size"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(size, PerDim(size, sd, "output_size"));
  if (self.rank() != static_cast<int64_t>(sd) + 1 && self.rank() != static_cast<int64_t>(sd) + 2) {
    return call.Invalid("adaptive pooling input has the wrong rank");
  }
  std::vector<DimWindows> windows(sd);
  for (size_t d = 0; d < sd; ++d) {
    const int64_t in = self.dims()[self.rank() - sd + d], out = size[d];
    if (out <= 0 && in > 0) return call.Invalid("output_size must be positive");
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = (o * in) / out;
      const int64_t end = ((o + 1) * in + out - 1) / out;
      std::vector<int64_t> pos;
      for (int64_t i = start; i < end; ++i) pos.push_back(i);
      windows[d].divisor.push_back(end - start);
      windows[d].positions.push_back(std::move(pos));
    }
  }
  if (grad) {
    absl::StatusOr<Tensor> gin = AvgPoolGradient(*grad, self, windows, std::nullopt);
    if (!gin.ok()) return call.Invalid(gin.status().message());
    return call.SetTensor(*std::move(gin));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, Pool(self, windows, max, std::nullopt));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(outs[0]));
  return max ? call.SetTensor(outs[1]) : absl::OkStatus();
}
// aten::_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor
absl::Status AdaptiveAvg2dBackward(RefCall& c) { return AdaptivePool(c, 2, false, true); }

// aten::max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor
// Each output's gradient goes to the input position its index names
// (flat in the spatial plane), summed where windows share a maximum.
absl::Status MaxPool2dBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, call.Input("indices"));
  if (self.rank() != 3 && self.rank() != 4) return call.Invalid("max_pool2d_with_indices_backward: expected a 3-D or 4-D input");
  if (grad.dims() != indices.dims() || grad.rank() != self.rank()) return call.Invalid("grad_output and indices shapes differ");
  const int64_t in_plane = self.dims()[self.rank() - 2] * self.dims()[self.rank() - 1];
  const int64_t out_plane = grad.dims()[grad.rank() - 2] * grad.dims()[grad.rank() - 1];
  const int64_t planes = in_plane == 0 ? 0 : self.numel() / in_plane;
  if (planes * out_plane != grad.numel()) return call.Invalid("grad_output does not match the input's planes");
  const std::vector<double> g = ToDoubles(grad);
  const std::vector<int64_t> idx = ToInts(indices);
  std::vector<double> gin(self.numel(), 0.0);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < out_plane; ++o) {
      const int64_t at = idx[p * out_plane + o];
      if (at < 0 || at >= in_plane) return call.Invalid(absl::StrCat("index ", at, " is outside the input plane"));
      gin[p * in_plane + at] += g[p * out_plane + o];
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(self.dtype(), self.dims(), gin));
  return call.SetTensor(std::move(out));
}
absl::Status AdaptiveAvg1d(RefCall& c) { return AdaptivePool(c, 1, false); }
absl::Status AdaptiveAvg2d(RefCall& c) { return AdaptivePool(c, 2, false); }
absl::Status AdaptiveAvg3d(RefCall& c) { return AdaptivePool(c, 3, false); }
absl::Status AdaptiveMax1d(RefCall& c) { return AdaptivePool(c, 1, true); }
absl::Status AdaptiveMax2d(RefCall& c) { return AdaptivePool(c, 2, true); }
absl::Status AdaptiveMax3d(RefCall& c) { return AdaptivePool(c, 3, true); }

}  // namespace

void RegisterPoolingRef(RefRegistry& r) {
  r.Add("aten::max_pool1d.default", MaxPool1d);
  r.Add("aten::max_pool2d.default", MaxPool2d);
  r.Add("aten::max_pool3d.default", MaxPool3d);
  r.Add("aten::max_pool1d_with_indices.default", MaxPool1dIdx);
  r.Add("aten::max_pool2d_with_indices.default", MaxPool2dIdx);
  r.Add("aten::max_pool3d_with_indices.default", MaxPool3dIdx);
  r.Add("aten::avg_pool1d.default", AvgPool1d);
  r.Add("aten::avg_pool2d.default", AvgPool2d);
  r.Add("aten::avg_pool3d.default", AvgPool3d);
  r.Add("aten::adaptive_avg_pool1d.default", AdaptiveAvg1d);
  r.Add("aten::adaptive_avg_pool2d.default", AdaptiveAvg2d);
  r.Add("aten::_adaptive_avg_pool2d.default", AdaptiveAvg2d);
  r.Add("aten::adaptive_avg_pool3d.default", AdaptiveAvg3d);
  r.Add("aten::_adaptive_avg_pool3d.default", AdaptiveAvg3d);
  r.Add("aten::adaptive_max_pool1d.default", AdaptiveMax1d);
  r.Add("aten::adaptive_max_pool2d.default", AdaptiveMax2d);
  r.Add("aten::adaptive_max_pool3d.default", AdaptiveMax3d);
  r.Add("aten::avg_pool2d_backward.default", AvgPool2dBackward);
  r.Add("aten::_adaptive_avg_pool2d_backward.default", AdaptiveAvg2dBackward);
  r.Add("aten::max_pool2d_with_indices_backward.default", MaxPool2dBackward);
}

}  // namespace pt2onnx::reference
