// File: ops/shape.cc
// -----------------------------------------------------------------------------
// Shape and view ops: reshape/view/flatten/unflatten, (un)squeeze,
// expand/repeat/tile, identity-like views (alias_copy, as_strided), and the
// `*_copy` twins that functionalization and run_decompositions produce.
// Permutes and transposes live in permute.cc, cat/stack in concat.cc, views
// that select or split parts of a tensor in slicing.cc.
//
// ONNX has no views: every view op materializes its result. Shapes come from
// the FX metadata when static (a constant shape keeps ONNX shape inference
// exact); symbolic sizes are read at run time with Shape, so one model serves
// every size the export allowed. All translations hold for opsets 18..23
// (Reshape's `allowzero` exists since 14).
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

// ---- reshape family ----

absl::Status ReshapeBySizeArg(TranslateContext& ctx, absl::string_view shape_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  if (auto out = StaticSizes(ctx.OutputMeta(0))) {
    return ctx.SetOutput(0, ReshapeToStatic(ctx, x, *out));
  }
  // Symbols are never 0 or 1 in an export (torch specializes those), so a 0
  // in the list is a literal zero size: keep it with allowzero=1, which ONNX
  // forbids together with -1.
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg(shape_arg));
  bool has_zero = false, has_infer = false;
  for (const pt2::SymArg& s : a.syms) {
    has_zero |= !s.is_name && s.int_value == 0;
    has_infer |= !s.is_name && s.int_value == -1;
  }
  for (int64_t v : a.ints) {
    has_zero |= v == 0;
    has_infer |= v == -1;
  }
  if (has_zero && has_infer) {
    return ctx.Unsupported("a symbolic shape with both a 0 size and -1; export with static "
                           "sizes for this reshape");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor(shape_arg));
  return ctx.SetOutput(
      0, ctx.Op("Reshape", {x, shape}, {Attribute::Int("allowzero", has_zero ? 1 : 0)}));
}

// aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)
absl::Status AtenViewDefault(TranslateContext& ctx) { return ReshapeBySizeArg(ctx, "size"); }
// aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor
absl::Status AtenUnsafeViewDefault(TranslateContext& ctx) { return ReshapeBySizeArg(ctx, "size"); }
// aten::view_copy(Tensor self, SymInt[] size) -> Tensor
absl::Status AtenViewCopyDefault(TranslateContext& ctx) { return ReshapeBySizeArg(ctx, "size"); }
// aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)
absl::Status AtenReshapeDefault(TranslateContext& ctx) { return ReshapeBySizeArg(ctx, "shape"); }
// aten::_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)
// The strides only describe the (contiguous) layout; values follow `size`.
absl::Status AtenReshapeAliasDefault(TranslateContext& ctx) {
  return ReshapeBySizeArg(ctx, "size");
}

// aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
absl::Status AtenFlattenUsingInts(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t start, AxisArg(ctx, "start_dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t end, AxisArg(ctx, "end_dim", rank));
  if (rank == 0) return ctx.SetOutput(0, Reshape(ctx, x, {1}));
  if (start > end) return ctx.Invalid("start_dim comes after end_dim");
  if (start == end) return ctx.SetOutput(0, x);
  std::vector<SizeExpr> sizes;
  for (int64_t i = 0; i < start; ++i) sizes.push_back(InputSize(ctx, x, *meta, i));
  sizes.push_back(SizeExpr{-1, ""});
  for (int64_t i = end + 1; i < rank; ++i) sizes.push_back(InputSize(ctx, x, *meta, i));
  return ctx.SetOutput(0, ReshapeToOutput(ctx, x, sizes));
}

// aten::ravel(Tensor(a) self) -> Tensor(a)
absl::Status AtenRavelDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetOutput(0, Reshape(ctx, x, {-1}));
}

// aten::unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)
absl::Status AtenUnflattenInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  if (auto out = StaticSizes(ctx.OutputMeta(0))) {
    return ctx.SetOutput(0, ReshapeToStatic(ctx, x, *out));
  }
  std::vector<std::string> pieces;
  if (axis > 0) pieces.push_back(ShapeSlice(ctx, x, 0, axis));
  PT2ONNX_ASSIGN_OR_RETURN(std::string middle, ctx.IntsAsTensor("sizes"));
  pieces.push_back(middle);
  if (axis + 1 < rank) pieces.push_back(ShapeSlice(ctx, x, axis + 1, rank));
  std::string shape = pieces.size() == 1
                          ? pieces[0]
                          : ctx.Op("Concat", pieces, {Attribute::Int("axis", 0)});
  return ctx.SetOutput(0, ctx.Op("Reshape", {x, shape}));
}

