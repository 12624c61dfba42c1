// Reference kernels: discrete Fourier transforms (_fft_r2c, _fft_c2c,
// _fft_c2r and torch.fft's fft, ifft, rfft, irfft) and view_as_real; the shared
// direct sum (fft_support.h) is defined here, used by fft_nd.cc and stft.cc too.
// Complex tensors are complex64 / complex128 runtime tensors (interleaved
// real and imaginary parts, torch's layout); each transformed dim is a
// direct DFT sum in double (O(n^2) per line: a reference, not a fast path).
// Scaling as ATen's `normalization`: 0 none, 1 1/sqrt(n), 2 1/n, n the
// product of the transformed signal sizes, whatever the direction. A
// transform costing more than kMaxReferenceDftTerms multiply-adds is refused
// (a hostile length would otherwise hold the interpreter for hours).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "reference/fft_support.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace fft_support {

DataType ComplexOf(DataType real) { return real == DataType::kDouble ? DataType::kComplex128 : DataType::kComplex64; }
DataType RealOf(DataType complex) { return complex == DataType::kComplex128 ? DataType::kDouble : DataType::kFloat; }

std::vector<Complex> ComplexValues(const Tensor& t) {
  std::vector<Complex> v(t.numel());
  if (t.dtype() == DataType::kComplex64) {
    const float* p = reinterpret_cast<const float*>(t.raw());
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = Complex(p[2 * i], p[2 * i + 1]);
  } else if (t.dtype() == DataType::kComplex128) {
    const double* p = reinterpret_cast<const double*>(t.raw());
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = Complex(p[2 * i], p[2 * i + 1]);
  } else {
    const std::vector<double> re = ToDoubles(t);
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = Complex(re[i], 0);
  }
  return v;
}

absl::StatusOr<Tensor> FromComplex(DataType dtype, const Dims& dims, const std::vector<Complex>& v) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype, dims));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DataType::kComplex64) {
      float* p = reinterpret_cast<float*>(t.raw());
      p[2 * i] = static_cast<float>(v[i].real());
      p[2 * i + 1] = static_cast<float>(v[i].imag());
    } else {
      double* p = reinterpret_cast<double*>(t.raw());
      p[2 * i] = v[i].real();
      p[2 * i + 1] = v[i].imag();
    }
  }
  return t;
}

// Dim `axis` cut or zero-padded to `n` entries.
Signal Resize(const Signal& s, int64_t axis, int64_t n) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s.dims[d];
  for (size_t d = axis + 1; d < s.dims.size(); ++d) inner *= s.dims[d];
  const int64_t old = s.dims[axis];
  Signal r;
  r.dims = s.dims;
  r.dims[axis] = n;
  r.v.assign(outer * n * inner, Complex(0, 0));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < std::min(n, old); ++k) {
      for (int64_t i = 0; i < inner; ++i) r.v[(o * n + k) * inner + i] = s.v[(o * old + k) * inner + i];
    }
  }
  return r;
}

// Multiply-adds of one direct DFT: lines * n^2. 2^32 took the interpreter
// 36 s (-c opt, a loaded 2-core machine), so about 9 s at this limit; one
// line of a million points would be 2^40.
constexpr int64_t kMaxReferenceDftTerms = int64_t{1} << 30;

// Refuses a DFT of length `n` over `lines` lines beyond kMaxReferenceDftTerms
// (checked before the signal is padded to n).
absl::Status CheckDftCost(int64_t lines, int64_t n) {
  std::optional<int64_t> terms = CheckedMul(lines, n);
  if (terms) terms = CheckedMul(*terms, n);
  if (terms && *terms <= kMaxReferenceDftTerms) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "a DFT of length ", n, " over ", lines, " line(s) needs ", terms ? absl::StrCat(*terms) : "over 2^63",
      " multiply-adds in the reference interpreter's direct sum, over its limit of 2^30 (kMaxReferenceDftTerms); "
      "it cannot verify this FFT"));
}

