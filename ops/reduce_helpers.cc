// File: ops/reduce_helpers.cc
// -----------------------------------------------------------------------------
// See reduce_helpers.h.
#include "ops/reduce_helpers.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"

namespace pt2onnx::ops {

using ir::Attribute;

absl::StatusOr<std::vector<int64_t>> ReducedAxes(const TranslateContext& ctx,
                                                 absl::string_view arg,
                                                 const std::vector<int64_t>& dims, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, CheckedAxes(ctx, arg, dims, rank));
  if (rank == 0) return std::vector<int64_t>{};
  return axes;
}

std::string Reduce(TranslateContext& ctx, absl::string_view op_type, const std::string& x,
                   const std::vector<int64_t>& axes, bool keepdim) {
  std::vector<std::string> inputs = {x};
  if (!axes.empty()) inputs.push_back(ctx.ConstantInt64s(axes));
  return ctx.Op(op_type, std::move(inputs), {Attribute::Int("keepdims", keepdim ? 1 : 0)});
}

absl::StatusOr<std::vector<int64_t>> OptionalDims(TranslateContext& ctx, absl::string_view arg,
                                                  int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, ctx.OptionalInts(arg));
  return ReducedAxes(ctx, arg, dims.value_or(std::vector<int64_t>{}), rank);
}

absl::StatusOr<std::string> SelfAsOutputDtype(TranslateContext& ctx, int output) {
  DataType out = ctx.OutputDtype(output);
  if (out == DataType::kUndefined) return ctx.Input("self");
  return ctx.InputAs("self", out);
}

std::string ReductionIdentity(TranslateContext& ctx, DataType dtype, absl::string_view reduction) {
  if (reduction == "add") return ctx.ConstantScalar(dtype, 0);
  if (reduction == "mul") return ctx.ConstantScalar(dtype, 1);
  bool lowest = reduction == "max";
  if (IsFloatingPoint(dtype)) {
    double inf = std::numeric_limits<double>::infinity();
    return ctx.ConstantScalar(dtype, lowest ? -inf : inf);
  }
  switch (dtype) {
    case DataType::kInt64:
      return ctx.Constant(ir::Tensor::Int64Scalar(lowest ? std::numeric_limits<int64_t>::min()
                                                         : std::numeric_limits<int64_t>::max()));
    case DataType::kInt32:
      return ctx.ConstantScalar(dtype, lowest ? std::numeric_limits<int32_t>::min()
                                              : std::numeric_limits<int32_t>::max());
    case DataType::kInt16:
      return ctx.ConstantScalar(dtype, lowest ? std::numeric_limits<int16_t>::min()
                                              : std::numeric_limits<int16_t>::max());
    case DataType::kInt8:
      return ctx.ConstantScalar(dtype, lowest ? -128 : 127);
    case DataType::kUint8:
      return ctx.ConstantScalar(dtype, lowest ? 0 : 255);
    default:
      return ctx.ConstantScalar(dtype, lowest ? 0 : 1);  // bool
  }
}

std::string PNormOver(TranslateContext& ctx, const std::string& x, double p,
                      const std::vector<int64_t>& axes, bool keepdim, DataType dtype) {
  std::string magnitude = ctx.Op("Abs", {x});
  if (p == 0) {
    std::string differs = ctx.Op("Not", {ctx.Op("Equal", {x, ctx.ConstantScalar(dtype, 0)})});
    return Reduce(ctx, "ReduceSum", ctx.CastTo(differs, DataType::kBool, dtype), axes, keepdim);
  }
  if (p == 1) return Reduce(ctx, "ReduceSum", magnitude, axes, keepdim);
  if (p == 2) return ctx.Op("Sqrt", {Reduce(ctx, "ReduceSum", ctx.Op("Mul", {x, x}), axes, keepdim)});
  if (std::isinf(p)) return Reduce(ctx, p > 0 ? "ReduceMax" : "ReduceMin", magnitude, axes, keepdim);
  std::string powered = ctx.Op("Pow", {magnitude, ctx.ConstantScalar(dtype, p)});
  return ctx.Op("Pow", {Reduce(ctx, "ReduceSum", powered, axes, keepdim), ctx.ConstantScalar(dtype, 1.0 / p)});
}

}  // namespace pt2onnx::ops
