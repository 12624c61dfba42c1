// File: ops/fft_nd.cc
// -----------------------------------------------------------------------------
// torch.fft's n-dimensional transforms (fft2/fftn, ifft2/ifftn, rfft2/rfftn,
// irfft2/irfftn) and the Hermitian ones (hfft/hfft2/hfftn,
// ihfft/ihfft2/ihfftn) as ONNX DFT over the complex layout of
// ops/fft_helpers.h, composed as ATen composes them from _fft_r2c, _fft_c2c
// and _fft_c2r (aten/src/ATen/native/SpectralOps.cpp):
//
//   s and dim: with dim given, s (if any) has one size per dim; with only s,
//   dim is the last len(s) dims; with neither, every dim. A size of -1 keeps
//   the input's. Each transformed dim of the input is cut or zero-padded to
//   its size; for the c2r forms (irfft*, hfft*) the last size is the output
//   length n (default 2 * (m - 1)) and the input keeps n / 2 + 1 entries.
//   hfftn = c2r(conj(c2c forward over the other dims)); ihfftn = c2c inverse
//   over the other dims of conj(r2c of the last dim), each step normalized
//   over its own sizes (the product is the whole transform's).
//
// A real input of fft*/ifft*/irfft*/hfft* is promoted to complex (imaginary
// part 0), as torch does.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/fft_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using fft_internal::C2r;
using fft_internal::CheckComplexReaders;
using fft_internal::CheckRealResult;
using fft_internal::Conj;
using fft_internal::Dft;
using fft_internal::FitLength;
using fft_internal::Normalize;
using fft_internal::NormMode;
using fft_internal::PartDtype;
using fft_internal::PromotedOperand;
using fft_internal::SizeProduct;

// The transformed dims and, per dim, the requested size (nullopt: the
// input's own, from s = None or an entry of -1).
struct Plan {
  std::vector<int64_t> axes;
  std::vector<std::optional<int64_t>> sizes;
};

// SpectralOps.cpp canonicalize_fft_shape_and_dim_args.
absl::StatusOr<Plan> PlanTransform(const TranslateContext& ctx, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> s, ctx.OptionalInts("s"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dim, ctx.OptionalInts("dim"));
  Plan plan;
  if (dim) {
    PT2ONNX_ASSIGN_OR_RETURN(plan.axes, CheckedAxes(ctx, "dim", *dim, rank));
    if (s && s->size() != dim->size()) {
      return ctx.Invalid(absl::StrCat("When given, dim and shape arguments must have the same length (s has ",
                                      s->size(), ", dim ", dim->size(), ")"));
    }
  } else if (s) {
    if (static_cast<int64_t>(s->size()) > rank) {
      return ctx.Invalid(absl::StrCat("Got shape with ", s->size(), " values but input tensor only has ", rank,
                                      " dimensions."));
    }
    for (int64_t d = rank - static_cast<int64_t>(s->size()); d < rank; ++d) plan.axes.push_back(d);
  } else {
    for (int64_t d = 0; d < rank; ++d) plan.axes.push_back(d);
  }
  if (plan.axes.empty()) return ctx.Invalid("an FFT needs at least one dim to transform");
  for (size_t i = 0; i < plan.axes.size(); ++i) {
    std::optional<int64_t> size;
    if (s && (*s)[i] != -1) {
      if ((*s)[i] < 1) return ctx.Invalid(absl::StrCat("Invalid number of data points (", (*s)[i], ") specified"));
      size = (*s)[i];
    }
    plan.sizes.push_back(size);
  }
  return plan;
}

// x with each planned dim cut or zero-padded to its size; `skip_last` leaves
// the last planned dim to a c2r transform.
std::string FitPlan(TranslateContext& ctx, std::string x, const Plan& plan, DataType part, bool skip_last) {
  for (size_t i = 0; i + (skip_last ? 1 : 0) < plan.axes.size(); ++i) {
    if (plan.sizes[i]) x = FitLength(ctx, x, plan.axes[i], ctx.ConstantInt64s({*plan.sizes[i]}), part);
  }
  return x;
}

