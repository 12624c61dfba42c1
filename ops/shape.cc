// File: ops/shape.cc
// -----------------------------------------------------------------------------
// Shape and view ops: reshape/view/flatten/unflatten, permutes and
// transposes, (un)squeeze, expand/repeat/tile, cat/stack, the split family,
// slice/select/narrow, flip/roll, pixel (un)shuffle, diagonal/unfold, and the
// `*_copy` twins that functionalization and run_decompositions produce.
//
// ONNX has no views: every view op materializes its result. Shapes come from
// the FX metadata when static (a constant shape keeps ONNX shape inference
// exact); symbolic sizes are read at run time with Shape, so one model serves
// every size the export allowed. All translations hold for opsets 18..23
// (Split's `split` input and Reshape's `allowzero` exist since 13/14).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/families.h"
#include "ops/op_helpers.h"
#include "ops/registry.h"
#include "ops/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// Sizes of `meta` when every one is static.
std::optional<std::vector<int64_t>> StaticSizes(const pt2::TensorMeta* meta) {
  if (meta == nullptr) return std::nullopt;
  std::vector<int64_t> sizes;
  for (const pt2::SymInt& s : meta->sizes) {
    if (s.is_symbolic) return std::nullopt;
    sizes.push_back(s.value);
  }
  return sizes;
}

// Reshape to fully known sizes. A literal 0 needs allowzero=1 (otherwise ONNX
// copies the input's size there); with every size explicit that is exact.
std::string ReshapeToStatic(TranslateContext& ctx, const std::string& x,
                            const std::vector<int64_t>& sizes) {
  bool has_zero = false;
  for (int64_t s : sizes) has_zero |= s == 0;
  return ctx.Op("Reshape", {x, ctx.ConstantInt64s(sizes)},
                {Attribute::Int("allowzero", has_zero ? 1 : 0)});
}

// One size of a shape being assembled: static, or a 1-element 1-D INT64 value.
struct SizeExpr {
  std::optional<int64_t> value;
  std::string tensor;
};

SizeExpr InputSize(TranslateContext& ctx, const std::string& x, const pt2::TensorMeta& meta,
                   int64_t axis) {
  const pt2::SymInt& s = meta.sizes[axis];
  if (!s.is_symbolic) return SizeExpr{s.value, ""};
  return SizeExpr{std::nullopt, ShapeSlice(ctx, x, axis, axis + 1)};
}

std::string SizeTensor(TranslateContext& ctx, const SizeExpr& s) {
  return s.value.has_value() ? ctx.ConstantInt64s({*s.value}) : s.tensor;
}

SizeExpr MulSizes(TranslateContext& ctx, const SizeExpr& a, const SizeExpr& b) {
  if (a.value && b.value) return SizeExpr{*a.value * *b.value, ""};
  return SizeExpr{std::nullopt, ctx.Op("Mul", {SizeTensor(ctx, a), SizeTensor(ctx, b)})};
}

SizeExpr DivSize(TranslateContext& ctx, const SizeExpr& a, int64_t b) {
  if (a.value) return SizeExpr{*a.value / b, ""};
  return SizeExpr{std::nullopt, ctx.Op("Div", {a.tensor, ctx.ConstantInt64s({b})})};
}

// A 1-D INT64 shape value from `sizes`; runs of static sizes become one
// constant.
std::string ShapeTensor(TranslateContext& ctx, const std::vector<SizeExpr>& sizes) {
  std::vector<std::string> pieces;
  std::vector<int64_t> run;
  bool all_static = true;
  for (const SizeExpr& s : sizes) {
    if (s.value.has_value()) {
      run.push_back(*s.value);
      continue;
    }
    all_static = false;
    if (!run.empty()) pieces.push_back(ctx.ConstantInt64s(run));
    run.clear();
    pieces.push_back(s.tensor);
  }
  if (all_static) return ctx.ConstantInt64s(run);
  if (!run.empty()) pieces.push_back(ctx.ConstantInt64s(run));
  if (pieces.size() == 1) return pieces[0];
  return ctx.Op("Concat", pieces, {Attribute::Int("axis", 0)});
}

// Reshape to the node's output sizes when static, else to `sizes`.
std::string ReshapeToOutput(TranslateContext& ctx, const std::string& x,
                            const std::vector<SizeExpr>& sizes) {
  if (auto out = StaticSizes(ctx.OutputMeta(0))) return ReshapeToStatic(ctx, x, *out);
  return ctx.Op("Reshape", {x, ShapeTensor(ctx, sizes)});
}

