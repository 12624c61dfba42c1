// File: ops/grouped_matmul.cc
// -----------------------------------------------------------------------------
// Grouped matrix products, the Mixture-of-Experts kernel: ATen's
// _grouped_mm and transformers' grouped_mm_fallback (its portable form,
// which every Mixture-of-Experts model of transformers 5.x exports). In both,
// the rows of a 2-D input are sorted by group and `offs` holds each group's
// cumulative end: rows [offs[g-1], offs[g]) (offs[-1] = 0) multiply
// weight[g]. The offsets are a cumulative sum, so the groups' row blocks
// follow one another and the output is their products concatenated; rows
// past the last offset are zeros (transformers writes zeros there; ATen
// leaves that memory unwritten). Holds for opsets 18..26.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// Groups beyond this many would make the per-group graph unreasonably large.
constexpr int64_t kMaxGroups = 4096;

absl::StatusOr<int64_t> StaticGroups(TranslateContext& ctx, const pt2::SymInt& size, absl::string_view what) {
  if (size.is_symbolic) return ctx.Unsupported(absl::StrCat("a symbolic number of ", what));
  if (size.value < 1 || size.value > kMaxGroups) {
    return ctx.Invalid(absl::StrCat("the number of ", what, " must be in [1, ", kMaxGroups, "], got ", size.value));
  }
  return size.value;
}

absl::Status SameDtypes(TranslateContext& ctx, absl::string_view a, absl::string_view b) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType a_dtype, ctx.InputDtype(a));
  PT2ONNX_ASSIGN_OR_RETURN(DataType b_dtype, ctx.InputDtype(b));
  if (a_dtype == b_dtype) return absl::OkStatus();
  return ctx.Invalid(absl::StrCat(a, " (", DataTypeName(a_dtype), ") and ", b, " (", DataTypeName(b_dtype),
                                  ") dtypes differ"));
}

// input (S, K) rows grouped by `offs` (groups,) times weight (groups, K, N):
// (S, N), rows past the last offset zero.
absl::StatusOr<std::string> GroupedRows(TranslateContext& ctx, absl::string_view input_arg,
                                        absl::string_view weight_arg, absl::string_view offs_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* w_meta, ctx.InputMeta(weight_arg));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* offs_meta, ctx.InputMeta(offs_arg));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, StaticGroups(ctx, w_meta->sizes[0], "groups"));
  if (!offs_meta->sizes[0].is_symbolic && offs_meta->sizes[0].value != groups) {
    return ctx.Invalid(absl::StrCat(offs_arg, " holds ", offs_meta->sizes[0].value, " offsets for ", groups,
                                    " groups"));
  }
  PT2ONNX_RETURN_IF_ERROR(SameDtypes(ctx, input_arg, weight_arg));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype(input_arg));
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.Input(input_arg));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.Input(weight_arg));
  PT2ONNX_ASSIGN_OR_RETURN(std::string offs, ctx.InputAs(offs_arg, DataType::kInt64));
  std::string axis0 = ctx.ConstantInt64s({0});
  std::vector<std::string> blocks;
  std::string start = ctx.ConstantInt64s({0});
  for (int64_t g = 0; g < groups; ++g) {
    std::string end = ctx.Op("Slice", {offs, ctx.ConstantInt64s({g}), ctx.ConstantInt64s({g + 1}), axis0});
    std::string rows = ctx.Op("Slice", {input, start, end, axis0});
    std::string w = ctx.Op("Gather", {weight, ctx.ConstantInt64(g)}, {ir::Attribute::Int("axis", 0)});
    blocks.push_back(ctx.Op("MatMul", {rows, w}));
    start = end;
  }
  std::string done = blocks.size() == 1 ? blocks[0] : ctx.Op("Concat", blocks, {ir::Attribute::Int("axis", 0)});
  // Rows no group claimed (past the last offset) are zeros.
  std::string rest = ctx.Op("Sub", {ShapeSlice(ctx, input, 0, 1), ShapeSlice(ctx, done, 0, 1)});
  std::string zero_shape = ctx.Op("Concat", {ctx.Op("Max", {rest, ctx.ConstantInt64s({0})}), ShapeSlice(ctx, weight, 2, 3)},
                                  {ir::Attribute::Int("axis", 0)});
  std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 0), zero_shape});
  return ctx.Op("Concat", {done, zeros}, {ir::Attribute::Int("axis", 0)});
}

