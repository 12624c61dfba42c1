// File: reference/windows.cc
// -----------------------------------------------------------------------------
// Reference kernels for hann_window, hamming_window and blackman_window (all
// overloads), with the formulas of aten/src/ATen/native/TensorFactories.cpp.
#include <cmath>
#include <vector>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

constexpr double kPi = 3.14159265358979323846;

absl::Status Window(RefCall& call, double a0, double a1, double a2) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t length, call.Int("window_length"));
  if (length < 0) return call.Invalid("window_length is negative");
  bool periodic = true;
  if (call.Has("periodic")) {
    PT2ONNX_ASSIGN_OR_RETURN(periodic, call.Bool("periodic"));
  }
  std::vector<double> w(length, 1.0);
  if (length > 1) {
    const double n = static_cast<double>(periodic ? length : length - 1);
    for (int64_t i = 0; i < length; ++i) {
      const double x = static_cast<double>(i);
      w[i] = a0 + a1 * std::cos(2 * kPi * x / n) + a2 * std::cos(4 * kPi * x / n);
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(call.OutputDtype(), {length}, w));
  return call.SetTensor(std::move(out));
}

// aten::hann_window(int window_length, *, ScalarType? dtype=None, ...) -> Tensor (and .periodic)
absl::Status HannWindow(RefCall& call) { return Window(call, 0.5, -0.5, 0); }
// aten::hamming_window.periodic_alpha_beta(int window_length, bool periodic, float alpha, float beta, ...)
absl::Status HammingWindow(RefCall& call) {
  double alpha = 0.54, beta = 0.46;
  if (call.Has("alpha")) {
    PT2ONNX_ASSIGN_OR_RETURN(alpha, call.Double("alpha"));
  }
  if (call.Has("beta")) {
    PT2ONNX_ASSIGN_OR_RETURN(beta, call.Double("beta"));
  }
  return Window(call, alpha, -beta, 0);
}
// aten::blackman_window(int window_length, ...) -> Tensor (and .periodic)
absl::Status BlackmanWindow(RefCall& call) { return Window(call, 0.42, -0.5, 0.08); }

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
