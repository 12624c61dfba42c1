// File: ops/variance.cc
// -----------------------------------------------------------------------------
// Second moments: var and std (with `correction`, or the legacy `unbiased`
// flag) and their var_mean / std_mean pairs. The other reductions are in
// reduction.cc; both build on ops/reduce_helpers.h. All translations hold for
// opsets 18..23.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/status_macros.h"
#include "ops/reduce_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Number of elements in the reduced `axes` of `x` (empty: all), as a 0-d
// value of `dtype`: a constant when those sizes are static.
absl::StatusOr<std::string> ReducedCount(TranslateContext& ctx, const std::string& x,
                                         const std::vector<int64_t>& axes, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  std::vector<int64_t> all;
  for (int64_t i = 0; i < rank; ++i) all.push_back(i);
  const std::vector<int64_t>& reduced = axes.empty() ? all : axes;
  int64_t count = 1;
  bool is_static = true;
  for (int64_t a : reduced) {
    if (a < 0 || a >= rank) return ctx.Invalid("reduced axis out of range");
    if (meta->sizes[a].is_symbolic) {
      is_static = false;
      continue;
    }
    std::optional<int64_t> product = CheckedMul(count, meta->sizes[a].value);
    if (!product.has_value()) return ctx.Invalid("the reduced element count overflows int64");
    count = *product;
  }
  if (is_static) return ctx.ConstantScalar(dtype, static_cast<double>(count));
  std::string sizes = ctx.Op("Gather", {ctx.Op("Shape", {x}), ctx.ConstantInt64s(reduced)},
                             {Attribute::Int("axis", 0)});
  std::string n = ctx.Op("ReduceProd", {sizes}, {Attribute::Int("keepdims", 0)});
  return ctx.CastTo(n, DataType::kInt64, dtype);
}

// sum((x - mean)^2) / max(N - correction, 0), as torch's var kernel divides
// (aten/src/ATen/native/ReduceOps.cpp, std_var_kernel). Returns var with
// self (in the output dtype) and N, from which the *_mean overloads divide.
struct VarResult {
  std::string var;
  std::string x;      // self in the output dtype
  std::string count;  // N
};
absl::StatusOr<VarResult> Variance(TranslateContext& ctx, const std::vector<int64_t>& axes,
                                   double correction, bool keepdim) {
  DataType dtype = ctx.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  std::string mean = Reduce(ctx, "ReduceMean", x, axes, /*keepdim=*/true);
  std::string centered = ctx.Op("Sub", {x, mean});
  std::string squares = ctx.Op("Mul", {centered, centered});
  std::string sum = Reduce(ctx, "ReduceSum", squares, axes, keepdim);
  PT2ONNX_ASSIGN_OR_RETURN(std::string n, ReducedCount(ctx, x, axes, dtype));
  std::string denom = ctx.Op("Sub", {n, ctx.ConstantScalar(dtype, correction)});
  denom = ctx.Op("Max", {denom, ctx.ConstantScalar(dtype, 0)});
  return VarResult{ctx.Op("Div", {sum, denom}), x, n};
}

// Correction of the var/std overloads: `Scalar? correction` (None = 1) or
// `bool unbiased` (True = 1).
absl::StatusOr<double> CorrectionArg(TranslateContext& ctx) {
  if (ctx.Has("correction")) {
    PT2ONNX_ASSIGN_OR_RETURN(ScalarValue c, ctx.Scalar("correction"));
    return c.AsDouble();
  }
  if (ctx.Has("unbiased")) {
    PT2ONNX_ASSIGN_OR_RETURN(bool unbiased, ctx.Bool("unbiased"));
    return unbiased ? 1.0 : 0.0;
  }
  return 1.0;
}

absl::Status VarStd(TranslateContext& ctx, bool take_sqrt, bool with_mean) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  std::vector<int64_t> axes;
  if (ctx.Has("dim")) {
    PT2ONNX_ASSIGN_OR_RETURN(axes, OptionalDims(ctx, "dim", rank));
  }
  bool keepdim = false;
  if (ctx.Has("keepdim")) {
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, ctx.Bool("keepdim"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(double correction, CorrectionArg(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(VarResult r, Variance(ctx, axes, correction, keepdim));
  std::string result = take_sqrt ? ctx.Op("Sqrt", {r.var}) : r.var;
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, result));
  if (!with_mean) return absl::OkStatus();
  // sum / N rather than ReduceMean: ONNX Runtime's ReduceMean of an empty
  // slice is 0 where torch's mean is 0 / 0 = NaN.
  std::string mean = ctx.Op("Div", {Reduce(ctx, "ReduceSum", r.x, axes, keepdim), r.count});
  return ctx.SetOutput(1, mean);
}

// ---- var / std ----

// aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
absl::Status AtenVarCorrection(TranslateContext& ctx) { return VarStd(ctx, false, false); }
// aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
absl::Status AtenVarDim(TranslateContext& ctx) { return VarStd(ctx, false, false); }
// aten::var(Tensor self, bool unbiased=True) -> Tensor
absl::Status AtenVarDefault(TranslateContext& ctx) { return VarStd(ctx, false, false); }
// aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
absl::Status AtenStdCorrection(TranslateContext& ctx) { return VarStd(ctx, true, false); }
// aten::std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
absl::Status AtenStdDim(TranslateContext& ctx) { return VarStd(ctx, true, false); }
// aten::std(Tensor self, bool unbiased=True) -> Tensor
absl::Status AtenStdDefault(TranslateContext& ctx) { return VarStd(ctx, true, false); }
// aten::var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)
absl::Status AtenVarMeanCorrection(TranslateContext& ctx) { return VarStd(ctx, false, true); }
// aten::std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)
absl::Status AtenStdMeanCorrection(TranslateContext& ctx) { return VarStd(ctx, true, true); }
// aten::var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
absl::Status AtenVarMeanDim(TranslateContext& ctx) { return VarStd(ctx, false, true); }
// aten::std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
absl::Status AtenStdMeanDim(TranslateContext& ctx) { return VarStd(ctx, true, true); }
// aten::var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
absl::Status AtenVarMeanDefault(TranslateContext& ctx) { return VarStd(ctx, false, true); }
// aten::std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
absl::Status AtenStdMeanDefault(TranslateContext& ctx) { return VarStd(ctx, true, true); }

}  // namespace

void RegisterVarianceOps(OpRegistry& r) {
  r.Add("aten::var.correction", &AtenVarCorrection);
  r.Add("aten::var.dim", &AtenVarDim);
  r.Add("aten::var.default", &AtenVarDefault);
  r.Add("aten::std.correction", &AtenStdCorrection);
  r.Add("aten::std.dim", &AtenStdDim);
  r.Add("aten::std.default", &AtenStdDefault);
  r.Add("aten::var_mean.correction", &AtenVarMeanCorrection);
  r.Add("aten::std_mean.correction", &AtenStdMeanCorrection);
  r.Add("aten::var_mean.dim", &AtenVarMeanDim);
  r.Add("aten::std_mean.dim", &AtenStdMeanDim);
  r.Add("aten::var_mean.default", &AtenVarMeanDefault);
  r.Add("aten::std_mean.default", &AtenStdMeanDefault);
}

}  // namespace pt2onnx::ops
