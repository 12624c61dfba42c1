// File: ops/logspace.cc
// -----------------------------------------------------------------------------
// logspace: base ** (steps points evenly spaced from start to end), with
// Scalar or 0-d Tensor bounds, and linspace's 0-d Tensor overloads (the same
// points without the power). The translation holds for opsets 18..23.
//
// As ATen's CPU kernel (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp):
// the bounds are first converted to the output type (integers truncate),
// the exponents count up from start for the first half and down from end
// for the second half, in the output's float type (double for double and
// integer outputs), and pow takes the double base.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// A bound (Scalar or 0-d Tensor) converted to the output type, in `compute`.
absl::StatusOr<std::string> Bound(TranslateContext& ctx, absl::string_view arg, DataType out, DataType compute) {
  absl::StatusOr<int64_t> rank = ctx.InputRank(arg);
  if (rank.ok() && *rank != 0) {
    return ctx.Invalid(absl::StrCat(arg, " must be a 0-dimensional tensor; got ", *rank, " dims"));
  }
  if (IsFloatingPoint(out)) return ctx.InputOrScalarAs(arg, compute);
  PT2ONNX_ASSIGN_OR_RETURN(std::string truncated, ctx.InputOrScalarAs(arg, DataType::kInt64));
  return ctx.CastTo(truncated, DataType::kInt64, compute);
}

// `steps` points from `start` to `end` (0-d values in `compute`): the first
// half counts up from start, the second down from end; one step is start.
std::string SpacedPoints(TranslateContext& ctx, const std::string& start, const std::string& end,
                         int64_t steps, DataType compute) {
  if (steps == 1) return Reshape(ctx, start, {1});
  std::string index = ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(steps), ctx.ConstantInt64(1)});
  std::string from_end = ctx.Op("Sub", {ctx.ConstantInt64(steps - 1), index});
  std::string step = ctx.Op("Div", {ctx.Op("Sub", {end, start}),
                                    ctx.ConstantScalar(compute, static_cast<double>(steps - 1))});
  std::string up = ctx.Op("Mul", {step, ctx.CastTo(index, DataType::kInt64, compute)});
  std::string low = ctx.Op("Add", {start, up});
  std::string down = ctx.Op("Mul", {step, ctx.CastTo(from_end, DataType::kInt64, compute)});
  std::string high = ctx.Op("Sub", {end, down});
  std::string first_half = ctx.Op("Less", {index, ctx.ConstantInt64(steps / 2)});
  return ctx.Op("Where", {first_half, low, high});
}

// The output dtype, the compute type and the steps of linspace / logspace.
struct Spacing {
  DataType out;
  DataType compute;
  int64_t steps;
};

absl::StatusOr<Spacing> ReadSpacing(TranslateContext& ctx, const char* name) {
  DataType out = ctx.OutputDtype(0);
  if (out == DataType::kUndefined || IsComplex(out) || out == DataType::kBool) {
    return ctx.Unsupported(absl::StrCat(name, " with a ", DataTypeName(out), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t steps, ctx.Int("steps"));
  if (steps < 0) return ctx.Invalid(absl::StrCat("number of steps must be non-negative; got ", steps));
  const DataType compute = out == DataType::kDouble || !IsFloatingPoint(out) ? DataType::kDouble : DataType::kFloat;
  return Spacing{out, compute, steps};
}

// aten::logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
// and .Tensor_Tensor, .Tensor_Scalar, .Scalar_Tensor with 0-d Tensor bounds.
absl::Status AtenLogspace(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Spacing s, ReadSpacing(ctx, "logspace"));
  PT2ONNX_ASSIGN_OR_RETURN(double base, FloatOr(ctx, "base", 10.0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string start, Bound(ctx, "start", s.out, s.compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string end, Bound(ctx, "end", s.out, s.compute));
  std::string exponents = SpacedPoints(ctx, start, end, s.steps, s.compute);
  std::string exponents64 = ctx.CastTo(exponents, s.compute, DataType::kDouble);
  std::string values = ctx.Op("Pow", {ctx.ConstantScalar(DataType::kDouble, base), exponents64});
  return ctx.SetOutput(0, ctx.CastTo(values, DataType::kDouble, s.out));
}

// aten::linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
// and .Tensor_Scalar, .Scalar_Tensor: 0-d Tensor bounds, read at run time
// (the Scalar overload, creation.cc, folds its points into a constant).
absl::Status AtenLinspaceTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Spacing s, ReadSpacing(ctx, "linspace"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string start, Bound(ctx, "start", s.out, s.compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string end, Bound(ctx, "end", s.out, s.compute));
  return ctx.SetOutput(0, ctx.CastTo(SpacedPoints(ctx, start, end, s.steps, s.compute), s.compute, s.out));
}

}  // namespace

void RegisterLogspaceOps(OpRegistry& r) {
  r.Add("aten::logspace.default", &AtenLogspace);
  r.Add("aten::logspace.Tensor_Tensor", &AtenLogspace);
  r.Add("aten::logspace.Tensor_Scalar", &AtenLogspace);
  r.Add("aten::logspace.Scalar_Tensor", &AtenLogspace);
  r.Add("aten::linspace.Tensor_Tensor", &AtenLinspaceTensor);
  r.Add("aten::linspace.Tensor_Scalar", &AtenLinspaceTensor);
  r.Add("aten::linspace.Scalar_Tensor", &AtenLinspaceTensor);
}

}  // namespace pt2onnx::ops