// Dims of `plan` but the last.
std::vector<int64_t> LeadingAxes(const Plan& plan) {
  return std::vector<int64_t>(plan.axes.begin(), plan.axes.end() - 1);
}

// c2r output length: the last size, else 2 * (m - 1) for m input entries.
std::string C2rLength(TranslateContext& ctx, const std::string& x, const Plan& plan) {
  if (plan.sizes.back()) return ctx.ConstantInt64s({*plan.sizes.back()});
  const int64_t last = plan.axes.back();
  std::string m = ShapeSlice(ctx, x, last, last + 1);
  return ctx.Op("Mul", {ctx.Op("Sub", {m, ctx.ConstantInt64s({1})}), ctx.ConstantInt64s({2})});
}

// fftn / ifftn (and the 2-D forms): c2c over every planned dim.
absl::Status ComplexToComplex(TranslateContext& ctx, bool inverse) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, PlanTransform(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, inverse));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, PromotedOperand(ctx, rank, part));
  x = FitPlan(ctx, x, plan, part, false);
  std::string n = SizeProduct(ctx, x, plan.axes, part);
  std::string y = x;
  for (int64_t axis : plan.axes) y = Dft(ctx, y, axis, inverse, false);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, n, inverse ? n : "", part));
  return ctx.SetOutput(0, y);
}

// A real input: refused when complex (torch: "expects a real input tensor").
absl::StatusOr<std::string> RealOperand(TranslateContext& ctx, int64_t rank, DataType part) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("self"));
  if (IsComplex(in_dtype)) return ctx.Invalid("expects a real input tensor, got a complex one");
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", part));
  return Unsqueeze(ctx, x, {rank});
}

// rfftn / rfft2: r2c, the last dim onesided (transformed first), then the others.
absl::Status RealToComplex(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, PlanTransform(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, false));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, RealOperand(ctx, rank, part));
  x = FitPlan(ctx, x, plan, part, false);
  std::string n = SizeProduct(ctx, x, plan.axes, part);
  std::string y = Dft(ctx, x, plan.axes.back(), false, true);
  for (int64_t axis : LeadingAxes(plan)) y = Dft(ctx, y, axis, false, false);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, n, "", part));
  return ctx.SetOutput(0, y);
}

// irfftn / irfft2: c2r (inverse over the other dims, then the Hermitian last dim).
absl::Status ComplexToReal(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, OutDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckRealResult(ctx, part));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, PlanTransform(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, true));
  PT2ONNX_ASSIGN_OR_RETURN(std::string h, PromotedOperand(ctx, rank, part));
  std::string n = C2rLength(ctx, h, plan);
  h = FitPlan(ctx, h, plan, part, true);
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, C2r(ctx, h, plan.axes, n, normalization, rank, part));
  return ctx.SetOutput(0, y);
}

// hfftn / hfft2 (and hfft, a one-dim plan): c2r of the conjugate of the
// forward c2c over the other dims.
absl::Status HermitianToReal(TranslateContext& ctx, const Plan& plan) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, OutDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckRealResult(ctx, part));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, false));
  PT2ONNX_ASSIGN_OR_RETURN(std::string h, PromotedOperand(ctx, rank, part));
  std::string n = C2rLength(ctx, h, plan);
  h = FitPlan(ctx, h, plan, part, true);
  const std::vector<int64_t> leading = LeadingAxes(plan);
  if (!leading.empty()) {
    std::string others = SizeProduct(ctx, h, leading, part);
    for (int64_t axis : leading) h = Dft(ctx, h, axis, false, false);
    PT2ONNX_ASSIGN_OR_RETURN(h, Normalize(ctx, h, normalization, others, "", part));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string y,
                           C2r(ctx, Conj(ctx, h, part), {plan.axes.back()}, n, normalization, rank, part));
  return ctx.SetOutput(0, y);
}