// Unnormalized DFT along `axis`: sign -1 forward, +1 backward.
absl::Status Transform(Signal& s, int64_t axis, int sign) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s.dims[d];
  for (size_t d = axis + 1; d < s.dims.size(); ++d) inner *= s.dims[d];
  const int64_t n = s.dims[axis];
  PT2ONNX_RETURN_IF_ERROR(CheckDftCost(n == 0 ? 0 : static_cast<int64_t>(s.v.size()) / n, n));
  std::vector<Complex> line(n);
  std::vector<Complex> twiddle(n);
  for (int64_t k = 0; k < n; ++k) {
    const double angle = sign * 2 * M_PI * static_cast<double>(k) / static_cast<double>(n);
    twiddle[k] = Complex(std::cos(angle), std::sin(angle));
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 0; k < n; ++k) line[k] = s.v[(o * n + k) * inner + i];
      for (int64_t k = 0; k < n; ++k) {
        Complex acc(0, 0);
        for (int64_t j = 0; j < n; ++j) acc += line[j] * twiddle[(j * k) % n];
        s.v[(o * n + k) * inner + i] = acc;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Scale(const RefCall& call, Signal& s, int64_t normalization, double n) {
  double f = 1;
  if (normalization == 1) f = 1 / std::sqrt(n);
  else if (normalization == 2) f = 1 / n;
  else if (normalization != 0) return call.Invalid(absl::StrCat("unknown normalization mode ", normalization));
  if (f != 1) for (Complex& c : s.v) c *= f;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> TransformDims(const RefCall& call, const Tensor& self) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dim, call.Ints("dim"));
  std::vector<int64_t> out;
  for (int64_t d : dim) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, self.rank()));
    if (std::find(out.begin(), out.end(), w) != out.end()) return call.Invalid("FFT dims must be unique");
    out.push_back(w);
  }
  return out;
}

// The Hermitian completion of the half spectrum along `axis` (cut or
// zero-padded to n/2 + 1 entries) to n entries, inverse-transformed; the
// real part. The other dims must be transformed already.
absl::StatusOr<Tensor> ComplexToReal(Signal s, int64_t axis, int64_t n, DataType real) {
  const int64_t m = s.dims[axis];
  PT2ONNX_RETURN_IF_ERROR(CheckDftCost(m == 0 ? 0 : static_cast<int64_t>(s.v.size()) / m, n));
  s = Resize(s, axis, n / 2 + 1);
  Signal full = Resize(s, axis, n);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= full.dims[d];
  for (size_t d = axis + 1; d < full.dims.size(); ++d) inner *= full.dims[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = n / 2 + 1; k < n; ++k) {
      for (int64_t i = 0; i < inner; ++i) {
        full.v[(o * n + k) * inner + i] = std::conj(full.v[(o * n + (n - k)) * inner + i]);
      }
    }
  }
  PT2ONNX_RETURN_IF_ERROR(Transform(full, axis, +1));
  std::vector<double> re(full.v.size());
  for (size_t i = 0; i < re.size(); ++i) re[i] = full.v[i].real();
  return FromDoubles(real, full.dims, re);
}

absl::Status RequireReal(const RefCall& call, const Tensor& t) {
  if (!IsFloatingPoint(t.dtype()) || t.dtype() == DataType::kFloat16 || t.dtype() == DataType::kBFloat16) {
    return call.Invalid(absl::StrCat("expected a float32 or float64 input, got ", DataTypeName(t.dtype())));
  }
  return absl::OkStatus();
}
absl::Status RequireComplex(const RefCall& call, const Tensor& t) {
  if (!IsComplex(t.dtype())) return call.Invalid(absl::StrCat("expected a complex input, got ", DataTypeName(t.dtype())));
  return absl::OkStatus();
}

}  // namespace fft_support

