// File: ops/broadcasting.cc
// -----------------------------------------------------------------------------
// Broadcasting made explicit: broadcast_tensors and atleast_1d/2d/3d (their
// single-tensor and Sequence overloads). broadcast_to is expand under
// another name (core/aten/aliases.h). PyTorch defines all of them as
// compositions of expand/reshape (torch/_refs/__init__.py); ONNX's Expand
// broadcasts both ways, which is what broadcast_tensors needs.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// The broadcast of static shapes, or nullopt (a symbolic size, or shapes
// that do not broadcast: the runtime Expand chain then reports it).
std::optional<std::vector<int64_t>> StaticBroadcast(const std::vector<std::vector<int64_t>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    const size_t shift = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[shift + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o != 1) return std::nullopt;
      o = s[d];
    }
  }
  return out;
}

// aten::broadcast_tensors(Tensor[] tensors) -> Tensor[]
absl::Status AtenBroadcastTensors(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  if (tensors.empty()) return ctx.SetListOutput(0, {});
  std::vector<std::vector<int64_t>> shapes;
  for (size_t j = 0; j < tensors.size(); ++j) {
    std::optional<std::vector<int64_t>> sizes = StaticSizes(ctx.InputListMeta("tensors", j));
    if (!sizes.has_value()) break;
    shapes.push_back(*sizes);
  }
  std::string shape;
  std::optional<std::vector<int64_t>> fixed;
  if (shapes.size() == tensors.size()) fixed = StaticBroadcast(shapes);
  if (fixed.has_value()) {
    shape = ctx.ConstantInt64s(*fixed);
  } else {
    // Expand broadcasts both ways: a boolean probe expanded by every shape
    // in turn has the common shape.
    std::string probe = ctx.ConstantScalar(DataType::kBool, 0);
    for (const std::string& t : tensors) probe = ctx.Op("Expand", {probe, ctx.Op("Shape", {t})});
    shape = ctx.Op("Shape", {probe});
  }
  std::vector<std::string> outputs;
  for (size_t j = 0; j < tensors.size(); ++j) {
    const bool same = fixed.has_value() && shapes[j] == *fixed;
    outputs.push_back(same ? tensors[j] : ctx.Op("Expand", {tensors[j], shape}));
  }
  return ctx.SetListOutput(0, outputs);
}

// atleast_Nd of one tensor of rank `rank` (torch/_refs: a 0-d tensor becomes
// [1]*N; atleast_2d puts a 1-D tensor in a row; atleast_3d gives (1, n, 1)
// for 1-D and (m, n, 1) for 2-D).
std::string AtLeast(TranslateContext& ctx, const std::string& x, int64_t rank, int n) {
  if (rank >= n) return x;
  if (rank == 0) return Reshape(ctx, x, std::vector<int64_t>(n, 1));
  if (n == 2) return Unsqueeze(ctx, x, {0});
  return Unsqueeze(ctx, x, rank == 1 ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{2});
}

absl::Status AtLeastOne(TranslateContext& ctx, int n) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  return ctx.SetOutput(0, AtLeast(ctx, x, rank, n));
}

absl::Status AtLeastSequence(TranslateContext& ctx, int n) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  std::vector<std::string> outputs;
  for (size_t j = 0; j < tensors.size(); ++j) {
    const pt2::TensorMeta* meta = ctx.InputListMeta("tensors", j);
    if (meta == nullptr) return ctx.Invalid(absl::StrCat("tensors[", j, "] has no metadata"));
    outputs.push_back(AtLeast(ctx, tensors[j], static_cast<int64_t>(meta->sizes.size()), n));
  }
  return ctx.SetListOutput(0, outputs);
}

// aten::atleast_1d(Tensor self) -> Tensor
absl::Status AtenAtleast1d(TranslateContext& ctx) { return AtLeastOne(ctx, 1); }
// aten::atleast_2d(Tensor self) -> Tensor
absl::Status AtenAtleast2d(TranslateContext& ctx) { return AtLeastOne(ctx, 2); }
// aten::atleast_3d(Tensor self) -> Tensor
absl::Status AtenAtleast3d(TranslateContext& ctx) { return AtLeastOne(ctx, 3); }
// aten::atleast_1d.Sequence(Tensor[] tensors) -> Tensor[]
absl::Status AtenAtleast1dSequence(TranslateContext& ctx) { return AtLeastSequence(ctx, 1); }
// aten::atleast_2d.Sequence(Tensor[] tensors) -> Tensor[]
absl::Status AtenAtleast2dSequence(TranslateContext& ctx) { return AtLeastSequence(ctx, 2); }
// aten::atleast_3d.Sequence(Tensor[] tensors) -> Tensor[]
absl::Status AtenAtleast3dSequence(TranslateContext& ctx) { return AtLeastSequence(ctx, 3); }

}  // namespace

void RegisterBroadcastingOps(OpRegistry& r) {
  r.Add("aten::broadcast_tensors.default", &AtenBroadcastTensors);
  r.Add("aten::atleast_1d.default", &AtenAtleast1d);
  r.Add("aten::atleast_2d.default", &AtenAtleast2d);
  r.Add("aten::atleast_3d.default", &AtenAtleast3d);
  r.Add("aten::atleast_1d.Sequence", &AtenAtleast1dSequence);
  r.Add("aten::atleast_2d.Sequence", &AtenAtleast2dSequence);
  r.Add("aten::atleast_3d.Sequence", &AtenAtleast3dSequence);
}

}  // namespace pt2onnx::ops
