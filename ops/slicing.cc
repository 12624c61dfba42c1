// File: ops/slicing.cc
// -----------------------------------------------------------------------------
// Ops that take parts of a tensor along one axis: the split family (split,
// chunk, unbind), slice/select/narrow and flip/roll, with their `*_copy`
// twins. Reshapes, permutes and concatenation live in shape.cc, pixel
// (un)shuffle, diagonal and unfold in rearrange.cc; all share
// ops/shape_helpers.h.
//
// As in shape.cc, static sizes come from the FX metadata and symbolic ones
// are read at run time, so one model serves every size the export allowed.
// All translations hold for opsets 18..23 (Split's `split` input exists
// since 13).
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

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

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

// ---- split family ----

// The `dim` argument of the split family. torch wraps it like any dim, so a
// 0-d input accepts 0 and -1 (and then fails on splitting nothing).
absl::StatusOr<int64_t> SplitAxis(const TranslateContext& ctx, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  if (rank == 0) return ctx.Invalid("splitting a 0-d tensor");
  return axis;
}

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
    // ceil(n / chunk) pieces (at least one), counted before any is built.
    int64_t pieces = std::max<int64_t>(*n.value / *chunk + (*n.value % *chunk != 0 ? 1 : 0), 1);
    if (pieces != static_cast<int64_t>(count)) {
      return ctx.Invalid(absl::StrCat("splitting size ", *n.value, " by ", *chunk, " gives ",
                                      pieces, " pieces, the program expects ", count));
    }
    std::vector<int64_t> sizes;
    for (int64_t i = 0; i < pieces; ++i) {
      int64_t start = i * *chunk;  // < n: no overflow
      sizes.push_back(std::min(*chunk, *n.value - start));
    }
    if (*n.value == 0) sizes = {0};
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
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, SplitAxis(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> chunk, StaticSymInt(ctx, "split_size"));
  std::string chunk_tensor;
  if (!chunk.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(chunk_tensor, SymIntAs1D(ctx, "split_size"));
  } else if (*chunk <= 0) {
    return ctx.Invalid(absl::StrCat("split_size must be positive, got ", *chunk));
  }
  return SplitEvenly(ctx, chunk, chunk_tensor, axis);
}

// aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
// torch splits by ceil(size / chunks), which may give fewer than `chunks`.
absl::Status AtenChunkDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t chunks, ctx.Int("chunks"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, SplitAxis(ctx, rank));
  if (chunks <= 0) return ctx.Invalid(absl::StrCat("chunks must be positive, got ", chunks));
  const pt2::SymInt& n = meta->sizes[axis];
  if (!n.is_symbolic) {
    // ceil(n / chunks) without n + chunks - 1, which may overflow.
    int64_t chunk = std::max<int64_t>(n.value / chunks + (n.value % chunks != 0 ? 1 : 0), 1);
    return SplitEvenly(ctx, chunk, "", axis);
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  std::string size = ShapeSlice(ctx, x, axis, axis + 1);
  // ceil(size / chunks) as (size - 1) / chunks + 1: symbolic sizes are >= 2,
  // and no intermediate exceeds them.
  std::string chunk = ctx.Op("Add", {ctx.Op("Div", {ctx.Op("Sub", {size, ctx.ConstantInt64s({1})}),
                                                    ctx.ConstantInt64s({chunks})}),
                                     ctx.ConstantInt64s({1})});
  return SplitEvenly(ctx, std::nullopt, chunk, axis);
}

// Split by an explicit size list argument.
absl::Status SplitBySizes(TranslateContext& ctx, absl::string_view sizes_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, SplitAxis(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  if (ctx.IsStaticInts(sizes_arg) && !meta->sizes[axis].is_symbolic) {
    // torch: non-negative sizes summing to the dimension, one per output.
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> values, ctx.Ints(sizes_arg));
    int64_t total = 0;
    for (int64_t v : values) {
      std::optional<int64_t> sum = CheckedAdd(total, v);
      if (v < 0 || !sum.has_value()) {
        return ctx.Invalid(absl::StrCat(sizes_arg, " holds ", v, "; sizes must be >= 0"));
      }
      total = *sum;
    }
    if (total != meta->sizes[axis].value || values.size() != ListOutputSize(ctx)) {
      return ctx.Invalid(absl::StrCat(sizes_arg, " sum to ", total, " in ", values.size(),
                                      " pieces; dimension ", axis, " has size ",
                                      meta->sizes[axis].value, " and the program expects ",
                                      ListOutputSize(ctx), " pieces"));
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string sizes, ctx.IntsAsTensor(sizes_arg));
  return SplitInto(ctx, x, axis, sizes, ListOutputSize(ctx));
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
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, SplitAxis(ctx, rank));
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
  if (rank == 0) return ctx.Invalid("slice of a 0-d tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", dim, rank));
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
  if (rank == 0) return ctx.Invalid("select of a 0-d tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.SymIntAsTensor("index"));
  return ctx.SetOutput(0, ctx.Op("Gather", {x, index}, {Attribute::Int("axis", axis)}));
}

// aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
// (narrow.Tensor takes `start` as a 0-d tensor, read the same way)
absl::Status AtenNarrowDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank == 0) return ctx.Invalid("narrow of a 0-d tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> start, StaticSymInt(ctx, "start"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> length, StaticSymInt(ctx, "length"));
  if (length.has_value() && *length < 0) {
    return ctx.Invalid(absl::StrCat("narrow length must be >= 0, got ", *length));
  }
  if (start.has_value() && length.has_value()) {
    std::optional<int64_t> sum = CheckedAdd(*start, *length);
    if (!sum.has_value()) return ctx.Invalid("narrow start + length overflows int64");
    int64_t end = *sum;
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
  PT2ONNX_ASSIGN_OR_RETURN(dims, CheckedAxes(ctx, "dims", dims, rank));
  if (dims.empty() || rank == 0) return ctx.SetOutput(0, x);
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
      std::optional<int64_t> product = CheckedMul(numel.value, s.value);
      if (!product.has_value()) return ctx.Invalid("the input's element count overflows int64");
      numel.value = *product;
    }
    std::string flat = Reshape(ctx, x, {-1});
    std::string rolled = RollAxis(ctx, flat, numel, 0, shifts[0]);
    return ctx.SetOutput(0, ctx.Op("Reshape", {rolled, ctx.Op("Shape", {x})}));
  }
  if (shifts.size() != dims.size()) return ctx.Invalid("roll shifts and dims differ in length");
  if (rank == 0) return ctx.Invalid("roll of a 0-d tensor along a dim");
  for (size_t i = 0; i < dims.size(); ++i) {
    // torch allows a dim twice here (it rolls twice), so no CheckedAxes.
    PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dims", dims[i], rank));
    x = RollAxis(ctx, x, meta->sizes[axis], axis, shifts[i]);
  }
  return ctx.SetOutput(0, x);
}

}  // namespace

void RegisterSlicingOps(OpRegistry& r) {
  r.Add("aten::split.Tensor", &AtenSplitTensor);
  r.Add("aten::split_copy.Tensor", &AtenSplitTensor);
  r.Add("aten::unsafe_split.Tensor", &AtenSplitTensor);
  r.Add("aten::split.sizes", &AtenSplitSizes);
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
}

}  // namespace pt2onnx::ops