namespace {

using fft_support::Complex;
using fft_support::ComplexOf;
using fft_support::ComplexToReal;
using fft_support::ComplexValues;
using fft_support::CheckDftCost;
using fft_support::FromComplex;
using fft_support::RealOf;
using fft_support::RequireComplex;
using fft_support::RequireReal;
using fft_support::Resize;
using fft_support::Scale;
using fft_support::Signal;
using fft_support::Transform;
using fft_support::TransformDims;

// aten::_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor
absl::Status FftR2c(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_RETURN_IF_ERROR(RequireReal(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, TransformDims(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, call.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(bool onesided, call.Bool("onesided"));
  Signal s{self.dims(), ComplexValues(self)};
  double n = 1;
  for (int64_t d : dims) {
    PT2ONNX_RETURN_IF_ERROR(Transform(s, d, -1));
    n *= static_cast<double>(s.dims[d]);
  }
  PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, n));
  if (onesided && !dims.empty()) s = Resize(s, dims.back(), s.dims[dims.back()] / 2 + 1);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromComplex(ComplexOf(self.dtype()), s.dims, s.v));
  return call.SetTensor(std::move(out));
}

// aten::_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor
absl::Status FftC2c(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_RETURN_IF_ERROR(RequireComplex(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, TransformDims(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, call.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(bool forward, call.Bool("forward"));
  Signal s{self.dims(), ComplexValues(self)};
  double n = 1;
  for (int64_t d : dims) {
    PT2ONNX_RETURN_IF_ERROR(Transform(s, d, forward ? -1 : +1));
    n *= static_cast<double>(s.dims[d]);
  }
  PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, n));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromComplex(self.dtype(), s.dims, s.v));
  return call.SetTensor(std::move(out));
}

// aten::_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor
absl::Status FftC2r(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_RETURN_IF_ERROR(RequireComplex(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, TransformDims(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, call.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t last, call.Int("last_dim_size"));
  if (dims.empty()) return call.Invalid("_fft_c2r needs at least one dim");
  if (last < 1 || last > (int64_t{1} << 31)) return call.Invalid(absl::StrCat("Invalid number of data points (", last, ") specified"));
  Signal s{self.dims(), ComplexValues(self)};
  double n = static_cast<double>(last);
  for (size_t k = 0; k + 1 < dims.size(); ++k) {
    PT2ONNX_RETURN_IF_ERROR(Transform(s, dims[k], +1));
    n *= static_cast<double>(s.dims[dims[k]]);
  }
  PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, n));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, ComplexToReal(std::move(s), dims.back(), last, RealOf(self.dtype())));
  return call.SetTensor(std::move(out));
}

// torch.fft's 1-D functions: n (signal length along dim, cut or
// zero-padded; irfft: output length, default 2 * (m - 1)), norm
// "backward" (default: the inverse scales by 1/n), "forward" or "ortho".
absl::Status OneDimensional(RefCall& call, bool inverse, bool real_input, bool real_output) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> n_arg, call.OptionalInt("n"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim_arg, call.Int("dim"));
  std::string norm = "backward";
  if (call.Has("norm")) {
    PT2ONNX_ASSIGN_OR_RETURN(norm, call.String("norm"));
  }
  if (norm != "backward" && norm != "forward" && norm != "ortho") return call.Invalid(absl::StrCat("Invalid normalization mode: ", norm));
  if (real_input && IsComplex(self.dtype())) {
    return call.Invalid("rfft expects a real input tensor, but got " + std::string(DataTypeName(self.dtype())));
  }
  if (!IsFloatingPoint(self.dtype()) && !IsComplex(self.dtype())) {  // integers: the default float dtype
    PT2ONNX_ASSIGN_OR_RETURN(self, CastTensor(self, DataType::kFloat));
  }
  if (!IsComplex(self.dtype())) PT2ONNX_RETURN_IF_ERROR(RequireReal(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dim_arg, self.rank()));
  if (self.rank() == 0) return call.Invalid("FFT needs at least one dimension");
  const int64_t m = self.dims()[dim];
  const int64_t n = n_arg.value_or(real_output ? 2 * (m - 1) : m);
  if (n < 1 || n > (int64_t{1} << 31)) return call.Invalid(absl::StrCat("Invalid number of data points (", n, ") specified"));
  const DataType complex = IsComplex(self.dtype()) ? self.dtype() : ComplexOf(self.dtype());
  Signal s{self.dims(), ComplexValues(self)};
  const int64_t normalization = norm == "ortho" ? 1 : ((norm == "forward") != inverse ? 2 : 0);
  if (real_output) {
    PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, static_cast<double>(n)));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, ComplexToReal(std::move(s), dim, n, RealOf(complex)));
    return call.SetTensor(std::move(out));
  }
  PT2ONNX_RETURN_IF_ERROR(CheckDftCost(m == 0 ? 0 : static_cast<int64_t>(s.v.size()) / m, n));
  s = Resize(s, dim, n);
  PT2ONNX_RETURN_IF_ERROR(Transform(s, dim, inverse ? +1 : -1));
  PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, static_cast<double>(n)));
  if (real_input) s = Resize(s, dim, n / 2 + 1);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromComplex(complex, s.dims, s.v));
  return call.SetTensor(std::move(out));
}
// aten::fft_fft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status FftFft(RefCall& call) { return OneDimensional(call, false, false, false); }
// aten::fft_ifft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status FftIfft(RefCall& call) { return OneDimensional(call, true, false, false); }
// aten::fft_rfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status FftRfft(RefCall& call) { return OneDimensional(call, false, true, false); }
// aten::fft_irfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status FftIrfft(RefCall& call) { return OneDimensional(call, true, false, true); }

