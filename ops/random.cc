// File: ops/random.cc
// -----------------------------------------------------------------------------
// Random tensors: rand, randn, randint, randperm and their _like forms, as
// ONNX RandomUniformLike / RandomNormalLike (no seed attribute: every run
// draws anew, as torch does without manual_seed). The values cannot equal
// torch's (another generator); what is kept exactly is what torch
// guarantees: shape, dtype and range.
//
//  * rand: uniform in [0, 1). The draw is made in double and quantised to the
//    output dtype's mantissa (floor(u * 2^d) / 2^d, d = 24 for float32,
//    11 for float16, 8 for bfloat16, 53 for float64), so no rounding up to
//    1.0 can happen when it is narrowed.
//  * randint: low + floor(u * (high - low)) from a double draw, clamped to
//    high - 1 (a double draw cannot reach high, but the clamp makes the
//    range independent of rounding).
//  * randperm(n): the indices that sort n uniform draws (TopK ascending).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/random_draws.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Mantissa digits (with the implicit bit) of the float dtypes torch draws in.
std::optional<int> MantissaDigits(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return 24;
    case DataType::kFloat16: return 11;
    case DataType::kBFloat16: return 8;
    case DataType::kDouble: return 53;
    default: return std::nullopt;
  }
}

absl::Status Uniform(TranslateContext& ctx, const std::string& shape) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  std::optional<int> digits = MantissaDigits(dtype);
  if (!digits) {
    return ctx.Unsupported(absl::StrCat("uniform random values of dtype ", DataTypeName(dtype),
                                        " (torch draws them only for float dtypes)"));
  }
  const double scale = static_cast<double>(int64_t{1} << *digits);
  std::string u = UniformDouble(ctx, shape);
  std::string steps = ctx.Op("Floor",
                             {ctx.Op("Mul", {u, ctx.ConstantScalar(DataType::kDouble, scale)})});
  steps = ctx.Op("Min", {steps, ctx.ConstantScalar(DataType::kDouble, scale - 1)});
  std::string q = ctx.Op("Div", {steps, ctx.ConstantScalar(DataType::kDouble, scale)});
  return ctx.SetOutput(0, ctx.CastTo(q, DataType::kDouble, dtype));
}

absl::Status Normal(TranslateContext& ctx, const std::string& shape) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!MantissaDigits(dtype)) {
    return ctx.Unsupported(absl::StrCat("normal random values of dtype ", DataTypeName(dtype),
                                        " (torch draws them only for float dtypes)"));
  }
  // float32 / float64 directly; half types drawn in float32 and narrowed.
  const DataType draw = dtype == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
  std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(draw, 0), shape});
  std::string n = ctx.Op("RandomNormalLike", {zeros},
                         {Attribute::Int("dtype", static_cast<int64_t>(draw)),
                          Attribute::Float("mean", 0.0f), Attribute::Float("scale", 1.0f)});
  return ctx.SetOutput(0, ctx.CastTo(n, draw, dtype));
}

// low + floor(u * (high - low)), in [low, high); low/high are 0-d INT64.
absl::Status IntegersIn(TranslateContext& ctx, const std::string& shape, const std::string& low,
                        const std::string& high) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsInteger(dtype) && !MantissaDigits(dtype)) {
    return ctx.Unsupported(absl::StrCat("random integers of dtype ", DataTypeName(dtype)));
  }
  std::string span = ctx.Op("Sub", {high, low});
  std::string span_d = ctx.CastTo(span, DataType::kInt64, DataType::kDouble);
  std::string offset = ctx.Op("Floor", {ctx.Op("Mul", {UniformDouble(ctx, shape), span_d})});
  std::string offset_i = ctx.CastTo(offset, DataType::kDouble, DataType::kInt64);
  offset_i = ctx.Op("Min", {offset_i, ctx.Op("Sub", {span, ctx.ConstantInt64(1)})});
  std::string value = ctx.Op("Add", {offset_i, low});
  return ctx.SetOutput(0, ctx.CastTo(value, DataType::kInt64, dtype));
}

absl::StatusOr<std::string> LikeShape(TranslateContext& ctx) { return ShapeOf(ctx, "self"); }

// aten::rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenRand(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("size"));
  return Uniform(ctx, shape);
}

// aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenRandLike(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, LikeShape(ctx));
  return Uniform(ctx, shape);
}

// aten::randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenRandn(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("size"));
  return Normal(ctx, shape);
}

// aten::randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenRandnLike(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, LikeShape(ctx));
  return Normal(ctx, shape);
}

// aten::randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenRandint(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string high, ctx.SymIntAsTensor("high"));
  return IntegersIn(ctx, shape, ctx.ConstantInt64(0), high);
}

// aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenRandintLow(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string low, ctx.SymIntAsTensor("low"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string high, ctx.SymIntAsTensor("high"));
  return IntegersIn(ctx, shape, low, high);
}

// aten::randint_like(Tensor self, SymInt high, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenRandintLike(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, LikeShape(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string high, ctx.SymIntAsTensor("high"));
  return IntegersIn(ctx, shape, ctx.ConstantInt64(0), high);
}

// aten::randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenRandintLikeLow(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, LikeShape(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string low, ctx.SymIntAsTensor("low"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string high, ctx.SymIntAsTensor("high"));
  return IntegersIn(ctx, shape, low, high);
}

// aten::randperm(SymInt n, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenRandperm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string n, ctx.SymIntAsTensor("n"));
  std::string n1 = Unsqueeze(ctx, n, {0});
  std::string keys = UniformDouble(ctx, n1);
  std::vector<std::string> sorted =
      ctx.AddNode("TopK", {keys, n1},
                  {Attribute::Int("axis", 0), Attribute::Int("largest", 0),
                   Attribute::Int("sorted", 1)}, 2);
  return ctx.SetOutput(0, ctx.CastTo(sorted[1], DataType::kInt64, dtype));
}

}  // namespace

void RegisterRandomOps(OpRegistry& r) {
  r.Add("aten::rand.default", &AtenRand);
  r.Add("aten::rand_like.default", &AtenRandLike);
  r.Add("aten::randn.default", &AtenRandn);
  r.Add("aten::randn_like.default", &AtenRandnLike);
  r.Add("aten::randint.default", &AtenRandint);
  r.Add("aten::randint.low", &AtenRandintLow);
  r.Add("aten::randint_like.default", &AtenRandintLike);
  r.Add("aten::randint_like.low_dtype", &AtenRandintLikeLow);
  r.Add("aten::randperm.default", &AtenRandperm);
}

}  // namespace pt2onnx::ops
