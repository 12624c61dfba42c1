// Reference kernels: fractional max pooling (fractional_max_pool2d / 3d),
// deterministic given random_samples [N, C, n]: per plane and spatial dim the
// window starts are trunc((i + u) * alpha) - trunc(u * alpha) with
// alpha = (in - k) / (out - 1) in the input's dtype, the last start in - k
// (aten/src/ATen/native/FractionalMaxPooling.h); u is sample 0 for W and 1 for
// H in 2-D, 0 / 1 / 2 for T / H / W in 3-D. Each output keeps the first
// maximum of its window, or the last NaN, and its flat index in the plane.
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// generate_intervals in T (float or double).
template <typename T>
std::vector<int64_t> Starts(T sample, int64_t in, int64_t out, int64_t k) {
  std::vector<int64_t> seq(out);
  if (out > 1) {
    const T alpha = static_cast<T>(in - k) / static_cast<T>(out - 1);
    for (int64_t i = 0; i + 1 < out; ++i) {
      seq[i] = static_cast<int64_t>((static_cast<T>(i) + sample) * alpha) - static_cast<int64_t>(sample * alpha);
    }
  }
  if (out > 0) seq[out - 1] = in - k;
  return seq;
}

// aten::fractional_max_pool2d(Tensor self, int[2] kernel_size, int[2] output_size, Tensor random_samples) -> (Tensor, Tensor)
// aten::fractional_max_pool3d(Tensor self, int[3] kernel_size, int[3] output_size, Tensor random_samples) -> (Tensor, Tensor)
absl::Status FractionalMaxPool(RefCall& call, int64_t n) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor samples, call.Input("random_samples"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, call.Ints("kernel_size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out_size, call.Ints("output_size"));
  if (self.dtype() != DataType::kFloat && self.dtype() != DataType::kDouble) {
    return call.Unsupported("fractional max pooling of a non-float32/float64 tensor");
  }
  if (static_cast<int64_t>(kernel.size()) != n || static_cast<int64_t>(out_size.size()) != n) {
    return call.Invalid("kernel_size and output_size need one value per spatial dim");
  }
  const bool batched = self.rank() == n + 2;
  if (!batched && self.rank() != n + 1) return call.Invalid("input has the wrong rank");
  const int64_t batch = batched ? self.dims()[0] : 1;
  const int64_t channels = self.dims()[batched ? 1 : 0];
  std::vector<int64_t> in_size(self.dims().end() - n, self.dims().end());
  if (samples.rank() != 3 || samples.dims()[0] < batch || samples.dims()[1] != channels || samples.dims()[2] != n ||
      samples.dtype() != self.dtype()) {
    return call.Invalid("random_samples must be [>= N, C, n] of the input's dtype");
  }
  int64_t plane = 1, windows = 1;
  for (int64_t i = 0; i < n; ++i) {
    if (kernel[i] <= 0 || out_size[i] <= 0 || out_size[i] + kernel[i] - 1 > in_size[i]) {
      return call.Invalid(absl::StrCat("pool size ", kernel[i], " too large relative to input size ", in_size[i]));
    }
    plane *= in_size[i];
    windows *= out_size[i];
  }
  Dims out_dims(self.dims().begin(), self.dims().end() - n);
  out_dims.insert(out_dims.end(), out_size.begin(), out_size.end());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), out_dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, NewTensor(DataType::kInt64, out_dims));
  std::vector<double> x = ToDoubles(self), u = ToDoubles(samples);
  for (int64_t p = 0; p < batch * channels; ++p) {
    std::vector<std::vector<int64_t>> starts(n);
    for (int64_t i = 0; i < n; ++i) {
      const double sample = u[p * n + (n == 2 ? 1 - i : i)];
      starts[i] = self.dtype() == DataType::kDouble
                      ? Starts<double>(sample, in_size[i], out_size[i], kernel[i])
                      : Starts<float>(static_cast<float>(sample), in_size[i], out_size[i], kernel[i]);
    }
    for (int64_t w = 0; w < windows; ++w) {
      // Output position -> window origin; then scan the window row-major.
      std::vector<int64_t> origin(n);
      int64_t rest = w;
      for (int64_t i = n - 1; i >= 0; --i) {
        origin[i] = starts[i][rest % out_size[i]];
        rest /= out_size[i];
      }
      int64_t cells = 1;
      for (int64_t k : kernel) cells *= k;
      double best = -INFINITY;
      int64_t best_index = -1;
      for (int64_t c = 0; c < cells; ++c) {
        int64_t index = 0, rem = c;
        std::vector<int64_t> offset(n);
        for (int64_t i = n - 1; i >= 0; --i) {
          offset[i] = rem % kernel[i];
          rem /= kernel[i];
        }
        for (int64_t i = 0; i < n; ++i) index = index * in_size[i] + origin[i] + offset[i];
        if (best_index < 0) best_index = index;
        const double v = x[p * plane + index];
        if (v > best || std::isnan(v)) {
          best = v;
          best_index = index;
        }
      }
      StoreDouble(out, p * windows + w, best);
      StoreInt(indices, p * windows + w, best_index);
    }
  }
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(out)));
  return call.SetTensor(std::move(indices));
}

absl::Status FractionalMaxPool2d(RefCall& call) { return FractionalMaxPool(call, 2); }
absl::Status FractionalMaxPool3d(RefCall& call) { return FractionalMaxPool(call, 3); }

}  // namespace

void RegisterFractionalPoolingRef(RefRegistry& r) {
  r.Add("aten::fractional_max_pool2d.default", FractionalMaxPool2d);
  r.Add("aten::fractional_max_pool3d.default", FractionalMaxPool3d);
}

}  // namespace pt2onnx::reference
