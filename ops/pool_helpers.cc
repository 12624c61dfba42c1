// File: ops/pool_helpers.cc
// -----------------------------------------------------------------------------
// See pool_helpers.h.

#include "ops/pool_helpers.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

std::optional<std::vector<int64_t>> StaticTrailingDims(const TranslateContext& ctx,
                                                       absl::string_view arg, int64_t n) {
  return StaticDims(ctx, arg, -n, n);
}

absl::StatusOr<Batched> BatchedInput(TranslateContext& ctx, absl::string_view arg, int64_t n) {
  Batched b;
  PT2ONNX_ASSIGN_OR_RETURN(b.value, ctx.Input(arg));
  PT2ONNX_ASSIGN_OR_RETURN(b.rank, ctx.InputRank(arg));
  if (b.rank == n + 1) {
    b.unbatched = true;
    b.value = Unsqueeze(ctx, b.value, {0});
    b.rank += 1;
  } else if (b.rank != n + 2) {
    return ctx.Invalid(absl::StrCat(arg, " has rank ", b.rank, ", expected ", n + 1, " or ",
                                    n + 2));
  }
  return b;
}

std::string Unbatch(TranslateContext& ctx, const Batched& b, const std::string& value) {
  return b.unbatched ? Squeeze(ctx, value, {0}) : value;
}

std::vector<ir::Attribute> PoolAttributes(const PoolAttrs& a, bool dilations) {
  std::vector<ir::Attribute> attrs = {
      ir::Attribute::Ints("kernel_shape", a.kernel),
      ir::Attribute::Ints("strides", a.strides),
      ir::Attribute::Ints("pads", a.pads),
      ir::Attribute::Int("ceil_mode", a.ceil_mode ? 1 : 0),
  };
  if (dilations) attrs.push_back(ir::Attribute::Ints("dilations", a.dilations));
  return attrs;
}

// ONNX flattened (N, C, spatial) indices -> torch's per-plane indices.
std::string PlaneIndices(TranslateContext& ctx, const Batched& x, const std::string& indices,
                         int64_t n) {
  std::string plane;
  if (std::optional<std::vector<int64_t>> dims = StaticTrailingDims(ctx, "self", n)) {
    int64_t size = 1;
    for (int64_t d : *dims) size *= d;
    plane = ctx.ConstantInt64(size);
  } else {
    plane = ctx.Op("ReduceProd", {ShapeSlice(ctx, x.value, 2, x.rank)},
                   {ir::Attribute::Int("keepdims", 0)});
  }
  return ctx.Op("Mod", {indices, plane});
}

}  // namespace pt2onnx::ops
