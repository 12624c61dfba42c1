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

}  // namespace

void RegisterConcatOps(OpRegistry& r) {
  r.Add("aten::cat.default", &AtenCatDefault);
  r.Add("aten::concatenate.default", &AtenCatDefault);
  r.Add("aten::stack.default", &AtenStackDefault);
}

}  // namespace pt2onnx::ops
