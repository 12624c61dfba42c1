// Reference kernel: aten::stft (ops/stft.cc), torch's rules from
// aten/src/ATen/native/SpectralOps.cpp: hop_length defaults to n_fft / 4,
// win_length to n_fft; the window (ones when absent) is zero-padded, centred,
// to n_fft; frame t holds samples [t * hop, t * hop + n_fft) times the
// window, 1 + (length - n_fft) / hop frames; each frame's DFT (onesided: the
// first n_fft / 2 + 1 bins), scaled by 1 / sqrt(n_fft) when normalized.
// Result [batch?, bins, frames], complex, or its view_as_real.
#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/fft_support.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

using fft_support::Complex;
using fft_support::ComplexOf;
using fft_support::FromComplex;
using fft_support::RealOf;
using fft_support::Signal;
using fft_support::Transform;

absl::StatusOr<std::optional<bool>> OptionalBool(const RefCall& call, absl::string_view name) {
  if (!call.Has(name)) return std::optional<bool>();
  PT2ONNX_ASSIGN_OR_RETURN(bool v, call.Bool(name));
  return std::optional<bool>(v);
}

// aten::stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None,
//            Tensor? window=None, bool normalized=False, bool? onesided=None,
//            bool? return_complex=None, bool? align_to_window=None) -> Tensor
absl::Status Stft(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (!IsFloatingPoint(self.dtype())) return call.Invalid("stft expects a float32 or float64 signal");
  if (self.rank() != 1 && self.rank() != 2) return call.Invalid("stft expects a 1D or 2D signal");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n_fft, call.Int("n_fft"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> hop_arg, call.OptionalInt("hop_length"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> win_arg, call.OptionalInt("win_length"));
  PT2ONNX_ASSIGN_OR_RETURN(bool normalized, call.Bool("normalized"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<bool> onesided_arg, OptionalBool(call, "onesided"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<bool> return_complex, OptionalBool(call, "return_complex"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<bool> align, OptionalBool(call, "align_to_window"));
  if (!return_complex) return call.Invalid("stft requires the return_complex parameter be given for real inputs");
  if (align.value_or(false)) return call.Invalid("align_to_window=True is not implemented here");
  const int64_t hop = hop_arg.value_or(n_fft / 4);
  const int64_t win_length = win_arg.value_or(n_fft);
  const int64_t length = self.dims().back();
  if (n_fft <= 0 || n_fft > length) return call.Invalid(absl::StrCat("stft expected 0 < n_fft <= ", length, ", but got n_fft=", n_fft));
  if (hop <= 0) return call.Invalid(absl::StrCat("stft expected hop_length > 0, but got hop_length=", hop));
  if (win_length <= 0 || win_length > n_fft) return call.Invalid(absl::StrCat("stft expected 0 < win_length <= n_fft, but got win_length=", win_length));
  std::vector<double> window(n_fft, 0.0);
  const int64_t left = (n_fft - win_length) / 2;
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> given, call.OptionalInput("window"));
  if (given) {
    if (given->rank() != 1 || given->dims()[0] != win_length) return call.Invalid("expected a 1D window tensor of size equal to win_length");
    if (IsComplex(given->dtype())) return call.Invalid("a complex window is not implemented here");
    const std::vector<double> w = ToDoubles(*given);
    for (int64_t k = 0; k < win_length; ++k) window[left + k] = w[k];
  } else {
    for (int64_t k = 0; k < win_length; ++k) window[left + k] = 1.0;
  }
  const bool onesided = onesided_arg.value_or(true);
  const int64_t batch = self.rank() == 2 ? self.dims()[0] : 1;
  const int64_t frames = 1 + (length - n_fft) / hop;
  const int64_t bins = onesided ? n_fft / 2 + 1 : n_fft;
  const std::vector<double> x = ToDoubles(self);
  // [batch, frames, n_fft] windowed frames, transformed along the last dim.
  Signal s{{batch, frames, n_fft}, std::vector<Complex>(batch * frames * n_fft)};
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < frames; ++t) {
      for (int64_t k = 0; k < n_fft; ++k) {
        s.v[(b * frames + t) * n_fft + k] = Complex(x[b * length + t * hop + k] * window[k], 0);
      }
    }
  }
  PT2ONNX_RETURN_IF_ERROR(Transform(s, 2, -1));
  const double scale = normalized ? 1 / std::sqrt(static_cast<double>(n_fft)) : 1.0;
  std::vector<Complex> out(batch * bins * frames);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t f = 0; f < bins; ++f) {
      for (int64_t t = 0; t < frames; ++t) out[(b * bins + f) * frames + t] = s.v[(b * frames + t) * n_fft + f] * scale;
    }
  }
  Dims dims = self.rank() == 2 ? Dims{batch, bins, frames} : Dims{bins, frames};
  const DataType complex = ComplexOf(self.dtype());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromComplex(complex, dims, out));
  if (*return_complex) return call.SetTensor(std::move(result));
  dims.push_back(2);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor real, NewTensor(RealOf(complex), dims));
  if (real.byte_size() > 0) std::memcpy(real.raw(), result.raw(), real.byte_size());
  return call.SetTensor(std::move(real));
}

}  // namespace

void RegisterStftRef(RefRegistry& r) { r.Add("aten::stft.default", Stft); }

}  // namespace pt2onnx::reference