// A `SymInt` / `SymInt?` argument: its static value, or nullopt when it names
// a symbol (read it with SymIntAsTensor then).
absl::StatusOr<std::optional<int64_t>> StaticSymInt(TranslateContext& ctx,
                                                    absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg(arg));
  if (a.kind == pt2::Argument::Kind::kSymInt && a.sym.is_name) return std::optional<int64_t>();
  if (a.kind == pt2::Argument::Kind::kTensor) return std::optional<int64_t>();
  PT2ONNX_ASSIGN_OR_RETURN(int64_t v, ctx.Int(arg));
  return std::optional<int64_t>(v);
}

// A SymInt argument as a 1-element 1-D INT64 value.
absl::StatusOr<std::string> SymIntAs1D(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> v, StaticSymInt(ctx, arg));
  if (v.has_value()) return ctx.ConstantInt64s({*v});
  PT2ONNX_ASSIGN_OR_RETURN(std::string scalar, ctx.SymIntAsTensor(arg));
  return Reshape(ctx, scalar, {1});
}

// The number of tensors a Tensor[]-returning node produces.
size_t ListOutputSize(const TranslateContext& ctx) {
  const pt2::Node& node = ctx.node();
  if (node.outputs.empty()) return 0;
  if (node.outputs[0].kind == pt2::Argument::Kind::kTensors) return node.outputs[0].names.size();
  return node.outputs.size();
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

absl::Status SetTransposed(TranslateContext& ctx, const std::string& x,
                           const std::vector<int64_t>& perm) {
  if (perm == Iota(static_cast<int64_t>(perm.size()))) return ctx.SetOutput(0, x);
  return ctx.SetOutput(0, ctx.Op("Transpose", {x}, {Attribute::Ints("perm", perm)}));
}

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
  if (rank == 0) return ctx.SetOutput(0, Reshape(ctx, x, {1}));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t start_dim, ctx.Int("start_dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t end_dim, ctx.Int("end_dim"));
  int64_t start = NormalizeAxis(start_dim, rank), end = NormalizeAxis(end_dim, rank);
  if (start >= end) return ctx.SetOutput(0, x);
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
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  int64_t axis = NormalizeAxis(dim, rank);
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

// ---- permutations ----

// aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)
absl::Status AtenPermuteDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dims"));
  if (static_cast<int64_t>(dims.size()) != rank) {
    return ctx.Invalid(absl::StrCat("permute dims [", absl::StrJoin(dims, ", "),
                                    "] do not match rank ", rank));
  }
  for (int64_t& d : dims) d = NormalizeAxis(d, rank);
  if (rank == 0) return ctx.SetOutput(0, x);
  return SetTransposed(ctx, x, dims);
}

// Swaps two axes (transpose.int, swapaxes, swapdims).
absl::Status SwapAxes(TranslateContext& ctx, absl::string_view arg0, absl::string_view arg1) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d0, ctx.Int(arg0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, ctx.Int(arg1));
  if (rank < 2) return ctx.SetOutput(0, x);
  std::vector<int64_t> perm = Iota(rank);
  std::swap(perm[NormalizeAxis(d0, rank)], perm[NormalizeAxis(d1, rank)]);
  return SetTransposed(ctx, x, perm);
}

// aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
absl::Status AtenTransposeInt(TranslateContext& ctx) { return SwapAxes(ctx, "dim0", "dim1"); }
// aten::swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)
absl::Status AtenSwapaxesDefault(TranslateContext& ctx) { return SwapAxes(ctx, "axis0", "axis1"); }
// aten::swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
absl::Status AtenSwapdimsDefault(TranslateContext& ctx) { return SwapAxes(ctx, "dim0", "dim1"); }

// aten::t(Tensor(a) self) -> Tensor(a)
absl::Status AtenTDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < 2) return ctx.SetOutput(0, x);
  return SetTransposed(ctx, x, {1, 0});
}

// aten::numpy_T(Tensor(a) self) -> Tensor(a)
absl::Status AtenNumpyTDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  std::vector<int64_t> perm;
  for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  return SetTransposed(ctx, x, perm);
}

