// File: reference/windows.cc
// -----------------------------------------------------------------------------
// Reference kernels for hann_window, hamming_window and blackman_window (all
// overloads), with the formulas of aten/src/ATen/native/TensorFactories.cpp.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct WindowShape {
  double alpha = 0.5, beta = 0.5;  // hamming family
  bool blackman = false;
};

// torch's steps, each rounded to T (float for every dtype but double, as
// ops/windows.cc computes them): hamming is cos(n * s) * -beta + alpha with
// s = 2 pi / (N - 1); blackman is (cos(4 b) * 0.08 - cos(2 b) * 0.5) + 0.42
// with b = n * pi / (N - 1). Both ends of a blackman window cancel to a
// residue (-2.98e-8 in float) that this order reproduces and double does not.
template <typename T>
std::vector<double> WindowValues(int64_t length, bool periodic, const WindowShape& shape) {
  std::vector<double> w(length, 1.0);
  if (length <= 1) return w;
  const double denominator = static_cast<double>(periodic ? length : length - 1);
  const auto cos_t = [](T x) { return static_cast<T>(std::cos(static_cast<double>(x))); };
  for (int64_t i = 0; i < length; ++i) {
    const T n = static_cast<T>(i);
    if (shape.blackman) {
      const T b = n * static_cast<T>(kPi / denominator);
      const T four = cos_t(b * T(4)) * T(0.08), two = cos_t(b * T(2)) * T(0.5);
      w[i] = static_cast<double>(static_cast<T>(four - two) + T(0.42));
    } else {
      const T c = cos_t(n * static_cast<T>(2 * kPi / denominator));
      w[i] = static_cast<double>(c * static_cast<T>(-shape.beta) + static_cast<T>(shape.alpha));
    }
  }
  return w;
}

absl::Status Window(RefCall& call, const WindowShape& shape) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t length, call.Int("window_length"));
  if (length < 0) return call.Invalid("window_length is negative");
  // Bounded before the values are allocated: the length comes from the file.
  if (length > (int64_t{1} << 30)) return call.Invalid(absl::StrCat("window_length ", length, " is too large"));
  bool periodic = true;
  if (call.Has("periodic")) {
    PT2ONNX_ASSIGN_OR_RETURN(periodic, call.Bool("periodic"));
  }
  const DataType dtype = call.OutputDtype();
  const std::vector<double> w = dtype == DataType::kDouble ? WindowValues<double>(length, periodic, shape)
                                                           : WindowValues<float>(length, periodic, shape);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(dtype, {length}, w));
  return call.SetTensor(std::move(out));
}

// aten::hann_window(int window_length, *, ScalarType? dtype=None, ...) -> Tensor (and .periodic)
absl::Status HannWindow(RefCall& call) { return Window(call, {0.5, 0.5, false}); }
// aten::hamming_window.periodic_alpha_beta(int window_length, bool periodic, float alpha, float beta, ...)
absl::Status HammingWindow(RefCall& call) {
  double alpha = 0.54, beta = 0.46;
  if (call.Has("alpha")) {
    PT2ONNX_ASSIGN_OR_RETURN(alpha, call.Double("alpha"));
  }
  if (call.Has("beta")) {
    PT2ONNX_ASSIGN_OR_RETURN(beta, call.Double("beta"));
  }
  return Window(call, {alpha, beta, false});
}
// aten::blackman_window(int window_length, ...) -> Tensor (and .periodic)
absl::Status BlackmanWindow(RefCall& call) { return Window(call, {0, 0, true}); }

}  // namespace

void RegisterWindowsRef(RefRegistry& r) {
  r.Add("aten::hann_window.default", HannWindow);
  r.Add("aten::hann_window.periodic", HannWindow);
  r.Add("aten::hamming_window.default", HammingWindow);
  r.Add("aten::hamming_window.periodic", HammingWindow);
  r.Add("aten::hamming_window.periodic_alpha", HammingWindow);
  r.Add("aten::hamming_window.periodic_alpha_beta", HammingWindow);
  r.Add("aten::blackman_window.default", BlackmanWindow);
  r.Add("aten::blackman_window.periodic", BlackmanWindow);
}

}  // namespace pt2onnx::reference
