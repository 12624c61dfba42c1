// File: ops/stacking.cc
// -----------------------------------------------------------------------------
// NumPy-style layout composites: hstack, vstack (row_stack), dstack and column_stack (each input
// raised to a common rank, then one Concat), fliplr, flipud, rot90 (Slice
// with step -1 and a Transpose) and view_as. Semantics from
// torch/_refs/__init__.py (hstack, vstack, dstack, column_stack, fliplr, flipud) and
// aten/src/ATen/native/TensorTransformations.cpp (rot90).
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Slice's end for "through the first element" when stepping backwards.
constexpr int64_t kBeforeFirst = std::numeric_limits<int64_t>::min();

struct Part {
  std::string value;
  int64_t rank;
};

// The `tensors` list cast to the output dtype (torch.cat promotes), with
// each element's rank.
absl::StatusOr<std::vector<Part>> ReadParts(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  if (tensors.empty()) return ctx.Invalid("an empty tensor list");
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  std::vector<Part> parts;
  for (size_t j = 0; j < tensors.size(); ++j) {
    const pt2::TensorMeta* meta = ctx.InputListMeta("tensors", j);
    if (meta == nullptr) return ctx.Invalid(absl::StrCat("tensors[", j, "] has no metadata"));
    parts.push_back({ctx.CastTo(tensors[j], meta->dtype, dtype), static_cast<int64_t>(meta->sizes.size())});
  }
  return parts;
}

// Concat of values of equal rank along `axis` (one value is returned as is).
absl::Status ConcatParts(TranslateContext& ctx, const std::vector<std::string>& values, int64_t axis) {
  if (values.size() == 1) return ctx.SetOutput(0, values[0]);
  return ctx.SetOutput(0, ctx.Op("Concat", values, {Attribute::Int("axis", axis)}));
}

absl::Status CheckSameRank(TranslateContext& ctx, const std::vector<Part>& parts) {
  for (const Part& p : parts) {
    if (p.rank != parts[0].rank) {
      return ctx.Invalid(absl::StrCat("tensors of ranks ", parts[0].rank, " and ", p.rank, " cannot be joined"));
    }
  }
  return absl::OkStatus();
}

// aten::hstack(Tensor[] tensors) -> Tensor
// atleast_1d, then cat along dim 0 when the first input is 1-D, else dim 1.
absl::Status AtenHstack(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Part> parts, ReadParts(ctx));
  std::vector<std::string> values;
  for (Part& p : parts) {
    if (p.rank == 0) p = {Reshape(ctx, p.value, {1}), 1};
    values.push_back(p.value);
  }
  PT2ONNX_RETURN_IF_ERROR(CheckSameRank(ctx, parts));
  return ConcatParts(ctx, values, parts[0].rank == 1 ? 0 : 1);
}

// aten::vstack(Tensor[] tensors) -> Tensor  (row_stack is its alias)
// atleast_2d ((n) -> (1, n)), then cat along dim 0.
absl::Status AtenVstack(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Part> parts, ReadParts(ctx));
  std::vector<std::string> values;
  for (Part& p : parts) {
    if (p.rank == 0) p = {Reshape(ctx, p.value, {1, 1}), 2};
    if (p.rank == 1) p = {Unsqueeze(ctx, p.value, {0}), 2};
    values.push_back(p.value);
  }
  PT2ONNX_RETURN_IF_ERROR(CheckSameRank(ctx, parts));
  return ConcatParts(ctx, values, 0);
}

// aten::dstack(Tensor[] tensors) -> Tensor
// atleast_3d ((n) -> (1, n, 1), (m, n) -> (m, n, 1)), then cat along dim 2.
absl::Status AtenDstack(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Part> parts, ReadParts(ctx));
  std::vector<std::string> values;
  for (Part& p : parts) {
    if (p.rank == 0) p = {Reshape(ctx, p.value, {1, 1, 1}), 3};
    if (p.rank == 1) p = {Unsqueeze(ctx, p.value, {0, 2}), 3};
    if (p.rank == 2) p = {Unsqueeze(ctx, p.value, {2}), 3};
    values.push_back(p.value);
  }
  PT2ONNX_RETURN_IF_ERROR(CheckSameRank(ctx, parts));
  return ConcatParts(ctx, values, 2);
}

