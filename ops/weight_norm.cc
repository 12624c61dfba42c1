// File: ops/weight_norm.cc
// -----------------------------------------------------------------------------
// Weight normalization (torch.nn.utils.weight_norm and its parametrization):
// w = v * (g / norm_except_dim(v, 2, dim)), the 2-norm of v over every dim
// but `dim`, kept as a broadcastable shape; dim = -1 means the norm of the
// whole of v (aten/src/ATen/native/WeightNorm.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
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

}  // namespace

void RegisterWeightNormOps(OpRegistry& r) { r.Add("aten::_weight_norm.default", &AtenWeightNorm); }

}  // namespace pt2onnx::ops
