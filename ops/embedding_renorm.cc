// File: ops/embedding_renorm.cc
// -----------------------------------------------------------------------------
// embedding_renorm: what nn.Embedding(max_norm=...) does to its weight
// before each lookup, as the functional op an exported program holds. As
// ATen's CPU kernel (aten/src/ATen/native/Embedding.cpp, embedding_renorm_):
// every row some index names whose norm_type-norm exceeds max_norm is scaled
// by max_norm / (norm + 1e-7); other rows are kept. Holds for opsets 18..26.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/reduce_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// aten::embedding_renorm(Tensor self, Tensor indices, float max_norm, float norm_type) -> Tensor
absl::Status AtenEmbeddingRenorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (!IsFloatingPoint(dtype)) return ctx.Invalid(absl::StrCat("the weight must be floating, got ", DataTypeName(dtype)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 2) return ctx.Invalid(absl::StrCat("the weight must be 2-D (rows, dim), got ", rank, "-D"));
  PT2ONNX_ASSIGN_OR_RETURN(double max_norm, ctx.Float("max_norm"));
  PT2ONNX_ASSIGN_OR_RETURN(double norm_type, ctx.Float("norm_type"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ctx.InputAs("indices", DataType::kInt64));
  // Which rows the indices name: a scatter of ones into a zero per row
  // (repeats write the same one; negative indices count from the end, as
  // ONNX's ScatterElements reads them and ATen's row lookup would).
  std::string rows = ShapeSlice(ctx, weight, 0, 1);
  std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, 0), rows});
  std::string flat = Reshape(ctx, indices, {-1});
  std::string ones = ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, 1), ctx.Op("Shape", {flat})});
  std::string named = Unsqueeze(ctx, ctx.Op("ScatterElements", {zeros, flat, ones}), {1});
  std::string norms = PNormOver(ctx, weight, norm_type, {1}, true, dtype);
  std::string limit = ctx.ConstantScalar(dtype, max_norm);
  std::string scale = ctx.Op("Div", {limit, ctx.Op("Add", {norms, ctx.ConstantScalar(dtype, 1e-7)})});
  std::string shrink = ctx.Op("And", {named, ctx.Op("Greater", {norms, limit})});
  return ctx.SetOutput(0, ctx.Op("Where", {shrink, ctx.Op("Mul", {weight, scale}), weight}));
}

}  // namespace

void RegisterEmbeddingRenormOps(OpRegistry& r) {
  r.Add("aten::embedding_renorm.default", &AtenEmbeddingRenorm);
}

}  // namespace pt2onnx::ops