// aten::column_stack(Tensor[] tensors) -> Tensor
// Inputs of rank 0 or 1 become columns (numel, 1); the rest join along dim 1.
absl::Status AtenColumnStack(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Part> parts, ReadParts(ctx));
  std::vector<std::string> values;
  for (Part& p : parts) {
    if (p.rank <= 1) p = {Reshape(ctx, p.value, {-1, 1}), 2};
    values.push_back(p.value);
  }
  PT2ONNX_RETURN_IF_ERROR(CheckSameRank(ctx, parts));
  return ConcatParts(ctx, values, 1);
}

// `x` (the `self` argument) reversed along each of `axes` (checked,
// distinct). Axes of static size 0 or 1 are left out: reversing them changes
// nothing, and ONNX's Slice inference gives a reversed empty axis size 1.
std::string FlipAxes(TranslateContext& ctx, const std::string& x, const std::vector<int64_t>& all_axes) {
  absl::StatusOr<const pt2::TensorMeta*> meta = ctx.InputMeta("self");
  std::vector<int64_t> axes;
  for (int64_t axis : all_axes) {
    const bool trivial = meta.ok() && !(*meta)->sizes[axis].is_symbolic && (*meta)->sizes[axis].value <= 1;
    if (!trivial) axes.push_back(axis);
  }
  if (axes.empty()) return x;
  const size_t n = axes.size();
  return ctx.Op("Slice", {x, ctx.ConstantInt64s(std::vector<int64_t>(n, -1)),
                          ctx.ConstantInt64s(std::vector<int64_t>(n, kBeforeFirst)), ctx.ConstantInt64s(axes),
                          ctx.ConstantInt64s(std::vector<int64_t>(n, -1))});
}

absl::Status FlipOne(TranslateContext& ctx, int64_t axis, int64_t min_rank, const char* name) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < min_rank) {
    return ctx.Invalid(absl::StrCat(name, " needs a tensor of at least ", min_rank, " dims, got ", rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  return ctx.SetOutput(0, FlipAxes(ctx, self, {axis}));
}

// aten::fliplr(Tensor self) -> Tensor
absl::Status AtenFliplr(TranslateContext& ctx) { return FlipOne(ctx, 1, 2, "fliplr"); }
// aten::flipud(Tensor self) -> Tensor
absl::Status AtenFlipud(TranslateContext& ctx) { return FlipOne(ctx, 0, 1, "flipud"); }

// aten::rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor
// k quarter turns from dims[0] towards dims[1]: one turn reverses dims[1]
// then swaps the two, three turns reverse dims[0] then swap, two reverse both.
absl::Status AtenRot90(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, ctx.Int("k"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dims"));
  if (dims.size() != 2) return ctx.Invalid(absl::StrCat("expected total rotation dims == 2, got ", dims.size()));
  if (rank < 2) return ctx.Invalid(absl::StrCat("expected total dims >= 2, got ", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d0, CheckedAxis(ctx, "dims", dims[0], rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, CheckedAxis(ctx, "dims", dims[1], rank));
  if (d0 == d1) return ctx.Invalid("expected rotation dims to be different");
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  const int64_t turns = ((k % 4) + 4) % 4;
  if (turns == 0) return ctx.SetOutput(0, self);
  if (turns == 2) return ctx.SetOutput(0, FlipAxes(ctx, self, {d0, d1}));
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[d0], perm[d1]);
  std::string flipped = FlipAxes(ctx, self, {turns == 1 ? d1 : d0});
  return ctx.SetOutput(0, ctx.Op("Transpose", {flipped}, {Attribute::Ints("perm", perm)}));
}

// aten::view_as(Tensor(a) self, Tensor other) -> Tensor(a)
absl::Status AtenViewAs(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "other"));
  // allowzero: a 0 in other's shape is a size, not "keep self's dim".
  return ctx.SetOutput(0, ctx.Op("Reshape", {self, shape}, {Attribute::Int("allowzero", 1)}));
}

}  // namespace

void RegisterStackingOps(OpRegistry& r) {
  r.Add("aten::hstack.default", &AtenHstack);
  r.Add("aten::vstack.default", &AtenVstack);
  r.Add("aten::row_stack.default", &AtenVstack);
  r.Add("aten::dstack.default", &AtenDstack);
  r.Add("aten::column_stack.default", &AtenColumnStack);
  r.Add("aten::fliplr.default", &AtenFliplr);
  r.Add("aten::flipud.default", &AtenFlipud);
  r.Add("aten::rot90.default", &AtenRot90);
  r.Add("aten::view_as.default", &AtenViewAs);
}

}  // namespace pt2onnx::ops
