// File: ops/complex_views.cc
// -----------------------------------------------------------------------------
// Complex values made and viewed: polar, complex, view_as_complex, real, conj / _conj and
// the materialising resolve_conj / resolve_neg (which torch.fft's ifft and
// ihfft leave in exported programs). A complex value is a real tensor with a
// trailing dim of 2 (ops/complex_layout.h), so view_as_complex is the
// identity, polar stacks abs cos and abs sin, and conj negates the
// imaginary part; on real tensors conj and resolve_* are identities.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/complex_layout.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

absl::StatusOr<DataType> PartOf(const TranslateContext& ctx, DataType complex) {
  if (complex == DataType::kComplex64) return DataType::kFloat;
  if (complex == DataType::kComplex128) return DataType::kDouble;
  return ctx.Invalid(absl::StrCat("expected a complex64 or complex128 result, got ", DataTypeName(complex)));
}

// aten::polar(Tensor abs, Tensor angle) -> Tensor
absl::Status AtenPolar(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexLayoutReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartOf(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(std::string abs, ctx.InputAs("abs", part));
  PT2ONNX_ASSIGN_OR_RETURN(std::string angle, ctx.InputAs("angle", part));
  const int64_t rank = ctx.OutputRank(0);
  // abs * cos(angle) already has the broadcast shape.
  std::string real = ctx.Op("Mul", {abs, ctx.Op("Cos", {angle})});
  std::string imaginary = ctx.Op("Mul", {abs, ctx.Op("Sin", {angle})});
  return ctx.SetOutput(0, ctx.Op("Concat", {Unsqueeze(ctx, real, {rank}), Unsqueeze(ctx, imaginary, {rank})},
                                 {Attribute::Int("axis", rank)}));
}

// aten::complex(Tensor real, Tensor imag) -> Tensor
absl::Status AtenComplex(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexLayoutReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartOf(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(std::string real, ctx.InputAs("real", part));
  PT2ONNX_ASSIGN_OR_RETURN(std::string imag, ctx.InputAs("imag", part));
  const int64_t rank = ctx.OutputRank(0);
  // Both parts at the broadcast shape before they are stacked.
  std::string shape = ctx.Op("Shape", {ctx.Op("Add", {real, imag})});
  real = ctx.Op("Expand", {real, shape});
  imag = ctx.Op("Expand", {imag, shape});
  return ctx.SetOutput(0, ctx.Op("Concat", {Unsqueeze(ctx, real, {rank}), Unsqueeze(ctx, imag, {rank})},
                                 {Attribute::Int("axis", rank)}));
}

// aten::view_as_complex(Tensor(a) self) -> Tensor(a): (..., 2) already is the layout.
absl::Status AtenViewAsComplex(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexLayoutReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetOutput(0, ctx.Op("Identity", {x}));
}

// The same values, complex or real.
// aten::resolve_conj(Tensor(a) self) -> Tensor(a)
// aten::resolve_neg(Tensor(a) self) -> Tensor(a)
absl::Status AtenResolve(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (!IsComplex(dtype)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
    return ctx.SetOutput(0, ctx.Op("Identity", {x}));
  }
  PT2ONNX_RETURN_IF_ERROR(CheckComplexLayoutReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ComplexLayoutOperand(ctx));
  return ctx.SetOutput(0, ctx.Op("Identity", {x}));
}

// aten::conj(Tensor(a) self) -> Tensor(a)
// aten::_conj(Tensor(a) self) -> Tensor(a)
absl::Status AtenConj(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (!IsComplex(dtype)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
    return ctx.SetOutput(0, ctx.Op("Identity", {x}));
  }
  PT2ONNX_RETURN_IF_ERROR(CheckComplexLayoutReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartOf(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ComplexLayoutOperand(ctx));
  std::string signs = ctx.Op("Concat", {Reshape(ctx, ctx.ConstantScalar(part, 1), {1}),
                                        Reshape(ctx, ctx.ConstantScalar(part, -1), {1})},
                             {Attribute::Int("axis", 0)});
  return ctx.SetOutput(0, ctx.Op("Mul", {x, signs}));
}

// aten::real(Tensor(a) self) -> Tensor(a): a real tensor itself, else the
// real part of the layout.
absl::Status AtenReal(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (!IsComplex(dtype)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
    return ctx.SetOutput(0, ctx.Op("Identity", {x}));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ComplexLayoutOperand(ctx));
  return ctx.SetOutput(0, ctx.Op("Gather", {x, ctx.ConstantInt64(0)}, {Attribute::Int("axis", rank)}));
}

}  // namespace

void RegisterComplexViewOps(OpRegistry& r) {
  r.Add("aten::polar.default", &AtenPolar);
  r.Add("aten::complex.default", &AtenComplex);
  r.Add("aten::view_as_complex.default", &AtenViewAsComplex);
  r.Add("aten::resolve_conj.default", &AtenResolve);
  r.Add("aten::resolve_neg.default", &AtenResolve);
  r.Add("aten::conj.default", &AtenConj);
  r.Add("aten::_conj.default", &AtenConj);
  r.Add("aten::real.default", &AtenReal);
}

}  // namespace pt2onnx::ops
