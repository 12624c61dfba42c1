// File: ops/weight_norm.cc
// -----------------------------------------------------------------------------
// Weight normalization (torch.nn.utils.weight_norm and its parametrization):
// w = v * (g / norm_except_dim(v, 2, dim)), the 2-norm of v over every dim
// but `dim`, kept as a broadcastable shape; dim = -1 means the norm of the
// whole of v (aten/src/ATen/native/WeightNorm.cpp). Also renorm, which
// scales each slice along `dim` whose p-norm over the other dims exceeds
// maxnorm by maxnorm / (norm + 1e-7) (ReduceOps.cpp, renorm_out).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// aten::_weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor
absl::Status AtenWeightNorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("v"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  std::vector<int64_t> axes;
  if (dim == -1) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t keep, CheckedAxis(dim, rank, "dim of aten::_weight_norm"));
    for (int64_t i = 0; i < rank; ++i) {
      if (i != keep) axes.push_back(i);
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string v, ctx.InputAs("v", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string g, ctx.InputAs("g", dtype));
  std::string norm = v;
  if (!axes.empty()) {
    norm = ctx.Op("ReduceL2", {v, ctx.ConstantInt64s(axes)}, {Attribute::Int("keepdims", 1)});
  } else {
    norm = ctx.Op("Abs", {v});  // a 0-d or single-dim v kept whole: |v|
  }
  return ctx.SetOutput(0, ctx.Op("Mul", {v, ctx.Op("Div", {g, norm})}));
}

// aten::renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor
absl::Status AtenRenorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) return ctx.Invalid(absl::StrCat("renorm of a ", DataTypeName(dtype), " tensor"));
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue p_arg, ctx.Scalar("p"));
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue maxnorm_arg, ctx.Scalar("maxnorm"));
  const double p = p_arg.AsDouble(), maxnorm = maxnorm_arg.AsDouble();
  if (!(p > 0)) return ctx.Invalid("renorm: non-positive-norm not supported");
  if (!(maxnorm >= 0)) return ctx.Invalid(absl::StrCat("renorm: expected maxnorm to be >= 0 but got ", maxnorm));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < 2) return ctx.Invalid(absl::StrCat("renorm: input needs at least 2 dimensions, got ", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t keep, AxisArg(ctx, "dim", rank));
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != keep) axes.push_back(i);
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  auto reduce = [&](const char* op, const std::string& v) {
    return ctx.Op(op, {v, ctx.ConstantInt64s(axes)}, {Attribute::Int("keepdims", 1)});
  };
  std::string magnitude = ctx.Op("Abs", {x});
  std::string norm;
  if (std::isinf(p)) {
    norm = reduce("ReduceMax", magnitude);
  } else if (p == 2) {
    norm = ctx.Op("Sqrt", {reduce("ReduceSum", ctx.Op("Mul", {x, x}))});
  } else if (p == 1) {
    norm = reduce("ReduceSum", magnitude);
  } else {
    std::string powered = ctx.Op("Pow", {magnitude, ctx.ConstantScalar(dtype, p)});
    norm = ctx.Op("Pow", {reduce("ReduceSum", powered), ctx.ConstantScalar(dtype, 1.0 / p)});
  }
  std::string limit = ctx.ConstantScalar(dtype, maxnorm);
  std::string factor = ctx.Op("Div", {limit, ctx.Op("Add", {norm, ctx.ConstantScalar(dtype, 1e-7)})});
  factor = ctx.Op("Where", {ctx.Op("Greater", {norm, limit}), factor, ctx.ConstantScalar(dtype, 1)});
  return ctx.SetOutput(0, ctx.Op("Mul", {x, factor}));
}

}  // namespace

void RegisterWeightNormOps(OpRegistry& r) {
  r.Add("aten::_weight_norm.default", &AtenWeightNorm);
  r.Add("aten::renorm.default", &AtenRenorm);
}

}  // namespace pt2onnx::ops
