// File: ops/rearrange.cc
// -----------------------------------------------------------------------------
// Views that rearrange elements across axes: pixel_shuffle/pixel_unshuffle,
// diagonal and unfold, with their `*_copy` twins. Parts along one axis
// (split, slice, select, narrow, flip, roll) are in slicing.cc.
//
// Static sizes come from the FX metadata; all translations hold for opsets
// 18..23.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// pixel_shuffle / pixel_unshuffle of a [*, C, H, W] tensor with one batch
// axis or none, as reshape -> transpose -> reshape:
//   shuffle:   [N, C, r, r, H, W] -perm [0,1,4,2,5,3]-> [N, C, H*r, W*r]
//   unshuffle: [N, C, H/r, r, W/r, r] -perm [0,1,3,5,2,4]-> [N, C*r*r, H/r, W/r]
absl::Status PixelShuffle(TranslateContext& ctx, absl::string_view factor_arg, bool up) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t r, ctx.Int(factor_arg));
  if (rank != 3 && rank != 4) {
    return ctx.Unsupported(absl::StrCat("pixel (un)shuffle of a rank-", rank,
                                        " tensor; only [C, H, W] and [N, C, H, W] are handled"));
  }
  // Bounded so that r * r cannot overflow.
  if (r <= 0 || r > (int64_t{1} << 31)) {
    return ctx.Invalid(absl::StrCat("factor must be in [1, 2^31], got ", r));
  }
  int64_t b = rank - 3;  // index of C
  std::vector<SizeExpr> lead;
  if (b == 1) lead.push_back(InputSize(ctx, x, *meta, 0));
  SizeExpr c = InputSize(ctx, x, *meta, b), h = InputSize(ctx, x, *meta, b + 1),
           w = InputSize(ctx, x, *meta, b + 2);
  SizeExpr rs{r, ""};
  std::vector<SizeExpr> mid = lead, out = lead;
  std::vector<int64_t> perm = Iota(b);
  if (up) {
    SizeExpr c_out = DivSize(ctx, c, r * r);
    for (const SizeExpr& s : {c_out, rs, rs, h, w}) mid.push_back(s);
    for (int64_t p : {0, 3, 1, 4, 2}) perm.push_back(b + p);
    for (const SizeExpr& s : {c_out, MulSizes(ctx, h, rs), MulSizes(ctx, w, rs)}) out.push_back(s);
  } else {
    SizeExpr h_out = DivSize(ctx, h, r), w_out = DivSize(ctx, w, r);
    for (const SizeExpr& s : {c, h_out, rs, w_out, rs}) mid.push_back(s);
    for (int64_t p : {0, 2, 4, 1, 3}) perm.push_back(b + p);
    for (const SizeExpr& s : {MulSizes(ctx, c, SizeExpr{r * r, ""}), h_out, w_out}) {
      out.push_back(s);
    }
  }
  std::string y = ctx.Op("Reshape", {x, ShapeTensor(ctx, mid)});
  y = ctx.Op("Transpose", {y}, {Attribute::Ints("perm", perm)});
  return ctx.SetOutput(0, ReshapeToOutput(ctx, y, out));
}

// aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor
absl::Status AtenPixelShuffleDefault(TranslateContext& ctx) {
  return PixelShuffle(ctx, "upscale_factor", true);
}
// aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor
absl::Status AtenPixelUnshuffleDefault(TranslateContext& ctx) {
  return PixelShuffle(ctx, "downscale_factor", false);
}

// aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)
// Moves dim1, dim2 last, merges them and gathers the flat positions
// (i + max(0, -offset)) * n2 + (i + max(0, offset)). Needs both sizes static.
absl::Status AtenDiagonalDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, ctx.Int("offset"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim1, ctx.Int("dim1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim2, ctx.Int("dim2"));
  if (rank < 2) return ctx.Invalid("diagonal needs two distinct dimensions");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, CheckedAxis(ctx, "dim1", dim1, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d2, CheckedAxis(ctx, "dim2", dim2, rank));
  if (d1 == d2) return ctx.Invalid("diagonal needs two distinct dimensions");
  if (meta->sizes[d1].is_symbolic || meta->sizes[d2].is_symbolic) {
    return ctx.Unsupported("diagonal over symbolic dimensions; export them with static sizes");
  }
  int64_t n1 = meta->sizes[d1].value, n2 = meta->sizes[d2].value;
  // offset may be INT64_MIN: compare instead of negating it.
  int64_t len = offset >= 0 ? (offset >= n2 ? 0 : std::min(n1, n2 - offset))
                            : (offset <= -n1 ? 0 : std::min(n1 + offset, n2));
  std::optional<int64_t> merged_size = CheckedMul(n1, n2);
  if (!merged_size.has_value()) return ctx.Invalid("dim1 size * dim2 size overflows int64");
  if (len > kMaxFoldedElements) {
    return ctx.Unsupported(absl::StrCat("a diagonal of ", len, " elements (the gathered "
                                        "positions would be a constant of that size)"));
  }
  // With len > 0, |offset| < n1 or n2, so negating it is safe.
  int64_t row = len > 0 && offset < 0 ? -offset : 0, col = len > 0 && offset > 0 ? offset : 0;
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != d1 && i != d2) perm.push_back(i);
  }
  perm.push_back(d1);
  perm.push_back(d2);
  std::string moved =
      perm == Iota(rank) ? x : ctx.Op("Transpose", {x}, {Attribute::Ints("perm", perm)});
  // Leading axes keep their sizes through Reshape's 0 (allowzero=0).
  std::vector<int64_t> merged(rank - 2, 0);
  merged.push_back(*merged_size);
  std::string flat = Reshape(ctx, moved, merged);
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < len; ++i) positions.push_back((i + row) * n2 + (i + col));
  return ctx.SetOutput(0, ctx.Op("Gather", {flat, ctx.ConstantInt64s(positions)},
                                 {Attribute::Int("axis", rank - 2)}));
}

// aten::unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)
// Windows [i*step, i*step + size) of `dimension`, gathered with a
// [windows, size] index computed at run time (Range, so that no constant of
// file-chosen size is folded); the window axis then moves last. Needs a
// static size.
absl::Status AtenUnfoldDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dimension, ctx.Int("dimension"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t size, ctx.Int("size"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t step, ctx.Int("step"));
  if (rank == 0) {
    // torch treats a 0-d tensor as one element: size 0 or 1, result (size,)
    // (aten/src/ATen/native/TensorShape.cpp, unfold).
    PT2ONNX_RETURN_IF_ERROR(CheckedAxis(ctx, "dimension", dimension, 1).status());
    if (step <= 0 || size < 0 || size > 1) {
      return ctx.Invalid(absl::StrCat("unfold of a 0-d tensor needs size 0 or 1 and step > 0, got size ", size,
                                      ", step ", step));
    }
    return ctx.SetOutput(0, ctx.Op("Slice", {Reshape(ctx, x, {1}), ctx.ConstantInt64s({0}),
                                             ctx.ConstantInt64s({size}), ctx.ConstantInt64s({0})}));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dimension", dimension, rank));
  if (meta->sizes[axis].is_symbolic) {
    return ctx.Unsupported("unfold over a symbolic dimension; export it with a static size");
  }
  if (step <= 0 || size < 0) return ctx.Invalid("unfold needs size >= 0 and step > 0");
  const int64_t n = meta->sizes[axis].value;
  if (size > n) {
    return ctx.Invalid(absl::StrCat("unfold size ", size, " exceeds the dimension's size ", n));
  }
  const int64_t windows = (n - size) / step + 1;
  auto range = [&](int64_t count) {
    return ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(count), ctx.ConstantInt64(1)});
  };
  // index[i][j] = i * step + j
  std::string idx = ctx.Op(
      "Add", {Unsqueeze(ctx, ctx.Op("Mul", {range(windows), ctx.ConstantInt64(step)}), {1}),
              Unsqueeze(ctx, range(size), {0})});
  std::string gathered = ctx.Op("Gather", {x, idx}, {Attribute::Int("axis", axis)});
  // gathered: [..., windows, size, ...rest]; move `size` (axis + 1) last.
  std::vector<int64_t> perm;
  for (int64_t i = 0; i <= rank; ++i) {
    if (i != axis + 1) perm.push_back(i);
  }
  perm.push_back(axis + 1);
  return SetTransposed(ctx, gathered, perm);
}

}  // namespace

void RegisterRearrangeOps(OpRegistry& r) {
  r.Add("aten::pixel_shuffle.default", &AtenPixelShuffleDefault);
  r.Add("aten::pixel_unshuffle.default", &AtenPixelUnshuffleDefault);
  r.Add("aten::diagonal.default", &AtenDiagonalDefault);
  r.Add("aten::diagonal_copy.default", &AtenDiagonalDefault);
  r.Add("aten::unfold.default", &AtenUnfoldDefault);
}

}  // namespace pt2onnx::ops