// ihfftn / ihfft2 (and ihfft): the conjugate of the onesided r2c of the last
// dim, then the inverse c2c over the other dims.
absl::Status RealToHermitian(TranslateContext& ctx, const Plan& plan) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, true));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, RealOperand(ctx, rank, part));
  x = FitPlan(ctx, x, plan, part, false);
  std::string last = SizeProduct(ctx, x, {plan.axes.back()}, part);
  std::string y = Dft(ctx, x, plan.axes.back(), false, true);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, last, "", part));
  y = Conj(ctx, y, part);
  const std::vector<int64_t> leading = LeadingAxes(plan);
  if (!leading.empty()) {
    std::string others = SizeProduct(ctx, x, leading, part);
    for (int64_t axis : leading) y = Dft(ctx, y, axis, true, false);
    PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, others, others, part));
  }
  return ctx.SetOutput(0, y);
}

// hfft / ihfft: a one-dim plan from n and dim.
absl::StatusOr<Plan> OneDimPlan(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> n, ctx.OptionalInt("n"));
  if (n && *n < 1) return ctx.Invalid(absl::StrCat("Invalid number of data points (", *n, ") specified"));
  return Plan{{axis}, {n}};
}

// aten::fft_fft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2,-1], str? norm=None) -> Tensor
// aten::fft_fftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor
absl::Status AtenFftFftn(TranslateContext& ctx) { return ComplexToComplex(ctx, false); }
// aten::fft_ifft2 / aten::fft_ifftn: the same arguments.
absl::Status AtenFftIfftn(TranslateContext& ctx) { return ComplexToComplex(ctx, true); }
// aten::fft_rfft2 / aten::fft_rfftn: the same arguments.
absl::Status AtenFftRfftn(TranslateContext& ctx) { return RealToComplex(ctx); }
// aten::fft_irfft2 / aten::fft_irfftn: the same arguments.
absl::Status AtenFftIrfftn(TranslateContext& ctx) { return ComplexToReal(ctx); }

// aten::fft_hfft2 / aten::fft_hfftn: the same arguments as fft_fft2 / fft_fftn.
absl::Status AtenFftHfftn(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, PlanTransform(ctx, rank));
  return HermitianToReal(ctx, plan);
}
// aten::fft_ihfft2 / aten::fft_ihfftn: the same arguments.
absl::Status AtenFftIhfftn(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, PlanTransform(ctx, rank));
  return RealToHermitian(ctx, plan);
}
// aten::fft_hfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftHfft(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, OneDimPlan(ctx));
  return HermitianToReal(ctx, plan);
}
// aten::fft_ihfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftIhfft(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, OneDimPlan(ctx));
  return RealToHermitian(ctx, plan);
}

}  // namespace

void RegisterFftNdOps(OpRegistry& r) {
  r.Add("aten::fft_fft2.default", &AtenFftFftn);
  r.Add("aten::fft_fftn.default", &AtenFftFftn);
  r.Add("aten::fft_ifft2.default", &AtenFftIfftn);
  r.Add("aten::fft_ifftn.default", &AtenFftIfftn);
  r.Add("aten::fft_rfft2.default", &AtenFftRfftn);
  r.Add("aten::fft_rfftn.default", &AtenFftRfftn);
  r.Add("aten::fft_irfft2.default", &AtenFftIrfftn);
  r.Add("aten::fft_irfftn.default", &AtenFftIrfftn);
  r.Add("aten::fft_hfft.default", &AtenFftHfft);
  r.Add("aten::fft_hfft2.default", &AtenFftHfftn);
  r.Add("aten::fft_hfftn.default", &AtenFftHfftn);
  r.Add("aten::fft_ihfft.default", &AtenFftIhfft);
  r.Add("aten::fft_ihfft2.default", &AtenFftIhfftn);
  r.Add("aten::fft_ihfftn.default", &AtenFftIhfftn);
}

}  // namespace pt2onnx::ops