// a (M, K) and b (K, N) with the shared K split by `offs` (groups,):
// (groups, M, N), group g the product of columns / rows [offs[g-1], offs[g]).
absl::StatusOr<std::string> GroupedContraction(TranslateContext& ctx, const std::string& a, const std::string& b,
                                               const pt2::TensorMeta& offs_meta, const std::string& offs) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, StaticGroups(ctx, offs_meta.sizes[0], "groups (offs)"));
  std::string start = ctx.ConstantInt64s({0});
  std::vector<std::string> blocks;
  for (int64_t g = 0; g < groups; ++g) {
    std::string end = ctx.Op("Slice", {offs, ctx.ConstantInt64s({g}), ctx.ConstantInt64s({g + 1}),
                                       ctx.ConstantInt64s({0})});
    std::string cols = ctx.Op("Slice", {a, start, end, ctx.ConstantInt64s({1})});
    std::string rows = ctx.Op("Slice", {b, start, end, ctx.ConstantInt64s({0})});
    blocks.push_back(Unsqueeze(ctx, ctx.Op("MatMul", {cols, rows}), {0}));
    start = end;
  }
  return blocks.size() == 1 ? blocks[0] : ctx.Op("Concat", blocks, {ir::Attribute::Int("axis", 0)});
}

// aten::_grouped_mm(Tensor self, Tensor mat2, Tensor? offs=None, Tensor? bias=None, ScalarType? out_dtype=None)
//     -> Tensor
// The forms torch's CPU kernel accepts (aten/src/ATen/native/GroupedMMUtils.h,
// _grouped_mm_fallback): 2-D x 3-D with offs over self's rows; 3-D x 3-D
// without offs (a batched product); 2-D x 2-D with offs over the shared K
// (a (groups, M, N) result). The product is computed in the inputs' dtype
// and cast to the result's (out_dtype).
absl::Status AtenGroupedMm(TranslateContext& ctx) {
  if (ctx.Has("bias")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> bias, ctx.OptionalInput("bias"));
    if (bias.has_value()) return ctx.Unsupported("_grouped_mm with a bias (torch's CPU kernel refuses it too)");
  }
  PT2ONNX_RETURN_IF_ERROR(SameDtypes(ctx, "self", "mat2"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  const DataType out_dtype = ctx.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t a_rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t b_rank, ctx.InputRank("mat2"));
  std::optional<std::string> offs;
  if (ctx.Has("offs")) {
    PT2ONNX_ASSIGN_OR_RETURN(offs, ctx.OptionalInput("offs"));
  }
  std::string product;
  if (a_rank == 2 && b_rank == 3 && offs.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(product, GroupedRows(ctx, "self", "mat2", "offs"));
  } else if (a_rank == 3 && b_rank == 3 && !offs.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.Input("self"));
    PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.Input("mat2"));
    product = ctx.Op("MatMul", {a, b});
  } else if (a_rank == 2 && b_rank == 2 && offs.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.Input("self"));
    PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.Input("mat2"));
    PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* offs_meta, ctx.InputMeta("offs"));
    PT2ONNX_ASSIGN_OR_RETURN(std::string offsets, ctx.InputAs("offs", DataType::kInt64));
    PT2ONNX_ASSIGN_OR_RETURN(product, GroupedContraction(ctx, a, b, *offs_meta, offsets));
  } else {
    return ctx.Unsupported(absl::StrCat("_grouped_mm of a ", a_rank, "-D and a ", b_rank, "-D operand ",
                                        offs.has_value() ? "with" : "without", " offs (the translated forms: 2-D x 3-D "
                                        "and 2-D x 2-D with offs, 3-D x 3-D without)"));
  }
  return ctx.SetOutput(0, ctx.CastTo(product, dtype, out_dtype));
}

// transformers::grouped_mm_fallback(Tensor input, Tensor weight, Tensor offs) -> Tensor
// transformers 5.x (src/transformers/integrations/moe.py, _grouped_mm_fallback):
// input (S, K) holds the tokens sorted by expert, weight (experts, K, N), offs
// (experts,) the cumulative token counts.
absl::Status TransformersGroupedMmFallback(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* in_meta, ctx.InputMeta("input"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* w_meta, ctx.InputMeta("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* offs_meta, ctx.InputMeta("offs"));
  if (in_meta->sizes.size() != 2 || w_meta->sizes.size() != 3 || offs_meta->sizes.size() != 1) {
    return ctx.Invalid("expects input (S, K), weight (experts, K, N) and offs (experts,)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, GroupedRows(ctx, "input", "weight", "offs"));
  return ctx.SetOutput(0, product);
}

}  // namespace

void RegisterGroupedMatmulOps(OpRegistry& r) {
  r.Add("aten::_grouped_mm.default", &AtenGroupedMm);
  r.Add("transformers::grouped_mm_fallback.default", &TransformersGroupedMmFallback);
}

}  // namespace pt2onnx::ops