// aten::mT(Tensor(a) self) -> Tensor(a)
// (mH and adjoint are the same for the real dtypes ONNX models carry)
absl::Status AtenMTDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < 2) return ctx.Invalid(absl::StrCat("mT needs rank >= 2, got ", rank));
  std::vector<int64_t> perm = Iota(rank);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return SetTransposed(ctx, x, perm);
}

// aten::movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)
// (also movedim.int / moveaxis: the int overloads read as 1-element lists)
absl::Status AtenMovedimIntlist(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> source, ctx.Ints("source"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> destination, ctx.Ints("destination"));
  if (source.size() != destination.size()) {
    return ctx.Invalid("movedim source and destination differ in length");
  }
  // perm[destination[i]] = source[i]; the remaining axes keep their order.
  std::vector<int64_t> perm(rank, -1);
  std::vector<bool> moved(rank, false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = NormalizeAxis(source[i], rank), d = NormalizeAxis(destination[i], rank);
    perm[d] = s;
    moved[s] = true;
  }
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p != -1) continue;
    while (moved[next]) ++next;
    p = next++;
  }
  if (rank == 0) return ctx.SetOutput(0, x);
  return SetTransposed(ctx, x, perm);
}

// ---- squeeze / unsqueeze ----

// aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
absl::Status AtenUnsqueezeDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  int64_t axis = dim < 0 ? dim + rank + 1 : dim;
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
  std::vector<int64_t> axes;
  for (int64_t d : *dims) {
    if (rank == 0) continue;
    int64_t a = NormalizeAxis(d, rank);
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
  int64_t axis = NormalizeAxis(dim, ctx.OutputRank(0));
  return ctx.SetOutput(0, ctx.Op("Concat", kept, {Attribute::Int("axis", axis)}));
}

// aten::stack(Tensor[] tensors, int dim=0) -> Tensor
absl::Status AtenStackDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  if (tensors.empty()) return ctx.Invalid("stack of an empty tensor list");
  int64_t axis = NormalizeAxis(dim, ctx.OutputRank(0));
  std::vector<std::string> expanded;
  for (const std::string& t : tensors) expanded.push_back(Unsqueeze(ctx, t, {axis}));
  if (expanded.size() == 1) return ctx.SetOutput(0, expanded[0]);
  return ctx.SetOutput(0, ctx.Op("Concat", expanded, {Attribute::Int("axis", axis)}));
}

// ---- split family ----

// Splits `x` along `axis` into pieces of `sizes` (a 1-D INT64 value holding
// `count` sizes) and binds them to the node's list output.
absl::Status SplitInto(TranslateContext& ctx, const std::string& x, int64_t axis,
                       const std::string& sizes, size_t count) {
  if (count == 1) return ctx.SetListOutput(0, {x});
  std::vector<std::string> parts = ctx.AddNode("Split", {x, sizes}, {Attribute::Int("axis", axis)},
                                               static_cast<int>(count));
  return ctx.SetListOutput(0, parts);
}

// Chunks of `chunk` along `axis`, the last one smaller: torch's split.Tensor.
// `chunk` is static or a 1-element value; the piece count comes from the
// program's list output.
absl::Status SplitEvenly(TranslateContext& ctx, std::optional<int64_t> chunk,
                         const std::string& chunk_tensor, int64_t axis) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  size_t count = ListOutputSize(ctx);
  if (count == 0) return ctx.Invalid("split produces no tensors");
  SizeExpr n = InputSize(ctx, x, *meta, axis);
  if (chunk.has_value() && n.value.has_value()) {
    std::vector<int64_t> sizes;
    for (int64_t start = 0; start < *n.value; start += *chunk) {
      sizes.push_back(std::min(*chunk, *n.value - start));
    }
    if (sizes.empty()) sizes.push_back(0);
    if (sizes.size() != count) {
      return ctx.Invalid(absl::StrCat("splitting size ", *n.value, " by ", *chunk, " gives ",
                                      sizes.size(), " pieces, the program expects ", count));
    }
    return SplitInto(ctx, x, axis, ctx.ConstantInt64s(sizes), count);
  }
  // [c, ..., c, n - c * (count - 1)]
  int64_t k = static_cast<int64_t>(count) - 1;
  std::string c = chunk.has_value() ? ctx.ConstantInt64s({*chunk}) : chunk_tensor;
  std::string last = ctx.Op("Sub", {SizeTensor(ctx, n), ctx.Op("Mul", {c, ctx.ConstantInt64s({k})})});
  std::string sizes = last;
  if (k > 0) {
    std::string firsts = ctx.Op("Expand", {c, ctx.ConstantInt64s({k})});
    sizes = ctx.Op("Concat", {firsts, last}, {Attribute::Int("axis", 0)});
  }
  return SplitInto(ctx, x, axis, sizes, count);
}

// aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
absl::Status AtenSplitTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> chunk, StaticSymInt(ctx, "split_size"));
  std::string chunk_tensor;
  if (!chunk.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(chunk_tensor, SymIntAs1D(ctx, "split_size"));
  } else if (*chunk <= 0) {
    return ctx.Invalid(absl::StrCat("split_size must be positive, got ", *chunk));
  }
  return SplitEvenly(ctx, chunk, chunk_tensor, NormalizeAxis(dim, rank));
}

// aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
// torch splits by ceil(size / chunks), which may give fewer than `chunks`.
absl::Status AtenChunkDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t chunks, ctx.Int("chunks"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  if (chunks <= 0) return ctx.Invalid(absl::StrCat("chunks must be positive, got ", chunks));
  int64_t axis = NormalizeAxis(dim, rank);
  const pt2::SymInt& n = meta->sizes[axis];
  if (!n.is_symbolic) {
    int64_t chunk = std::max<int64_t>((n.value + chunks - 1) / chunks, 1);
    return SplitEvenly(ctx, chunk, "", axis);
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  std::string size = ShapeSlice(ctx, x, axis, axis + 1);
  std::string chunk = ctx.Op("Div", {ctx.Op("Add", {size, ctx.ConstantInt64s({chunks - 1})}),
                                     ctx.ConstantInt64s({chunks})});
  return SplitEvenly(ctx, std::nullopt, chunk, axis);
}

// Split by an explicit size list argument.
absl::Status SplitBySizes(TranslateContext& ctx, absl::string_view sizes_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string sizes, ctx.IntsAsTensor(sizes_arg));
  return SplitInto(ctx, x, NormalizeAxis(dim, rank), sizes, ListOutputSize(ctx));
}

// aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]
absl::Status AtenSplitWithSizesDefault(TranslateContext& ctx) {
  return SplitBySizes(ctx, "split_sizes");
}
// aten::split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]
absl::Status AtenSplitSizes(TranslateContext& ctx) { return SplitBySizes(ctx, "split_size"); }

// aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]
absl::Status AtenUnbindInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  int64_t axis = NormalizeAxis(dim, rank);
  size_t count = ListOutputSize(ctx);
  std::vector<std::string> parts = {x};
  if (count > 1) {
    parts = ctx.AddNode("Split", {x, ctx.ConstantInt64s(std::vector<int64_t>(count, 1))},
                        {Attribute::Int("axis", axis)}, static_cast<int>(count));
  }
  for (std::string& p : parts) p = Squeeze(ctx, p, {axis});
  return ctx.SetListOutput(0, parts);
}

// ---- slicing ----

// Slice of one axis; `start`/`end` are 1-element values (ONNX clamps them to
// the axis like Python does, so INT64_MAX ends and negative starts work).
std::string SliceAxis(TranslateContext& ctx, const std::string& x, int64_t axis,
                      const std::string& start, const std::string& end, int64_t step) {
  std::vector<std::string> inputs = {x, start, end, ctx.ConstantInt64s({axis})};
  if (step != 1) inputs.push_back(ctx.ConstantInt64s({step}));
  return ctx.Op("Slice", inputs);
}

// aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
absl::Status AtenSliceTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t step, ctx.Int("step"));
  if (step <= 0) return ctx.Invalid(absl::StrCat("slice step must be positive, got ", step));
  int64_t axis = NormalizeAxis(dim, rank);
  std::optional<int64_t> start = 0, end = kInt64Max;
  if (ctx.Has("start")) {
    PT2ONNX_ASSIGN_OR_RETURN(start, StaticSymInt(ctx, "start"));
  }
  if (ctx.Has("end")) {
    PT2ONNX_ASSIGN_OR_RETURN(end, StaticSymInt(ctx, "end"));
  }
  const pt2::SymInt& size = meta->sizes[axis];
  // x[:, 0:] and x[:, :n] are no-ops torch.export keeps; skip them.
  if (step == 1 && start == 0 && end.has_value() &&
      (*end == kInt64Max || (!size.is_symbolic && *end >= size.value))) {
    return ctx.SetOutput(0, x);
  }
  std::string start_t, end_t;
  if (start.has_value()) {
    start_t = ctx.ConstantInt64s({*start});
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(start_t, SymIntAs1D(ctx, "start"));
  }
  if (end.has_value()) {
    end_t = ctx.ConstantInt64s({*end});
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(end_t, SymIntAs1D(ctx, "end"));
  }
  return ctx.SetOutput(0, SliceAxis(ctx, x, axis, start_t, end_t, step));
}

// aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)
// Gather with a 0-d index drops the axis; it accepts negative indices.
absl::Status AtenSelectInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.SymIntAsTensor("index"));
  return ctx.SetOutput(0, ctx.Op("Gather", {x, index},
                                 {Attribute::Int("axis", NormalizeAxis(dim, rank))}));
}

// aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
// (narrow.Tensor takes `start` as a 0-d tensor, read the same way)
absl::Status AtenNarrowDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  int64_t axis = NormalizeAxis(dim, rank);
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> start, StaticSymInt(ctx, "start"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> length, StaticSymInt(ctx, "length"));
  if (start.has_value() && length.has_value()) {
    int64_t end = *start + *length;
    // A negative start counts from the end; its window may end exactly there.
    if (*start < 0 && end == 0) end = kInt64Max;
    std::string start_t = ctx.ConstantInt64s({*start});
    std::string end_t = ctx.ConstantInt64s({end});
    return ctx.SetOutput(0, SliceAxis(ctx, x, axis, start_t, end_t, 1));
  }
  // Symbolic windows: torch checks start >= 0 for them at export time.
  PT2ONNX_ASSIGN_OR_RETURN(std::string start_t, ctx.InputAs("start", DataType::kInt64));
  start_t = Reshape(ctx, start_t, {1});
  PT2ONNX_ASSIGN_OR_RETURN(std::string length_t, SymIntAs1D(ctx, "length"));
  std::string end_t = ctx.Op("Add", {start_t, length_t});
  return ctx.SetOutput(0, SliceAxis(ctx, x, axis, start_t, end_t, 1));
}

// aten::flip(Tensor self, int[] dims) -> Tensor
absl::Status AtenFlipDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dims"));
  if (dims.empty() || rank == 0) return ctx.SetOutput(0, x);
  for (int64_t& d : dims) d = NormalizeAxis(d, rank);
  size_t n = dims.size();
  return ctx.SetOutput(
      0, ctx.Op("Slice", {x, ctx.ConstantInt64s(std::vector<int64_t>(n, -1)),
                          ctx.ConstantInt64s(std::vector<int64_t>(n, kInt64Min)),
                          ctx.ConstantInt64s(dims),
                          ctx.ConstantInt64s(std::vector<int64_t>(n, -1))}));
}

// Rolls `x` by `shift` along `axis`: Concat(x[n-s:], x[:n-s]) with s = shift
// mod n (computed at run time with Mod, which takes the divisor's sign, when
// the size is symbolic).
std::string RollAxis(TranslateContext& ctx, const std::string& x, const pt2::SymInt& size,
                     int64_t axis, int64_t shift) {
  std::string split;
  if (!size.is_symbolic) {
    int64_t n = size.value;
    if (n == 0) return x;
    int64_t s = ((shift % n) + n) % n;
    if (s == 0) return x;
    split = ctx.ConstantInt64s({n - s});
  } else {
    std::string n = ShapeSlice(ctx, x, axis, axis + 1);
    std::string s = ctx.Op("Mod", {ctx.ConstantInt64s({shift}), n});
    split = ctx.Op("Sub", {n, s});
  }
  std::string tail = SliceAxis(ctx, x, axis, split, ctx.ConstantInt64s({kInt64Max}), 1);
  std::string head = SliceAxis(ctx, x, axis, ctx.ConstantInt64s({0}), split, 1);
  return ctx.Op("Concat", {tail, head}, {Attribute::Int("axis", axis)});
}

// aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor
absl::Status AtenRollDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> shifts, ctx.Ints("shifts"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dims"));
  if (dims.empty()) {
    // No dims: roll the flattened tensor, then restore the shape.
    if (shifts.size() != 1) return ctx.Invalid("roll without dims takes exactly one shift");
    pt2::SymInt numel;
    numel.value = 1;
    for (const pt2::SymInt& s : meta->sizes) {
      numel.is_symbolic |= s.is_symbolic;
      numel.value *= s.value;
    }
    std::string flat = Reshape(ctx, x, {-1});
    std::string rolled = RollAxis(ctx, flat, numel, 0, shifts[0]);
    return ctx.SetOutput(0, ctx.Op("Reshape", {rolled, ctx.Op("Shape", {x})}));
  }
  if (shifts.size() != dims.size()) return ctx.Invalid("roll shifts and dims differ in length");
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t axis = NormalizeAxis(dims[i], rank);
    x = RollAxis(ctx, x, meta->sizes[axis], axis, shifts[i]);
  }
  return ctx.SetOutput(0, x);
}

// ---- identity-like views ----

// aten::alias_copy(Tensor self) -> Tensor
// (aten::alias itself is registered with clone/detach in elementwise.cc)
absl::Status AtenAliasCopyDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetOutput(0, x);
}

// aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)
// ONNX has no strided views: only the identity view (same sizes, contiguous
// strides, no offset) is translated.
absl::Status AtenAsStridedDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  std::optional<std::vector<int64_t>> in = StaticSizes(meta);
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, ctx.Ints("stride"));
  int64_t offset = 0;
  if (ctx.Has("storage_offset")) {
    PT2ONNX_ASSIGN_OR_RETURN(offset, ctx.Int("storage_offset"));
  }
  std::vector<int64_t> contiguous(size.size(), 1);
  for (int64_t i = static_cast<int64_t>(size.size()) - 2; i >= 0; --i) {
    contiguous[i] = contiguous[i + 1] * size[i + 1];
  }
  bool identity = in.has_value() && *in == size && offset == 0;
  for (size_t i = 0; identity && i < size.size(); ++i) {
    identity = size[i] == 1 || stride[i] == contiguous[i];
  }
  if (!identity) {
    return ctx.Unsupported(absl::StrCat(
        "as_strided with size [", absl::StrJoin(size, ", "), "], stride [",
        absl::StrJoin(stride, ", "), "], offset ", offset,
        " is not expressible in ONNX; rewrite the model with view/slice/unfold"));
  }
  return ctx.SetOutput(0, x);
}

// ---- pixel shuffle, diagonal, unfold ----

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
  if (r <= 0) return ctx.Invalid(absl::StrCat("factor must be positive, got ", r));
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
  int64_t d1 = NormalizeAxis(dim1, rank), d2 = NormalizeAxis(dim2, rank);
  if (rank < 2 || d1 == d2) return ctx.Invalid("diagonal needs two distinct dimensions");
  if (meta->sizes[d1].is_symbolic || meta->sizes[d2].is_symbolic) {
    return ctx.Unsupported("diagonal over symbolic dimensions; export them with static sizes");
  }
  int64_t n1 = meta->sizes[d1].value, n2 = meta->sizes[d2].value;
  int64_t row = std::max<int64_t>(0, -offset), col = std::max<int64_t>(0, offset);
  int64_t len = std::max<int64_t>(0, std::min(n1 - row, n2 - col));
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
  merged.push_back(n1 * n2);
  std::string flat = Reshape(ctx, moved, merged);
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < len; ++i) positions.push_back((i + row) * n2 + (i + col));
  return ctx.SetOutput(0, ctx.Op("Gather", {flat, ctx.ConstantInt64s(positions)},
                                 {Attribute::Int("axis", rank - 2)}));
}

