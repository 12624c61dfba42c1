// File: ops/fft_helpers.h
// -----------------------------------------------------------------------------
// Building blocks shared by the FFT translations (fft.cc: the _fft_* ops and
// torch.fft's 1-D functions; fft_nd.cc: the n-dimensional and Hermitian
// ones; stft.cc). Complex values are real tensors with a trailing dim of 2
// (ops/complex_layout.h); sizes and lengths are [1] INT64 values.
//
//   PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
//   std::string y = Dft(ctx, x, axis, /*inverse=*/false, /*onesided=*/false);
#ifndef PT2ONNX_OPS_FFT_HELPERS_H_
#define PT2ONNX_OPS_FFT_HELPERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops::fft_internal {

// Unimplemented unless every reader of the node's output 0 is an op that
// understands the layout (a program output is one).
absl::Status CheckComplexReaders(const TranslateContext& ctx);

// The real dtype of a complex one (complex64 -> float32).
absl::StatusOr<DataType> PartDtype(const TranslateContext& ctx, DataType complex);

// Tensor argument `self` in the layout; Unimplemented unless an op that
// writes the layout produced it.
absl::StatusOr<std::string> ComplexOperand(TranslateContext& ctx);

// Tensor argument `self` (rank `rank` in torch's terms) in the layout: a
// complex one as ComplexOperand, a real one (any dtype) cast to `part` with
// imaginary part 0, as torch promotes an FFT's real input.
absl::StatusOr<std::string> PromotedOperand(TranslateContext& ctx, int64_t rank, DataType part);

// One DFT along `axis` of x (..., 1 or 2).
std::string Dft(TranslateContext& ctx, const std::string& x, int64_t axis, bool inverse, bool onesided);

// Size of dim `axis` of x as a 0-d value of `dtype`.
std::string SizeAs(TranslateContext& ctx, const std::string& x, int64_t axis, DataType dtype);

// x * scale, with torch's normalization (0 none, 1 1/sqrt(n), 2 1/n) of a
// transform over sizes whose product is the 0-d `n`; multiplied by
// `inverse_n` too when given (undoes ONNX's inverse DFT scaling).
absl::StatusOr<std::string> Normalize(TranslateContext& ctx, const std::string& x, int64_t normalization,
                                      const std::string& n, const std::string& inverse_n, DataType dtype);

// The `dim` argument of an _fft_* op, checked against `rank`.
absl::StatusOr<std::vector<int64_t>> TransformAxes(TranslateContext& ctx, int64_t rank);

// Product of the sizes of `axes` of x, as a 0-d value of `dtype`.
std::string SizeProduct(TranslateContext& ctx, const std::string& x, const std::vector<int64_t>& axes,
                        DataType dtype);

// x cut or zero-padded to `n` ([1] INT64) entries along `axis`.
std::string FitLength(TranslateContext& ctx, const std::string& x, int64_t axis, const std::string& n,
                      DataType dtype);

// The c2r transform of the complex `h` (rank `rank` in torch's terms) over
// `axes`, the last one producing `n` ([1] INT64) real values.
absl::StatusOr<std::string> C2r(TranslateContext& ctx, std::string h, const std::vector<int64_t>& axes,
                                const std::string& n, int64_t normalization, int64_t rank, DataType dtype);

// x (complex layout) conjugated: the imaginary part negated.
std::string Conj(TranslateContext& ctx, const std::string& x, DataType dtype);

// InvalidArgument unless `dtype` is float32 or float64.
absl::Status CheckRealResult(const TranslateContext& ctx, DataType dtype);

// torch.fft's `norm` argument as a _fft_* normalization for a transform in
// the direction `inverse`.
absl::StatusOr<int64_t> NormMode(const TranslateContext& ctx, bool inverse);

// The signal length `n` as a [1] INT64 value; nullopt for None.
absl::StatusOr<std::optional<std::string>> SignalLength(TranslateContext& ctx);

}  // namespace pt2onnx::ops::fft_internal

#endif  // PT2ONNX_OPS_FFT_HELPERS_H_
