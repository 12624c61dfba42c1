// File: ops/norm_helpers.cc
// -----------------------------------------------------------------------------
// See norm_helpers.h.
#include "ops/norm_helpers.h"

#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"

namespace pt2onnx::ops {
namespace {

// A 1-D value of `dtype` filled with `value`, as long as dim 1 (channels) of
// tensor argument `like`.
absl::StatusOr<std::string> ChannelFill(TranslateContext& ctx, absl::string_view like,
                                        DataType dtype, double value) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(like));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input(like));
  if (meta->sizes.size() < 2) return ctx.Invalid("input has no channel dimension");
  std::string shape = meta->sizes[1].is_symbolic ? ShapeSlice(ctx, x, 1, 2)
                                                 : ctx.ConstantInt64s({meta->sizes[1].value});
  return ctx.Op("Expand", {ctx.ConstantScalar(dtype, value), shape});
}

}  // namespace

DataType ComputeType(DataType dtype) {
  return dtype == DataType::kFloat16 || dtype == DataType::kBFloat16 ? DataType::kFloat : dtype;
}

absl::StatusOr<std::string> ChannelParam(TranslateContext& ctx, absl::string_view arg,
                                         DataType dtype, double fill) {
  if (ctx.Has(arg)) return ctx.InputAs(arg, dtype);
  return ChannelFill(ctx, "input", dtype, fill);
}

absl::StatusOr<std::string> ChannelAffine(TranslateContext& ctx, std::string y, int64_t rank,
                                          DataType dtype) {
  std::vector<int64_t> axes;
  for (int64_t i = 1; i + 1 < rank; ++i) axes.push_back(i);
  for (const char* arg : {"weight", "bias"}) {
    if (!ctx.Has(arg)) continue;
    PT2ONNX_ASSIGN_OR_RETURN(std::string p, ctx.InputAs(arg, dtype));
    if (!axes.empty()) p = Unsqueeze(ctx, p, axes);
    y = ctx.Op(std::string(arg) == "weight" ? "Mul" : "Add", {y, p});
  }
  return y;
}

}  // namespace pt2onnx::ops