// ---- squeeze / unsqueeze ----

// aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
absl::Status AtenUnsqueezeDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  // The new axis may also go after the last one: rank + 1 positions.
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank + 1));
  return ctx.SetOutput(0, Unsqueeze(ctx, x, {axis}));
}

// Squeezes those of `dims` (all dims when nullopt) whose size is 1. Symbolic
// sizes are never 1 in an export (torch specializes size-1 dims), so they
// stay.
absl::Status SqueezeDims(TranslateContext& ctx, std::optional<std::vector<int64_t>> dims) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  if (!dims.has_value()) dims = Iota(rank);
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> checked, CheckedAxes(ctx, "dim", *dims, rank));
  std::vector<int64_t> axes;
  for (int64_t a : checked) {
    if (rank == 0) continue;
    const pt2::SymInt& s = meta->sizes[a];
    if (s.is_symbolic || s.value != 1) continue;
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) axes.push_back(a);
  }
  if (axes.empty()) return ctx.SetOutput(0, x);
  std::sort(axes.begin(), axes.end());
  return ctx.SetOutput(0, Squeeze(ctx, x, axes));
}

// aten::squeeze(Tensor(a) self) -> Tensor(a)
absl::Status AtenSqueezeDefault(TranslateContext& ctx) { return SqueezeDims(ctx, std::nullopt); }

// aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)
absl::Status AtenSqueezeDim(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  return SqueezeDims(ctx, std::vector<int64_t>{dim});
}

// aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)
absl::Status AtenSqueezeDims(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dim"));
  return SqueezeDims(ctx, dims);
}

// ---- expand / repeat / tile ----

// aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)
absl::Status AtenExpandDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  if (auto out = StaticSizes(ctx.OutputMeta(0))) {
    return ctx.SetOutput(0, ctx.Op("Expand", {x, ctx.ConstantInt64s(*out)}));
  }
  // -1 keeps the input's size. Expand broadcasts, so 1 does the same; every
  // other size is >= 0, so Abs turns exactly the -1 entries into 1.
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg("size"));
  bool has_keep = false;
  for (const pt2::SymArg& s : a.syms) has_keep |= !s.is_name && s.int_value == -1;
  for (int64_t v : a.ints) has_keep |= v == -1;
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("size"));
  if (has_keep) shape = ctx.Op("Abs", {shape});
  return ctx.SetOutput(0, ctx.Op("Expand", {x, shape}));
}

// aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
absl::Status AtenExpandAsDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string other, ctx.Input("other"));
  return ctx.SetOutput(0, ctx.Op("Expand", {x, ctx.Op("Shape", {other})}));
}

// Tile `self` by `reps_arg`; `self` gains leading axes when the list is
// longer than its rank, and the list gains leading 1s when shorter (tile).
absl::Status TileBy(TranslateContext& ctx, absl::string_view reps_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg(reps_arg));
  int64_t n = static_cast<int64_t>(a.kind == pt2::Argument::Kind::kSymInts ? a.syms.size()
                                                                            : a.ints.size());
  if (n > rank) x = Unsqueeze(ctx, x, Iota(n - rank));
  if (ctx.IsStaticInts(reps_arg)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> reps, ctx.Ints(reps_arg));
    if (n < rank) reps.insert(reps.begin(), rank - n, 1);
    if (n <= rank && reps == std::vector<int64_t>(rank, 1)) return ctx.SetOutput(0, x);
    return ctx.SetOutput(0, ctx.Op("Tile", {x, ctx.ConstantInt64s(reps)}));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string reps, ctx.IntsAsTensor(reps_arg));
  if (n < rank) {
    reps = ctx.Op("Concat", {ctx.ConstantInt64s(std::vector<int64_t>(rank - n, 1)), reps},
                  {Attribute::Int("axis", 0)});
  }
  return ctx.SetOutput(0, ctx.Op("Tile", {x, reps}));
}

// aten::repeat(Tensor self, SymInt[] repeats) -> Tensor
absl::Status AtenRepeatDefault(TranslateContext& ctx) { return TileBy(ctx, "repeats"); }
// aten::tile(Tensor self, SymInt[] dims) -> Tensor
absl::Status AtenTileDefault(TranslateContext& ctx) { return TileBy(ctx, "dims"); }

// ---- identity-like views ----

// aten::alias_copy(Tensor self) -> Tensor
// (aten::alias itself is registered with clone/detach in conversion.cc)
absl::Status AtenAliasCopyDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetOutput(0, x);
}

// aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)
// ONNX has no strided views. A view of a contiguous input (strides that
// match its sizes, no storage offset) that stays inside it is a Gather from
// the flattened input at offset + sum(i_k * stride_k), computed at run time
// from one Range per dim; anything that would read torch's storage beyond the
// input is refused.
absl::Status AtenAsStridedDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, ctx.Ints("stride"));
  int64_t offset = 0;
  if (ctx.Has("storage_offset")) {
    PT2ONNX_ASSIGN_OR_RETURN(offset, ctx.Int("storage_offset"));
  }
  auto describe = [&] {
    return absl::StrCat("as_strided with size [", absl::StrJoin(size, ", "), "], stride [",
                        absl::StrJoin(stride, ", "), "], offset ", offset);
  };
  if (size.size() != stride.size()) {
    return ctx.Invalid(absl::StrCat(describe(), ": size and stride differ in length"));
  }
  std::optional<std::vector<int64_t>> in = StaticSizes(meta);
  bool contiguous_input = in.has_value() && !meta->storage_offset.is_symbolic &&
                          meta->storage_offset.value == 0 && meta->strides.size() == in->size();
  int64_t numel = 1;
  for (int64_t i = static_cast<int64_t>(in ? in->size() : 0) - 1; contiguous_input && i >= 0; --i) {
    const pt2::SymInt& s = meta->strides[static_cast<size_t>(i)];
    int64_t dim = (*in)[static_cast<size_t>(i)];
    contiguous_input = dim == 1 || (!s.is_symbolic && s.value == numel);
    if (__builtin_mul_overflow(numel, dim, &numel)) contiguous_input = false;
  }
  if (!contiguous_input) {
    return ctx.Unsupported(absl::StrCat(describe(), " of a strided or dynamic-shape input: its "
                                        "storage is not visible in ONNX; make it .contiguous() "
                                        "first or use view/slice/unfold"));
  }
  std::vector<int64_t> contiguous(size.size(), 1);
  for (int64_t i = static_cast<int64_t>(size.size()) - 2; i >= 0; --i) {
    contiguous[i] = contiguous[i + 1] * size[i + 1];
  }
  bool identity = *in == size && offset == 0;
  for (size_t i = 0; identity && i < size.size(); ++i) {
    identity = size[i] == 1 || stride[i] == contiguous[i];
  }
  if (identity) return ctx.SetOutput(0, x);
  // The last element read: offset + sum((size_k - 1) * stride_k), overflow-checked.
  bool empty = false;
  int64_t last = offset;
  bool ok = offset >= 0;
  for (size_t k = 0; ok && k < size.size(); ++k) {
    ok = size[k] >= 0 && stride[k] >= 0;
    if (size[k] == 0) empty = true;
    int64_t reach = 0;
    if (ok && size[k] > 0) {
      ok = !__builtin_mul_overflow(size[k] - 1, stride[k], &reach) &&
           !__builtin_add_overflow(last, reach, &last);
    }
  }
  if (!ok || (!empty && last >= numel)) {
    return ctx.Unsupported(absl::StrCat(describe(), " reads outside the ", numel,
                                        "-element input (torch would read its storage)"));
  }
  std::string flat = ctx.Op("Reshape", {x, ctx.ConstantInt64s({-1})});
  std::string index = ctx.ConstantInt64(offset);
  std::string zero = ctx.ConstantInt64(0);
  std::string one = ctx.ConstantInt64(1);
  const int64_t rank = static_cast<int64_t>(size.size());
  for (int64_t k = 0; k < rank; ++k) {
    std::string count = ctx.ConstantInt64(size[k]);
    std::string steps = ctx.Op("Range", {zero, count, one});
    steps = ctx.Op("Mul", {steps, ctx.ConstantInt64(stride[k])});
    std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
    shape[static_cast<size_t>(k)] = -1;
    index = ctx.Op("Add", {index, ctx.Op("Reshape", {steps, ctx.ConstantInt64s(shape)})});
  }
  return ctx.SetOutput(0, ctx.Op("Gather", {flat, index}, {ir::Attribute::Int("axis", 0)}));
}

