// File: ops/fft.cc
// -----------------------------------------------------------------------------
// Discrete Fourier transforms (_fft_r2c, _fft_c2c, _fft_c2r, and torch.fft's
// 1-D fft, ifft, rfft, irfft of programs not decomposed) as ONNX DFT, and
// view_as_real; the building blocks are in fft_helpers.h, the n-dimensional
// and Hermitian transforms in fft_nd.cc. A real input of irfft is promoted
// to complex (imaginary part 0), as torch does.
//
// ONNX has no complex arithmetic, so a complex tensor is carried as a real
// one with a trailing dim of 2 (real, imaginary), as DFT reads and writes
// it. Only these translations understand that layout: a complex result must
// be read by nothing but FFT ops and view_as_real (which is then the
// identity); a complex program output is written in that layout as well
// (marked on the model, see translate/fx_values.h); complex operands must
// come from an op that writes the layout (a complex program input is
// refused; the lists are in fft_helpers.cc). Anything else
// (e.g. abs or mul of a complex tensor) is refused with the reader named.
//
// Scaling: torch's `normalization` is 0 (none), 1 (1/sqrt(n)) or 2 (1/n),
// n the product of the transformed sizes, whatever the direction; ONNX's
// inverse DFT divides by each size itself, which is undone.
//
// c2r: after the inverse transforms over the other dims, the half spectrum
// H (cut or zero-padded to n/2 + 1 entries, n = last_dim_size) along the
// last dim is completed by Hermitian symmetry, full[k] = conj(H[n - k])
// for k > n/2, and inverse-transformed; the real part is the result (the
// imaginary parts of H[0] and H[n/2] only reach the dropped imaginary part,
// as in torch).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/complex_layout.h"
#include "ops/fft_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;
using fft_internal::C2r;
using fft_internal::CheckComplexReaders;
using fft_internal::CheckRealResult;
using fft_internal::ComplexOperand;
using fft_internal::Dft;
using fft_internal::FitLength;
using fft_internal::Normalize;
using fft_internal::NormMode;
using fft_internal::PartDtype;
using fft_internal::PromotedOperand;
using fft_internal::SignalLength;
using fft_internal::SizeAs;
using fft_internal::SizeProduct;
using fft_internal::TransformAxes;

// aten::_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor
absl::Status AtenFftR2c(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, TransformAxes(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, ctx.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(bool onesided, ctx.Bool("onesided"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  std::string n = SizeProduct(ctx, x, axes, dtype);
  // The last dim is transformed first (onesided applies to it), then the others.
  std::string y = Dft(ctx, Unsqueeze(ctx, x, {rank}), axes.back(), false, onesided);
  for (size_t i = 0; i + 1 < axes.size(); ++i) y = Dft(ctx, y, axes[i], false, false);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, n, "", dtype));
  return ctx.SetOutput(0, y);
}

// aten::_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor
absl::Status AtenFftC2c(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, TransformAxes(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, ctx.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(bool forward, ctx.Bool("forward"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ComplexOperand(ctx));
  std::string n = SizeProduct(ctx, x, axes, dtype);
  std::string y = x;
  for (int64_t axis : axes) y = Dft(ctx, y, axis, !forward, false);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, n, forward ? "" : n, dtype));
  return ctx.SetOutput(0, y);
}

// aten::_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor
absl::Status AtenFftC2r(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckRealResult(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, TransformAxes(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, ctx.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string h, ComplexOperand(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string last_size, ctx.SymIntAsTensor("last_dim_size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, C2r(ctx, h, axes, Reshape(ctx, last_size, {1}),
                                              normalization, rank, dtype));
  return ctx.SetOutput(0, y);
}

// ---- torch.fft's 1-D functions (programs not decomposed) ---------------------

// fft_fft / fft_ifft / fft_rfft: one transform along dim of a real or
// complex input cut or zero-padded to n.
absl::Status OneDimensional(TranslateContext& ctx, bool inverse, bool onesided) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of torch.fft"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, inverse));
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("self"));
  std::string x;
  if (IsComplex(in_dtype)) {
    if (onesided) return ctx.Invalid("rfft needs a real input");
    PT2ONNX_ASSIGN_OR_RETURN(x, ComplexOperand(ctx));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(x, ctx.InputAs("self", dtype));
    x = Unsqueeze(ctx, x, {rank});
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> n, SignalLength(ctx));
  if (n) x = FitLength(ctx, x, axis, *n, dtype);
  std::string size = SizeAs(ctx, x, axis, dtype);
  std::string y = Dft(ctx, x, axis, inverse, onesided);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, size, inverse ? size : "", dtype));
  return ctx.SetOutput(0, y);
}

// aten::fft_fft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftFft(TranslateContext& ctx) { return OneDimensional(ctx, false, false); }
// aten::fft_ifft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftIfft(TranslateContext& ctx) { return OneDimensional(ctx, true, false); }
// aten::fft_rfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftRfft(TranslateContext& ctx) { return OneDimensional(ctx, false, true); }

// aten::fft_irfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
// n defaults to 2 * (m - 1) for m half-spectrum entries.
absl::Status AtenFftIrfft(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckRealResult(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of torch.fft.irfft"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, true));
  // A real input is promoted to complex (imaginary part 0), as torch does.
  PT2ONNX_ASSIGN_OR_RETURN(std::string h, PromotedOperand(ctx, rank, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> n, SignalLength(ctx));
  if (!n) {
    std::string m = ShapeSlice(ctx, h, axis, axis + 1);
    n = ctx.Op("Mul", {ctx.Op("Sub", {m, ctx.ConstantInt64s({1})}), ctx.ConstantInt64s({2})});
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, C2r(ctx, h, {axis}, *n, normalization, rank, dtype));
  return ctx.SetOutput(0, y);
}

// aten::view_as_real(Tensor(a) self) -> Tensor(a)
// The (..., 2) layout already is torch's view_as_real.
absl::Status AtenViewAsReal(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ComplexOperand(ctx));
  return ctx.SetOutput(0, ctx.Op("Identity", {x}));
}

}  // namespace

absl::Status CheckComplexLayoutReaders(const TranslateContext& ctx) { return CheckComplexReaders(ctx); }

absl::StatusOr<std::string> ComplexLayoutOperand(TranslateContext& ctx) { return ComplexOperand(ctx); }

absl::Status BindRealAsComplex(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(DataType from, ctx.InputDtype("self"));
  if (IsComplex(from)) return ctx.Unsupported("a conversion between complex dtypes");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", part));
  std::string real = Unsqueeze(ctx, x, {rank});
  std::string imaginary = ctx.Op("Expand", {ctx.ConstantScalar(part, 0), ctx.Op("Shape", {real})});
  return ctx.SetOutput(0, ctx.Op("Concat", {real, imaginary}, {Attribute::Int("axis", rank)}));
}

void RegisterFftOps(OpRegistry& r) {
  r.Add("aten::_fft_c2c.default", &AtenFftC2c);
  r.Add("aten::_fft_c2r.default", &AtenFftC2r);
  r.Add("aten::_fft_r2c.default", &AtenFftR2c);
  r.Add("aten::fft_fft.default", &AtenFftFft);
  r.Add("aten::fft_ifft.default", &AtenFftIfft);
  r.Add("aten::fft_irfft.default", &AtenFftIrfft);
  r.Add("aten::fft_rfft.default", &AtenFftRfft);
  r.Add("aten::view_as_real.default", &AtenViewAsReal);
}

}  // namespace pt2onnx::ops
