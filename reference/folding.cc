// Reference kernels: col2im (F.fold): sums each column of sliding blocks
// back into its image positions, overlapping blocks adding up, in double.
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<std::vector<int64_t>> Pair(const RefCall& call, const char* name, bool positive) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> v, call.Ints(name));
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) return call.Invalid(absl::StrCat("col2im: ", name, " must have 2 elements"));
  for (int64_t x : v) {
    if (positive ? x <= 0 : x < 0) {
      return call.Invalid(absl::StrCat("col2im: ", name, positive ? " must be positive" : " must be non-negative"));
    }
    if (x > (int64_t{1} << 31)) return call.Invalid(absl::StrCat("col2im: ", name, " is too large"));
  }
  return v;
}

// aten::col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
absl::Status Col2im(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out_size, Pair(call, "output_size", true));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, Pair(call, "kernel_size", true));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, Pair(call, "dilation", true));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, Pair(call, "padding", false));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, Pair(call, "stride", true));
  const bool batched = self.rank() == 3;
  if (self.rank() != 2 && self.rank() != 3) return call.Invalid("col2im: expected a 2-D or 3-D input");
  const int64_t n = batched ? self.dims()[0] : 1;
  const int64_t rows = self.dims()[self.rank() - 2], length = self.dims()[self.rank() - 1];
  const int64_t kernel_area = kernel[0] * kernel[1];
  if (rows % kernel_area != 0) {
    return call.Invalid(absl::StrCat("col2im: expected size of input's dimension 1 to be divisible by the product of "
                                     "kernel_size, but got input.size(1)=", rows, " and kernel_size=(", kernel[0],
                                     ", ", kernel[1], ")"));
  }
  int64_t blocks[2];
  for (int d = 0; d < 2; ++d) {
    blocks[d] = (out_size[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) / stride[d] + 1;
    if (blocks[d] < 1) return call.Invalid("col2im: the sliding blocks do not fit in the output size");
  }
  if (blocks[0] * blocks[1] != length) {
    return call.Invalid(absl::StrCat("col2im: given output_size, kernel_size, dilation, padding, stride, expected "
                                     "size of input's dimension 2 to match the calculated number of sliding blocks ",
                                     blocks[0], " * ", blocks[1], " = ", blocks[0] * blocks[1], ", but got ",
                                     length));
  }
  const int64_t channels = rows / kernel_area, h = out_size[0], w = out_size[1];
  const std::vector<double> in = ToDoubles(self);
  std::vector<double> out(n * channels * h * w, 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t c = r / kernel_area, ki = (r / kernel[1]) % kernel[0], kj = r % kernel[1];
      for (int64_t bh = 0; bh < blocks[0]; ++bh) {
        const int64_t y = bh * stride[0] - padding[0] + ki * dilation[0];
        if (y < 0 || y >= h) continue;
        for (int64_t bw = 0; bw < blocks[1]; ++bw) {
          const int64_t x = bw * stride[1] - padding[1] + kj * dilation[1];
          if (x < 0 || x >= w) continue;
          out[((b * channels + c) * h + y) * w + x] += in[(b * rows + r) * length + bh * blocks[1] + bw];
        }
      }
    }
  }
  Dims dims = batched ? Dims{n, channels, h, w} : Dims{channels, h, w};
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(self.dtype(), dims, out));
  return call.SetTensor(std::move(result));
}

// aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
// Row c * kH * kW + i * kW + j, column (bh, bw): the image at
// (bh * sH - pH + i * dH, bw * sW - pW + j * dW), 0 outside it.
absl::Status Im2col(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, Pair(call, "kernel_size", true));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, Pair(call, "dilation", true));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, Pair(call, "padding", false));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, Pair(call, "stride", true));
  if (self.rank() != 3 && self.rank() != 4) return call.Invalid("im2col: expected a 3-D or 4-D input");
  const bool batched = self.rank() == 4;
  const int64_t n = batched ? self.dims()[0] : 1;
  const int64_t channels = self.dims()[self.rank() - 3], h = self.dims()[self.rank() - 2], w = self.dims()[self.rank() - 1];
  int64_t blocks[2];
  const int64_t size[2] = {h, w};
  for (int d = 0; d < 2; ++d) {
    blocks[d] = (size[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) / stride[d] + 1;
    if (size[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1 < 0 || blocks[d] < 1) {
      return call.Invalid("im2col: the kernel does not fit in the padded input");
    }
  }
  const int64_t rows = channels * kernel[0] * kernel[1], length = blocks[0] * blocks[1];
  const std::vector<double> in = ToDoubles(self);
  std::vector<double> out(n * rows * length, 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t c = r / (kernel[0] * kernel[1]), ki = (r / kernel[1]) % kernel[0], kj = r % kernel[1];
      for (int64_t bh = 0; bh < blocks[0]; ++bh) {
        const int64_t y = bh * stride[0] - padding[0] + ki * dilation[0];
        for (int64_t bw = 0; bw < blocks[1]; ++bw) {
          const int64_t x = bw * stride[1] - padding[1] + kj * dilation[1];
          if (y < 0 || y >= h || x < 0 || x >= w) continue;
          out[(b * rows + r) * length + bh * blocks[1] + bw] = in[((b * channels + c) * h + y) * w + x];
        }
      }
    }
  }
  Dims dims = batched ? Dims{n, rows, length} : Dims{rows, length};
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(self.dtype(), dims, out));
  return call.SetTensor(std::move(result));
}

}  // namespace

void RegisterFoldingRef(RefRegistry& r) {
  r.Add("aten::col2im.default", Col2im);
  r.Add("aten::im2col.default", Im2col);
}

}  // namespace pt2onnx::reference