// aten::as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor
// A copy of self (contiguous, torch's clone) with the strided view written
// by src: a ScatterND into the flattened copy at offset + sum(i_k * stride_k).
// Views that reach beyond self, or whose elements overlap (the result would
// depend on the write order), are refused.
absl::Status AtenAsStridedScatter(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string src, ctx.InputAs("src", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, ctx.Ints("stride"));
  int64_t offset = 0;
  if (ctx.Has("storage_offset")) {
    PT2ONNX_ASSIGN_OR_RETURN(offset, ctx.Int("storage_offset"));
  }
  if (size.size() != stride.size()) return ctx.Invalid("as_strided_scatter: size and stride differ in length");
  std::optional<std::vector<int64_t>> in = StaticSizes(meta);
  if (!in) return ctx.Unsupported("as_strided_scatter into a dynamic-shape tensor");
  int64_t numel = 1;
  for (int64_t d : *in) numel *= d;
  // Dims by stride: each must step past everything the smaller ones reach.
  std::vector<size_t> order;
  bool empty = false;
  for (size_t k = 0; k < size.size(); ++k) {
    if (size[k] < 0 || stride[k] < 0) return ctx.Invalid("as_strided_scatter: negative size or stride");
    if (size[k] == 0) empty = true;
    if (size[k] > 1) order.push_back(k);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stride[a] < stride[b]; });
  int64_t reach = 0;  // the farthest element past the offset, smaller dims only
  for (size_t k : order) {
    if (stride[k] <= reach) return ctx.Unsupported("as_strided_scatter with overlapping elements (write order decides)");
    int64_t step = 0;
    if (__builtin_mul_overflow(size[k] - 1, stride[k], &step) || __builtin_add_overflow(reach, step, &reach)) {
      return ctx.Invalid("as_strided_scatter: size * stride overflows");
    }
  }
  int64_t last = 0;
  if (!empty && (offset < 0 || __builtin_add_overflow(offset, reach, &last) || last >= numel)) {
    return ctx.Unsupported("as_strided_scatter reaches outside self (torch would write its storage)");
  }
  std::string flat = Reshape(ctx, x, {-1});
  if (empty) return ctx.SetOutput(0, ctx.Op("Identity", {x}));
  const int64_t rank = static_cast<int64_t>(size.size());
  std::string index = ctx.ConstantInt64(offset);
  for (int64_t k = 0; k < rank; ++k) {
    std::string steps = ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(size[k]), ctx.ConstantInt64(1)});
    std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
    shape[static_cast<size_t>(k)] = -1;
    index = ctx.Op("Add", {index, Reshape(ctx, ctx.Op("Mul", {steps, ctx.ConstantInt64(stride[k])}), shape)});
  }
  std::string written = ctx.Op("ScatterND", {flat, Reshape(ctx, index, {-1, 1}), Reshape(ctx, src, {-1})});
  return ctx.SetOutput(0, ctx.Op("Reshape", {written, ctx.Op("Shape", {x})}));
}

}  // namespace

void RegisterShapeOps(OpRegistry& r) {
  r.Add("aten::as_strided_scatter.default", &AtenAsStridedScatter);
  r.Add("aten::view.default", &AtenViewDefault);
  r.Add("aten::view_copy.default", &AtenViewCopyDefault);
  r.Add("aten::_unsafe_view.default", &AtenUnsafeViewDefault);
  r.Add("aten::reshape.default", &AtenReshapeDefault);
  r.Add("aten::_reshape_alias.default", &AtenReshapeAliasDefault);
  r.Add("aten::flatten.using_ints", &AtenFlattenUsingInts);
  r.Add("aten::ravel.default", &AtenRavelDefault);
  r.Add("aten::unflatten.int", &AtenUnflattenInt);
  r.Add("aten::unsqueeze.default", &AtenUnsqueezeDefault);
  r.Add("aten::unsqueeze_copy.default", &AtenUnsqueezeDefault);
  r.Add("aten::squeeze.default", &AtenSqueezeDefault);
  r.Add("aten::squeeze.dim", &AtenSqueezeDim);
  r.Add("aten::squeeze.dims", &AtenSqueezeDims);
  r.Add("aten::squeeze_copy.default", &AtenSqueezeDefault);
  r.Add("aten::squeeze_copy.dim", &AtenSqueezeDim);
  r.Add("aten::squeeze_copy.dims", &AtenSqueezeDims);
  r.Add("aten::expand.default", &AtenExpandDefault);
  r.Add("aten::expand_copy.default", &AtenExpandDefault);
  r.Add("aten::expand_as.default", &AtenExpandAsDefault);
  r.Add("aten::repeat.default", &AtenRepeatDefault);
  r.Add("aten::tile.default", &AtenTileDefault);
  r.Add("aten::alias_copy.default", &AtenAliasCopyDefault);
  r.Add("aten::as_strided.default", &AtenAsStridedDefault);
  r.Add("aten::as_strided_copy.default", &AtenAsStridedDefault);
}

}  // namespace pt2onnx::ops
