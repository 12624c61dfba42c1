// File: reference/fft_support.h
// -----------------------------------------------------------------------------
// The direct-sum DFT the reference FFT kernels share (fft.cc: the _fft_* ops
// and torch.fft's 1-D functions; fft_nd.cc: the n-dimensional and Hermitian
// ones; stft.cc). Values are std::complex<double> arrays with their dims.
//
//   Signal s{self.dims(), ComplexValues(self)};
//   PT2ONNX_RETURN_IF_ERROR(Transform(s, axis, -1));
#ifndef PT2ONNX_REFERENCE_FFT_SUPPORT_H_
#define PT2ONNX_REFERENCE_FFT_SUPPORT_H_

#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/tensor/tensor.h"
#include "reference/ref_call.h"

namespace pt2onnx::reference::fft_support {

using Complex = std::complex<double>;

// A complex array with its dims (row-major).
struct Signal {
  Dims dims;
  std::vector<Complex> v;
};

// complex64 for float32 (and others), complex128 for float64; the reverse.
DataType ComplexOf(DataType real);
DataType RealOf(DataType complex);

// The values of a complex tensor, or of a real one with imaginary part 0.
std::vector<Complex> ComplexValues(const Tensor& t);
// A complex64/complex128 tensor of `dims` holding `v`.
absl::StatusOr<Tensor> FromComplex(DataType dtype, const Dims& dims, const std::vector<Complex>& v);

// Dim `axis` cut or zero-padded to `n` entries.
Signal Resize(const Signal& s, int64_t axis, int64_t n);
// ResourceExhausted when a direct DFT of length `n` over `lines` lines is too costly.
absl::Status CheckDftCost(int64_t lines, int64_t n);
// Unnormalized DFT along `axis`: sign -1 forward, +1 backward.
absl::Status Transform(Signal& s, int64_t axis, int sign);
// ATen's normalization: 0 none, 1 1/sqrt(n), 2 1/n.
absl::Status Scale(const RefCall& call, Signal& s, int64_t normalization, double n);
// The `dim` argument, wrapped, unique.
absl::StatusOr<std::vector<int64_t>> TransformDims(const RefCall& call, const Tensor& self);
// The Hermitian completion of the half spectrum along `axis` to `n` entries,
// inverse-transformed; the real part as a `real` tensor.
absl::StatusOr<Tensor> ComplexToReal(Signal s, int64_t axis, int64_t n, DataType real);
// InvalidArgument unless `t` is float32/float64 (resp. complex).
absl::Status RequireReal(const RefCall& call, const Tensor& t);
absl::Status RequireComplex(const RefCall& call, const Tensor& t);

}  // namespace pt2onnx::reference::fft_support

#endif  // PT2ONNX_REFERENCE_FFT_SUPPORT_H_
