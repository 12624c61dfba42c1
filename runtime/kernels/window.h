// File: runtime/kernels/window.h
// -----------------------------------------------------------------------------
// Sliding-window geometry shared by Conv, ConvTranspose and the pools:
// kernel_shape / strides / dilations / pads / auto_pad / ceil_mode resolved
// against concrete spatial dims. Spatial ranks 1 to 3.
#ifndef PT2ONNX_RUNTIME_KERNELS_WINDOW_H_
#define PT2ONNX_RUNTIME_KERNELS_WINDOW_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/graph.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::runtime {

struct WindowAttrs {
  std::vector<int64_t> kernel_shape, strides, dilations, pads;  // as written (may be empty)
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;
};

absl::StatusOr<WindowAttrs> ReadWindowAttrs(const ir::Node& node);

// One spatial dim of a resolved window.
struct WindowDim {
  int64_t in = 0, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0, out = 0;
};

// Resolves `attrs` for input spatial dims `in` and kernel dims `kernel`
// (from the weights for Conv, kernel_shape for pools). Errors name the bad
// attribute; an empty output (out <= 0) is an error.
absl::StatusOr<std::vector<WindowDim>> ResolveWindow(const WindowAttrs& attrs, const Dims& in,
                                                     const Dims& kernel, const char* op);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_WINDOW_H_