// aten::view_as_real(Tensor(a) self) -> Tensor(a): the same bytes as
// [..., 2] real values.
absl::Status ViewAsReal(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_RETURN_IF_ERROR(RequireComplex(call, self));
  Dims dims = self.dims();
  dims.push_back(2);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(RealOf(self.dtype()), dims));
  if (out.byte_size() > 0) std::memcpy(out.raw(), self.raw(), out.byte_size());
  return call.SetTensor(std::move(out));
}

// aten::fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor (fft_ifftshift:
// the opposite shift). Each listed dim (every dim when None) rolls by
// n // 2, or by -(n // 2) for the inverse: out[i] = in[(i - shift) mod n].
absl::Status FftShiftImpl(RefCall& call, bool inverse) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::vector<int64_t> dims;
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, call.Arg("dim"));
  if (arg.kind == pt2::Argument::Kind::kNone) {
    for (int64_t d = 0; d < self.rank(); ++d) dims.push_back(d);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> given, call.Ints("dim"));
    for (int64_t d : given) {
      PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, std::max<int64_t>(self.rank(), 1)));
      dims.push_back(w);
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor cur, CopyTensor(self));
  if (self.rank() == 0) return call.SetTensor(std::move(cur));
  const std::vector<int64_t> strides = RowMajorStrides(self.dims());
  const size_t width = ElementSize(self.dtype());
  for (int64_t d : dims) {
    const int64_t n = self.dim(d);
    if (n == 0) continue;
    const int64_t shift = inverse ? -(n / 2) : n / 2;
    PT2ONNX_ASSIGN_OR_RETURN(Tensor next, NewTensor(self.dtype(), self.dims()));
    for (int64_t o = 0; o < cur.numel(); ++o) {
      const int64_t i = (o / strides[d]) % n;
      const int64_t from_i = ((i - shift) % n + n) % n;
      const int64_t from = o + (from_i - i) * strides[d];
      std::memcpy(next.raw() + o * width, cur.raw() + from * width, width);
    }
    cur = std::move(next);
  }
  return call.SetTensor(std::move(cur));
}
absl::Status FftFftshift(RefCall& call) { return FftShiftImpl(call, false); }
absl::Status FftIfftshift(RefCall& call) { return FftShiftImpl(call, true); }

}  // namespace

void RegisterFftRef(RefRegistry& r) {
  r.Add("aten::fft_fftshift.default", FftFftshift);
  r.Add("aten::fft_ifftshift.default", FftIfftshift);
  r.Add("aten::_fft_r2c.default", FftR2c);
  r.Add("aten::_fft_c2c.default", FftC2c);
  r.Add("aten::_fft_c2r.default", FftC2r);
  r.Add("aten::fft_fft.default", FftFft);
  r.Add("aten::fft_ifft.default", FftIfft);
  r.Add("aten::fft_rfft.default", FftRfft);
  r.Add("aten::fft_irfft.default", FftIrfft);
  r.Add("aten::view_as_real.default", ViewAsReal);
}

}  // namespace pt2onnx::reference