// aten::unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)
// Windows [i*step, i*step + size) of `dimension`, gathered with a constant
// [windows, size] index; the window axis then moves last. Needs a static size.
absl::Status AtenUnfoldDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dimension, ctx.Int("dimension"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t size, ctx.Int("size"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t step, ctx.Int("step"));
  if (rank == 0) {
    return ctx.Unsupported("unfold of a 0-d tensor");
  }
  int64_t axis = NormalizeAxis(dimension, rank);
  if (meta->sizes[axis].is_symbolic) {
    return ctx.Unsupported("unfold over a symbolic dimension; export it with a static size");
  }
  if (step <= 0 || size < 0) return ctx.Invalid("unfold needs size >= 0 and step > 0");
  int64_t n = meta->sizes[axis].value;
  int64_t windows = n >= size ? (n - size) / step + 1 : 0;
  std::vector<int64_t> index;
  for (int64_t i = 0; i < windows; ++i) {
    for (int64_t j = 0; j < size; ++j) index.push_back(i * step + j);
  }
  std::string idx = ctx.Constant(ir::Tensor::Int64s({windows, size}, index));
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

void RegisterShapeOps(OpRegistry& r) {
  r.Add("aten::view.default", &AtenViewDefault);
  r.Add("aten::view_copy.default", &AtenViewCopyDefault);
  r.Add("aten::_unsafe_view.default", &AtenUnsafeViewDefault);
  r.Add("aten::reshape.default", &AtenReshapeDefault);
  r.Add("aten::_reshape_alias.default", &AtenReshapeAliasDefault);
  r.Add("aten::flatten.using_ints", &AtenFlattenUsingInts);
  r.Add("aten::ravel.default", &AtenRavelDefault);
  r.Add("aten::unflatten.int", &AtenUnflattenInt);
  r.Add("aten::permute.default", &AtenPermuteDefault);
  r.Add("aten::permute_copy.default", &AtenPermuteDefault);
  r.Add("aten::transpose.int", &AtenTransposeInt);
  r.Add("aten::transpose_copy.int", &AtenTransposeInt);
  r.Add("aten::swapaxes.default", &AtenSwapaxesDefault);
  r.Add("aten::swapdims.default", &AtenSwapdimsDefault);
  r.Add("aten::t.default", &AtenTDefault);
  r.Add("aten::t_copy.default", &AtenTDefault);
  r.Add("aten::numpy_T.default", &AtenNumpyTDefault);
  r.Add("aten::mT.default", &AtenMTDefault);
  r.Add("aten::mH.default", &AtenMTDefault);
  r.Add("aten::adjoint.default", &AtenMTDefault);
  r.Add("aten::movedim.int", &AtenMovedimIntlist);
  r.Add("aten::movedim.intlist", &AtenMovedimIntlist);
  r.Add("aten::moveaxis.int", &AtenMovedimIntlist);
  r.Add("aten::moveaxis.intlist", &AtenMovedimIntlist);
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
  r.Add("aten::cat.default", &AtenCatDefault);
  r.Add("aten::concat.default", &AtenCatDefault);
  r.Add("aten::concatenate.default", &AtenCatDefault);
  r.Add("aten::stack.default", &AtenStackDefault);
  r.Add("aten::split.Tensor", &AtenSplitTensor);
  r.Add("aten::split_copy.Tensor", &AtenSplitTensor);
  r.Add("aten::unsafe_split.Tensor", &AtenSplitTensor);
  r.Add("aten::split.sizes", &AtenSplitSizes);
  r.Add("aten::split.default", &AtenSplitWithSizesDefault);
  r.Add("aten::split_with_sizes.default", &AtenSplitWithSizesDefault);
  r.Add("aten::split_with_sizes_copy.default", &AtenSplitWithSizesDefault);
  r.Add("aten::unsafe_split_with_sizes.default", &AtenSplitWithSizesDefault);
  r.Add("aten::chunk.default", &AtenChunkDefault);
  r.Add("aten::unsafe_chunk.default", &AtenChunkDefault);
  r.Add("aten::unbind.int", &AtenUnbindInt);
  r.Add("aten::unbind_copy.int", &AtenUnbindInt);
  r.Add("aten::slice.Tensor", &AtenSliceTensor);
  r.Add("aten::slice_copy.Tensor", &AtenSliceTensor);
  r.Add("aten::select.int", &AtenSelectInt);
  r.Add("aten::select_copy.int", &AtenSelectInt);
  r.Add("aten::narrow.default", &AtenNarrowDefault);
  r.Add("aten::narrow.Tensor", &AtenNarrowDefault);
  r.Add("aten::narrow_copy.default", &AtenNarrowDefault);
  r.Add("aten::flip.default", &AtenFlipDefault);
  r.Add("aten::roll.default", &AtenRollDefault);
  r.Add("aten::alias_copy.default", &AtenAliasCopyDefault);
  r.Add("aten::as_strided.default", &AtenAsStridedDefault);
  r.Add("aten::as_strided_copy.default", &AtenAsStridedDefault);
  r.Add("aten::pixel_shuffle.default", &AtenPixelShuffleDefault);
  r.Add("aten::pixel_unshuffle.default", &AtenPixelUnshuffleDefault);
  r.Add("aten::diagonal.default", &AtenDiagonalDefault);
  r.Add("aten::diagonal_copy.default", &AtenDiagonalDefault);
  r.Add("aten::unfold.default", &AtenUnfoldDefault);
}

}  // namespace pt2onnx::ops
