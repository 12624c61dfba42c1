// File: ops/concat.cc
// -----------------------------------------------------------------------------
// Joining tensors: cat (and its concat/concatenate aliases) and stack. Valid
// for opsets 18..23.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// ---- cat / stack ----

// FX metadata of element `j` of a Tensor[] argument; nullptr when unknown.
const pt2::TensorMeta* ElementMeta(const TranslateContext& ctx, absl::string_view arg,
                                   size_t j) {
  return ctx.InputListMeta(arg, j);
}

// aten::cat(Tensor[] tensors, int dim=0) -> Tensor   (also concat, concatenate)
// torch skips 1-D empty inputs whatever `dim` says (a legacy rule kept for
// torch.cat([torch.empty(0), x]); aten/src/ATen/native/TensorShape.cpp,
// cat_should_skip_tensor) and promotes mixed dtypes to the result's.
absl::Status AtenCatDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  if (tensors.empty()) return ctx.Invalid("cat of an empty tensor list");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", dim, ctx.OutputRank(0)));
  DataType out_dtype = ctx.OutputDtype(0);
  std::vector<std::string> kept;
  for (size_t j = 0; j < tensors.size(); ++j) {
    const pt2::TensorMeta* meta = ElementMeta(ctx, "tensors", j);
    if (meta == nullptr) {
      kept.push_back(tensors[j]);
      continue;
    }
    bool empty_1d = meta->sizes.size() == 1 && !meta->sizes[0].is_symbolic &&
                    meta->sizes[0].value == 0;
    if (empty_1d && ctx.OutputRank(0) != 1) continue;
    kept.push_back(out_dtype == DataType::kUndefined
                       ? tensors[j]
                       : ctx.CastTo(tensors[j], meta->dtype, out_dtype));
  }
  if (kept.empty()) kept.push_back(tensors[0]);  // every input was skipped
  if (kept.size() == 1) return ctx.SetOutput(0, kept[0]);
  return ctx.SetOutput(0, ctx.Op("Concat", kept, {Attribute::Int("axis", axis)}));
}

// aten::stack(Tensor[] tensors, int dim=0) -> Tensor
absl::Status AtenStackDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  if (tensors.empty()) return ctx.Invalid("stack of an empty tensor list");
  // The output has one more axis than the inputs: dim may name any of them.
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", dim, ctx.OutputRank(0)));
  std::vector<std::string> expanded;
  for (const std::string& t : tensors) expanded.push_back(Unsqueeze(ctx, t, {axis}));
  if (expanded.size() == 1) return ctx.SetOutput(0, expanded[0]);
  return ctx.SetOutput(0, ctx.Op("Concat", expanded, {Attribute::Int("axis", axis)}));
}

// aten::_chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor
// Each tensor's `dim` is zero-padded to a multiple of num_chunks, viewed as
// [leading dims, num_chunks, -1] and the views are concatenated along dim + 1
// (torch/_decomp/decompositions.py, _chunk_cat / _pad_chunk). A negative dim
// needs inputs of one rank.
absl::Status AtenChunkCatDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t chunks, ctx.Int("num_chunks"));
  if (tensors.empty()) return ctx.Invalid("_chunk_cat of an empty tensor list");
  if (chunks < 1) return ctx.Invalid("_chunk_cat expects positive num_chunks");
  std::vector<int64_t> ranks;
  for (size_t j = 0; j < tensors.size(); ++j) {
    const pt2::TensorMeta* meta = ElementMeta(ctx, "tensors", j);
    if (meta == nullptr) return ctx.Unsupported("_chunk_cat of tensors of unknown rank");
    ranks.push_back(static_cast<int64_t>(meta->sizes.size()));
  }
  const bool same_rank = std::all_of(ranks.begin(), ranks.end(), [&](int64_t r) { return r == ranks[0]; });
  int64_t axis = dim;
  if (same_rank) {
    PT2ONNX_ASSIGN_OR_RETURN(axis, CheckedAxis(ctx, "dim", dim, ranks[0]));
  } else if (dim < 0) {
    return ctx.Invalid("_chunk_cat expects non-negative dim when input tensors have different ndims");
  }
  std::string c = ctx.ConstantInt64s({chunks});
  std::vector<std::string> pieces;
  for (size_t j = 0; j < tensors.size(); ++j) {
    const int64_t rank = ranks[j];
    if (axis >= rank) return ctx.Invalid("_chunk_cat expects dim < ndim for all input tensors");
    const std::string& t = tensors[j];
    std::string n = ShapeSlice(ctx, t, axis, axis + 1);
    std::string padded = ctx.Op("Mul", {ctx.Op("Div", {ctx.Op("Add", {n, ctx.ConstantInt64s({chunks - 1})}), c}), c});
    std::string extra = ctx.Op("Sub", {padded, n});
    std::vector<std::string> pad_parts;
    if (rank + axis > 0) pad_parts.push_back(ctx.ConstantInt64s(std::vector<int64_t>(rank + axis, 0)));
    pad_parts.push_back(extra);
    if (rank - axis - 1 > 0) pad_parts.push_back(ctx.ConstantInt64s(std::vector<int64_t>(rank - axis - 1, 0)));
    std::string pads = ctx.Op("Concat", pad_parts, {Attribute::Int("axis", 0)});
    std::string grown = ctx.Op("Pad", {t, pads});
    std::string tail = ctx.ConstantInt64s({chunks, -1});
    std::string shape = axis == 0 ? tail
                                  : ctx.Op("Concat", {ShapeSlice(ctx, t, 0, axis), tail},
                                           {Attribute::Int("axis", 0)});
    pieces.push_back(ctx.Op("Reshape", {grown, shape}));
  }
  if (pieces.size() == 1) return ctx.SetOutput(0, pieces[0]);
  return ctx.SetOutput(0, ctx.Op("Concat", pieces, {Attribute::Int("axis", axis + 1)}));
}

}  // namespace

void RegisterConcatOps(OpRegistry& r) {
  r.Add("aten::_chunk_cat.default", &AtenChunkCatDefault);
  r.Add("aten::cat.default", &AtenCatDefault);
  r.Add("aten::concatenate.default", &AtenCatDefault);
  r.Add("aten::stack.default", &AtenStackDefault);
}

}  // namespace pt2onnx::ops
