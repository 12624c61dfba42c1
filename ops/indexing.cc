// File: ops/indexing.cc
// -----------------------------------------------------------------------------
// Indexing: embedding, gather, index_select, advanced indexing (index.Tensor)
// and its write twin index_put, the scatter family, index_add/index_copy/
// index_fill, slice_scatter and select_scatter.
//
// Advanced indexing x[i0, :, i2] is lowered as torch defines it: the indexed
// axes move to the front (Transpose), the broadcast index tensors stack into
// one [B..., k] index, and GatherND / ScatterND do the work; when the indexed
// axes were adjacent, torch keeps the broadcast block B where they were, so a
// final Transpose puts it back. Bool masks become their NonZero coordinates
// first, as torch does. ScatterND/ScatterElements `reduction` covers
// add/mul since opset 16 and max/min since 18, so one translation serves the
// whole range 18..23.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/families.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

std::vector<int64_t> Iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

std::vector<int64_t> Inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

std::string Transpose(TranslateContext& ctx, const std::string& x,
                      const std::vector<int64_t>& perm) {
  if (perm == Iota(0, static_cast<int64_t>(perm.size()))) return x;
  return ctx.Op("Transpose", {x}, {Attribute::Ints("perm", perm)});
}

// FX metadata of element `j` of a Tensor[] / Tensor?[] argument; nullptr when
// the element is None or its metadata is unknown.
const pt2::TensorMeta* ElementMeta(const TranslateContext& ctx, absl::string_view arg,
                                   size_t j) {
  return ctx.InputListMeta(arg, j);
}

// ScatterElements needs `updates` shaped like `index`; torch lets `src` be
// larger in every axis, using only its leading corner.
absl::StatusOr<std::string> SrcLikeIndex(TranslateContext& ctx, const std::string& src,
                                         const std::string& index) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* src_meta, ctx.InputMeta("src"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* index_meta, ctx.InputMeta("index"));
  bool same = src_meta->sizes.size() == index_meta->sizes.size();
  for (size_t i = 0; same && i < src_meta->sizes.size(); ++i) {
    const pt2::SymInt& a = src_meta->sizes[i];
    const pt2::SymInt& b = index_meta->sizes[i];
    same = a.is_symbolic == b.is_symbolic && (a.is_symbolic ? a.expr == b.expr : a.value == b.value);
  }
  if (same) return src;
  int64_t rank = static_cast<int64_t>(index_meta->sizes.size());
  return ctx.Op("Slice", {src, ctx.ConstantInt64s(std::vector<int64_t>(rank, 0)),
                          ctx.Op("Shape", {index}), ctx.ConstantInt64s(Iota(0, rank))});
}

// A 0-d constant of `dtype` that is the identity of `reduction` ("add": 0,
// "mul": 1, "max": lowest, "min": highest).
std::string ReductionIdentity(TranslateContext& ctx, DataType dtype, absl::string_view reduction) {
  if (reduction == "add") return ctx.ConstantScalar(dtype, 0);
  if (reduction == "mul") return ctx.ConstantScalar(dtype, 1);
  bool lowest = reduction == "max";
  if (IsFloatingPoint(dtype)) {
    double inf = std::numeric_limits<double>::infinity();
    return ctx.ConstantScalar(dtype, lowest ? -inf : inf);
  }
  switch (dtype) {
    case DataType::kInt64:
      return ctx.Constant(ir::Tensor::Int64Scalar(lowest ? std::numeric_limits<int64_t>::min()
                                                         : std::numeric_limits<int64_t>::max()));
    case DataType::kInt32:
      return ctx.ConstantScalar(dtype, lowest ? std::numeric_limits<int32_t>::min()
                                              : std::numeric_limits<int32_t>::max());
    case DataType::kInt16:
      return ctx.ConstantScalar(dtype, lowest ? std::numeric_limits<int16_t>::min()
                                              : std::numeric_limits<int16_t>::max());
    case DataType::kInt8:
      return ctx.ConstantScalar(dtype, lowest ? -128 : 127);
    case DataType::kUint8:
      return ctx.ConstantScalar(dtype, lowest ? 0 : 255);
    default:
      return ctx.ConstantScalar(dtype, lowest ? 0 : 1);  // bool
  }
}

// ---- gathers ----

// aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor
// padding_idx and scale_grad_by_freq only affect the gradient.
absl::Status AtenEmbeddingDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ctx.Input("indices"));
  return ctx.SetOutput(0, ctx.Op("Gather", {weight, indices}, {Attribute::Int("axis", 0)}));
}

// aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
// GatherElements takes an index smaller than `self` in the other axes, as
// torch does; it needs rank >= 1, so 0-d operands go through 1-D.
absl::Status AtenGatherDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  if (rank == 0) {
    std::string y = ctx.Op("GatherElements", {Reshape(ctx, x, {1}), Reshape(ctx, index, {1})},
                           {Attribute::Int("axis", 0)});
    return ctx.SetOutput(0, Reshape(ctx, y, {}));
  }
  return ctx.SetOutput(0, ctx.Op("GatherElements", {x, index}, {Attribute::Int("axis", axis)}));
}

// aten::index_select(Tensor self, int dim, Tensor index) -> Tensor
// A 0-d index selects one slice but keeps the axis (size 1).
absl::Status AtenIndexSelectDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t index_rank, ctx.InputRank("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  if (rank == 0) return ctx.SetOutput(0, x);
  if (index_rank == 0) index = Reshape(ctx, index, {1});
  return ctx.SetOutput(0, ctx.Op("Gather", {x, index}, {Attribute::Int("axis", axis)}));
}

// aten::take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor
// dim=None gathers from the flattened tensor. Otherwise self and indices
// broadcast against each other in every axis but `dim` (Max of the two
// shapes gives the broadcast size there, as neither holds a 0 against a 1).
absl::Status AtenTakeAlongDimDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ctx.Input("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* x_meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* i_meta, ctx.InputMeta("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  if (!dim.has_value()) {
    return ctx.SetOutput(0, ctx.Op("GatherElements",
                                   {Reshape(ctx, x, {-1}), Reshape(ctx, indices, {-1})},
                                   {Attribute::Int("axis", 0)}));
  }
  int64_t rank = static_cast<int64_t>(x_meta->sizes.size());
  if (static_cast<int64_t>(i_meta->sizes.size()) != rank || rank == 0) {
    return ctx.Unsupported("take_along_dim with indices of a different rank than self; "
                           "unsqueeze them to the same rank before export");
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", *dim, rank));
  bool same = true;
  for (int64_t a = 0; a < rank; ++a) {
    if (a == axis) continue;
    const pt2::SymInt& s = x_meta->sizes[a];
    const pt2::SymInt& t = i_meta->sizes[a];
    same &= s.is_symbolic == t.is_symbolic && (s.is_symbolic ? s.expr == t.expr : s.value == t.value);
  }
  bool all_static = true;
  for (const auto* meta : {x_meta, i_meta}) {
    for (const pt2::SymInt& s : meta->sizes) all_static &= !s.is_symbolic;
  }
  if (!same && all_static) {
    std::vector<int64_t> x_shape, i_shape;
    for (int64_t a = 0; a < rank; ++a) {
      int64_t both = std::max(x_meta->sizes[a].value, i_meta->sizes[a].value);
      x_shape.push_back(a == axis ? x_meta->sizes[a].value : both);
      i_shape.push_back(a == axis ? i_meta->sizes[a].value : both);
    }
    x = ctx.Op("Expand", {x, ctx.ConstantInt64s(x_shape)});
    indices = ctx.Op("Expand", {indices, ctx.ConstantInt64s(i_shape)});
  } else if (!same) {
    std::string x_shape = ctx.Op("Shape", {x});
    std::string i_shape = ctx.Op("Shape", {indices});
    std::string both = ctx.Op("Max", {x_shape, i_shape});
    std::vector<int64_t> one_hot(rank, 0);
    one_hot[axis] = 1;
    std::string at_axis = ctx.Op("Cast", {ctx.ConstantInt64s(one_hot)},
                                 {Attribute::Int("to", static_cast<int64_t>(DataType::kBool))});
    x = ctx.Op("Expand", {x, ctx.Op("Where", {at_axis, x_shape, both})});
    indices = ctx.Op("Expand", {indices, ctx.Op("Where", {at_axis, i_shape, both})});
  }
  return ctx.SetOutput(0, ctx.Op("GatherElements", {x, indices}, {Attribute::Int("axis", axis)}));
}

// ---- advanced indexing ----

// The index list of index.Tensor / index_put, resolved to one INT64 index per
// indexed axis of `self` (bool masks expanded through NonZero).
struct AxisIndices {
  std::vector<int64_t> axes;        // indexed axes of self, increasing
  std::vector<std::string> values;  // one INT64 index tensor per axis
  bool single_plain = false;        // one integer index tensor, no mask
  std::optional<int64_t> broadcast_rank;  // rank of the broadcast index, if known
  bool adjacent() const { return axes.back() - axes.front() + 1 == static_cast<int64_t>(axes.size()); }
};

absl::StatusOr<AxisIndices> ResolveIndices(TranslateContext& ctx, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> entries,
                           ctx.OptionalInputs("indices"));
  AxisIndices r;
  int64_t axis = 0;
  int64_t max_rank = 0;
  bool ranks_known = true;
  int plain = 0, masks = 0;
  for (size_t j = 0; j < entries.size(); ++j) {
    if (!entries[j].has_value()) {
      ++axis;
      continue;
    }
    const pt2::TensorMeta* meta = ElementMeta(ctx, "indices", j);
    DataType dtype = meta == nullptr ? DataType::kUndefined : meta->dtype;
    if (dtype == DataType::kBool || dtype == DataType::kUint8) {
      // A k-d mask indexes k axes with the coordinates of its true elements.
      int64_t k = static_cast<int64_t>(meta->sizes.size());
      std::string nonzero = ctx.Op("NonZero", {*entries[j]});
      for (int64_t t = 0; t < k; ++t) {
        r.axes.push_back(axis + t);
        r.values.push_back(ctx.Op("Gather", {nonzero, ctx.ConstantInt64(t)},
                                  {Attribute::Int("axis", 0)}));
      }
      axis += k;
      max_rank = std::max<int64_t>(max_rank, 1);
      ++masks;
      continue;
    }
    // Gather takes int32 or int64, GatherND/ScatterND only int64; an unknown
    // dtype gets a Cast (a no-op for int64).
    r.axes.push_back(axis++);
    r.values.push_back(dtype == DataType::kInt64
                           ? *entries[j]
                           : ctx.Op("Cast", {*entries[j]},
                                    {Attribute::Int("to", static_cast<int64_t>(DataType::kInt64))}));
    if (meta == nullptr) {
      ranks_known = false;
    } else {
      max_rank = std::max<int64_t>(max_rank, static_cast<int64_t>(meta->sizes.size()));
    }
    ++plain;
  }
  if (r.axes.empty()) return ctx.Unsupported("indexing with only None entries");
  if (axis > rank) {
    return ctx.Invalid(absl::StrCat("too many indices (", axis, ") for a rank-", rank, " tensor"));
  }
  r.single_plain = plain == 1 && masks == 0;
  if (ranks_known) r.broadcast_rank = max_rank;
  return r;
}

// The stacked [B..., k] INT64 index of `idx` (broadcast against each other).
std::string StackIndices(TranslateContext& ctx, const AxisIndices& idx) {
  std::vector<std::string> values = idx.values;
  if (values.size() > 1) {
    std::string sum = values[0];
    for (size_t i = 1; i < values.size(); ++i) sum = ctx.Op("Add", {sum, values[i]});
    std::string shape = ctx.Op("Shape", {sum});
    for (std::string& v : values) v = ctx.Op("Expand", {v, shape});
  }
  std::vector<std::string> columns;
  for (const std::string& v : values) columns.push_back(Unsqueeze(ctx, v, {-1}));
  if (columns.size() == 1) return columns[0];
  return ctx.Op("Concat", columns, {Attribute::Int("axis", -1)});
}

// Permutation that moves the indexed axes first, the others after in order.
std::vector<int64_t> IndexedFirst(const AxisIndices& idx, int64_t rank) {
  std::vector<int64_t> perm = idx.axes;
  for (int64_t a = 0; a < rank; ++a) {
    if (std::find(idx.axes.begin(), idx.axes.end(), a) == idx.axes.end()) perm.push_back(a);
  }
  return perm;
}

// For adjacent indexed axes starting at `first` > 0, torch's result keeps the
// broadcast block there: [B, before, after] -> [before, B, after].
std::vector<int64_t> BlockToTorchLayout(int64_t b_rank, int64_t first, int64_t result_rank) {
  std::vector<int64_t> perm = Iota(b_rank, b_rank + first);
  for (int64_t i = 0; i < b_rank; ++i) perm.push_back(i);
  for (int64_t i = b_rank + first; i < result_rank; ++i) perm.push_back(i);
  return perm;
}

// aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
absl::Status AtenIndexTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(AxisIndices idx, ResolveIndices(ctx, rank));
  if (idx.single_plain) {
    // Gather along one axis is exactly torch's x[..., i, ...].
    return ctx.SetOutput(0, ctx.Op("Gather", {x, idx.values[0]},
                                   {Attribute::Int("axis", idx.axes[0])}));
  }
  int64_t k = static_cast<int64_t>(idx.axes.size());
  std::string xt = Transpose(ctx, x, IndexedFirst(idx, rank));
  std::string y = ctx.Op("GatherND", {xt, StackIndices(ctx, idx)});
  if (idx.adjacent() && idx.axes[0] > 0) {
    int64_t out_rank = ctx.OutputRank(0);
    int64_t b_rank = idx.broadcast_rank.value_or(out_rank - (rank - k));
    y = Transpose(ctx, y, BlockToTorchLayout(b_rank, idx.axes[0], out_rank));
  }
  return ctx.SetOutput(0, y);
}

// x[indices] = values (accumulate: +=), as ScatterND on the indexed-first
// layout; `values` is broadcast to the indexed result's torch layout first.
absl::StatusOr<std::string> IndexPut(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  bool accumulate = false;
  if (ctx.Has("accumulate")) {  // in-place overloads carry no schema defaults
    PT2ONNX_ASSIGN_OR_RETURN(accumulate, ctx.Bool("accumulate"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string values, ctx.InputAs("values", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t values_rank, ctx.InputRank("values"));
  PT2ONNX_ASSIGN_OR_RETURN(AxisIndices idx, ResolveIndices(ctx, rank));
  int64_t k = static_cast<int64_t>(idx.axes.size());
  std::vector<int64_t> perm = IndexedFirst(idx, rank);
  std::string xt = Transpose(ctx, x, perm);
  std::string stacked = StackIndices(ctx, idx);
  // Update shape in the indexed-first layout: [B..., rest of xt...].
  std::string b_shape = ctx.Op("Slice", {ctx.Op("Shape", {stacked}), ctx.ConstantInt64s({0}),
                                         ctx.ConstantInt64s({-1})});
  std::string update_shape = b_shape;
  if (k < rank) {
    update_shape = ctx.Op("Concat", {b_shape, ShapeSlice(ctx, xt, k, rank)},
                          {Attribute::Int("axis", 0)});
  }
  // Torch aligns `values` with [before, B, after] when the indexed axes are
  // adjacent and not leading; values that only span `after` broadcast the
  // same way in both layouts.
  int64_t after = rank - 1 - idx.axes.back();
  if (idx.adjacent() && idx.axes[0] > 0 && values_rank > after) {
    // Without index metadata, `values` of full rank tells the block's rank;
    // a lower-rank `values` is taken to pair with 1-D indices.
    int64_t b_rank = idx.broadcast_rank.value_or(
        std::max<int64_t>(1, values_rank - (rank - k)));
    int64_t result_rank = b_rank + rank - k;
    std::vector<int64_t> to_torch = BlockToTorchLayout(b_rank, idx.axes[0], result_rank);
    std::string torch_shape = ctx.Op("Gather", {update_shape, ctx.ConstantInt64s(to_torch)},
                                     {Attribute::Int("axis", 0)});
    values = ctx.Op("Expand", {values, torch_shape});
    values = Transpose(ctx, values, Inverse(to_torch));
  } else {
    values = ctx.Op("Expand", {values, update_shape});
  }
  std::vector<Attribute> attrs;
  if (accumulate) attrs.push_back(Attribute::String("reduction", "add"));
  std::string yt = ctx.Op("ScatterND", {xt, stacked, values}, attrs);
  return Transpose(ctx, yt, Inverse(perm));
}

// aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor
absl::Status AtenIndexPutDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, IndexPut(ctx));
  return ctx.SetOutput(0, y);
}

// aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)
absl::Status AtenIndexPutInplace(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, IndexPut(ctx));
  return ctx.SetInPlaceResult("self", y);
}

// ---- scatters ----

// ScatterElements of `updates` into self at `index` along `dim`; with
// include_self=false the touched positions first reset to the identity.
absl::StatusOr<std::string> ScatterElements(TranslateContext& ctx, std::string updates,
                                            absl::string_view reduction, bool include_self) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, AxisArg(ctx, "dim", rank));
  if (rank == 0) {
    return ctx.Unsupported("scatter into a 0-d tensor; reshape it to 1-D before export");
  }
  Attribute axis = Attribute::Int("axis", dim);
  if (!include_self) {
    std::string identity = ctx.Op("Expand", {ReductionIdentity(ctx, dtype, reduction),
                                             ctx.Op("Shape", {index})});
    x = ctx.Op("ScatterElements", {x, index, identity}, {axis});
  }
  std::vector<Attribute> attrs = {axis};
  if (reduction != "none") attrs.push_back(Attribute::String("reduction", std::string(reduction)));
  return ctx.Op("ScatterElements", {x, index, updates}, attrs);
}

absl::StatusOr<std::string> SrcUpdates(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string src, ctx.InputAs("src", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  return SrcLikeIndex(ctx, src, index);
}

absl::StatusOr<std::string> ValueUpdates(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.InputOrScalarAs("value", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  return ctx.Op("Expand", {value, ctx.Op("Shape", {index})});
}

// scatter's legacy `reduce` strings ("add", "multiply") as ONNX reductions.
absl::StatusOr<std::string> LegacyReduce(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduce, ctx.String("reduce"));
  if (reduce == "add") return std::string("add");
  if (reduce == "multiply") return std::string("mul");
  return ctx.Unsupported(absl::StrCat("scatter reduce='", reduce, "'; use add or multiply"));
}

// Binds `y` as the result; in-place overloads (key ends in "_") rebind self.
absl::Status SetScatterResult(TranslateContext& ctx, const std::string& y) {
  absl::string_view key = ctx.key();
  absl::string_view op = key.substr(0, key.find('.'));
  if (!op.empty() && op.back() == '_') return ctx.SetInPlaceResult("self", y);
  return ctx.SetOutput(0, y);
}

// aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
absl::Status AtenScatterSrc(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string updates, SrcUpdates(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ScatterElements(ctx, updates, "none", true));
  return SetScatterResult(ctx, y);
}

// aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
absl::Status AtenScatterValue(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string updates, ValueUpdates(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ScatterElements(ctx, updates, "none", true));
  return SetScatterResult(ctx, y);
}

// aten::scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor
absl::Status AtenScatterReduce(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduction, LegacyReduce(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string updates, SrcUpdates(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ScatterElements(ctx, updates, reduction, true));
  return SetScatterResult(ctx, y);
}

// aten::scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor
absl::Status AtenScatterValueReduce(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduction, LegacyReduce(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string updates, ValueUpdates(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ScatterElements(ctx, updates, reduction, true));
  return SetScatterResult(ctx, y);
}

// aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
absl::Status AtenScatterAddDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string updates, SrcUpdates(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ScatterElements(ctx, updates, "add", true));
  return SetScatterResult(ctx, y);
}

// reduce='mean' as ATen computes it: the sum of the contributions (and of
// self when included) over their count, a count of 0 taken as 1 so untouched
// positions keep self; integers are floor-divided.
absl::Status ScatterReduceMean(TranslateContext& ctx, bool include_self) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (dtype == DataType::kBool) return ctx.Unsupported("scatter_reduce mean of bool tensors");
  PT2ONNX_ASSIGN_OR_RETURN(std::string updates, SrcUpdates(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string sum, ScatterElements(ctx, updates, "add", include_self));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of aten::scatter_reduce"));
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string one = ctx.ConstantScalar(dtype, 1);
  std::string start = ctx.Op("Expand", {include_self ? one : zero, ctx.Op("Shape", {x})});
  std::string ones = ctx.Op("Expand", {one, ctx.Op("Shape", {updates})});
  std::string count = ctx.Op("ScatterElements", {start, index, ones},
                             {Attribute::Int("axis", axis), Attribute::String("reduction", "add")});
  count = ctx.Op("Max", {count, one});
  std::string mean = ctx.Op("Div", {sum, count});
  if (!IsFloatingPoint(dtype)) {
    // Integer Div truncates: a negative inexact quotient drops by one.
    std::string inexact = ctx.Op("Not", {ctx.Op("Equal", {ctx.Op("Mul", {mean, count}), sum})});
    std::string adjust = ctx.Op("And", {inexact, ctx.Op("Less", {sum, zero})});
    mean = ctx.Op("Where", {adjust, ctx.Op("Sub", {mean, one}), mean});
  }
  return SetScatterResult(ctx, mean);
}

// aten::scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor
absl::Status AtenScatterReduceTwo(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduce, ctx.String("reduce"));
  bool include_self = true;
  if (ctx.Has("include_self")) {
    PT2ONNX_ASSIGN_OR_RETURN(include_self, ctx.Bool("include_self"));
  }
  std::string reduction;
  if (reduce == "sum") {
    reduction = "add";
  } else if (reduce == "prod") {
    reduction = "mul";
  } else if (reduce == "amax") {
    reduction = "max";
  } else if (reduce == "amin") {
    reduction = "min";
  } else if (reduce == "mean") {
    return ScatterReduceMean(ctx, include_self);
  } else {
    return ctx.Unsupported(absl::StrCat("scatter_reduce with reduce='", reduce,
                                        "'; sum, prod, mean, amax and amin are supported"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string updates, SrcUpdates(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ScatterElements(ctx, updates, reduction, include_self));
  return SetScatterResult(ctx, y);
}

// ---- index_add / index_copy / index_fill ----

// Writes `source` rows into self at `index` along `dim` (ScatterND on the
// dim-first layout). `source` is nullopt for index_fill, whose `value` is
// broadcast to the rows instead.
absl::StatusOr<std::string> IndexAlongDim(TranslateContext& ctx, bool fill,
                                          absl::string_view reduction) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType index_dtype, ctx.InputDtype("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  if (rank == 0) return ctx.Unsupported("index_add/copy/fill on a 0-d tensor");
  std::vector<int64_t> perm = {axis};
  for (int64_t a = 0; a < rank; ++a) {
    if (a != axis) perm.push_back(a);
  }
  std::string xt = Transpose(ctx, x, perm);
  std::string rows = Reshape(ctx, ctx.CastTo(index, index_dtype, DataType::kInt64), {-1, 1});
  std::string updates;
  if (fill) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.InputOrScalarAs("value", dtype));
    std::string shape = ctx.Op("Concat", {ShapeSlice(ctx, rows, 0, 1), ShapeSlice(ctx, xt, 1, rank)},
                               {Attribute::Int("axis", 0)});
    updates = ctx.Op("Expand", {value, shape});
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string source, ctx.InputAs("source", dtype));
    PT2ONNX_ASSIGN_OR_RETURN(int64_t source_rank, ctx.InputRank("source"));
    if (source_rank == 0) source = Reshape(ctx, source, std::vector<int64_t>(rank, 1));
    updates = Transpose(ctx, source, perm);
    if (ctx.Has("alpha")) {
      PT2ONNX_ASSIGN_OR_RETURN(ScalarValue alpha, ctx.Scalar("alpha"));
      if (alpha.AsDouble() != 1) {
        updates = ctx.Op("Mul", {updates, ctx.ConstantScalar(dtype, alpha.AsDouble())});
      }
    }
  }
  std::vector<Attribute> attrs;
  if (reduction != "none") attrs.push_back(Attribute::String("reduction", std::string(reduction)));
  std::string yt = ctx.Op("ScatterND", {xt, rows, updates}, attrs);
  return Transpose(ctx, yt, Inverse(perm));
}

// aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
absl::Status AtenIndexAddDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, IndexAlongDim(ctx, false, "add"));
  return SetScatterResult(ctx, y);
}

// aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor
absl::Status AtenIndexCopyDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, IndexAlongDim(ctx, false, "none"));
  return SetScatterResult(ctx, y);
}

// aten::index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
// (index_fill.int_Tensor takes a 0-d tensor `value`, read the same way)
absl::Status AtenIndexFillIntScalar(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, IndexAlongDim(ctx, true, "none"));
  return SetScatterResult(ctx, y);
}

// ---- slice_scatter / select_scatter ----

// aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor
// The written positions are Slice(Range(0, n), start, end, step): ONNX
// Slice clamps start/end exactly as Python slicing does. They become a
// ScatterElements index broadcast to `src`'s shape.
absl::Status AtenSliceScatterDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string src, ctx.InputAs("src", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t step, ctx.Int("step"));
  if (step <= 0) return ctx.Invalid(absl::StrCat("slice step must be positive, got ", step));
  if (rank == 0) return ctx.Invalid("slice_scatter into a 0-d tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", dim, rank));
  std::string start = ctx.ConstantInt64s({0});
  std::string end = ctx.ConstantInt64s({std::numeric_limits<int64_t>::max()});
  if (ctx.Has("start")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string s, ctx.SymIntAsTensor("start"));
    start = Reshape(ctx, s, {1});
  }
  if (ctx.Has("end")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string e, ctx.SymIntAsTensor("end"));
    end = Reshape(ctx, e, {1});
  }
  std::string n = Reshape(ctx, ShapeSlice(ctx, x, axis, axis + 1), {});
  std::string positions = ctx.Op("Range", {ctx.ConstantInt64(0), n, ctx.ConstantInt64(1)});
  positions = ctx.Op("Slice", {positions, start, end, ctx.ConstantInt64s({0}),
                               ctx.ConstantInt64s({step})});
  std::vector<int64_t> column(rank, 1);
  column[axis] = -1;
  std::string index = ctx.Op("Expand", {Reshape(ctx, positions, column), ctx.Op("Shape", {src})});
  return ctx.SetOutput(0, ctx.Op("ScatterElements", {x, index, src},
                                 {Attribute::Int("axis", axis)}));
}

// aten::select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor
absl::Status AtenSelectScatterDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string src, ctx.InputAs("src", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.SymIntAsTensor("index"));
  if (rank == 0) return ctx.Invalid("select_scatter into a 0-d tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", dim, rank));
  std::string updates = Unsqueeze(ctx, src, {axis});
  std::string positions = ctx.Op("Expand", {Reshape(ctx, index, std::vector<int64_t>(rank, 1)),
                                            ctx.Op("Shape", {updates})});
  return ctx.SetOutput(0, ctx.Op("ScatterElements", {x, positions, updates},
                                 {Attribute::Int("axis", axis)}));
}

}  // namespace

void RegisterIndexingOps(OpRegistry& r) {
  r.Add("aten::embedding.default", &AtenEmbeddingDefault);
  r.Add("aten::gather.default", &AtenGatherDefault);
  r.Add("aten::index_select.default", &AtenIndexSelectDefault);
  r.Add("aten::take_along_dim.default", &AtenTakeAlongDimDefault);
  r.Add("aten::index.Tensor", &AtenIndexTensor);
  r.Add("aten::_unsafe_index.Tensor", &AtenIndexTensor);
  r.Add("aten::index_put.default", &AtenIndexPutDefault);
  r.Add("aten::_unsafe_index_put.default", &AtenIndexPutDefault);
  r.Add("aten::index_put_.default", &AtenIndexPutInplace);
  r.Add("aten::scatter.src", &AtenScatterSrc);
  r.Add("aten::scatter.value", &AtenScatterValue);
  r.Add("aten::scatter.reduce", &AtenScatterReduce);
  r.Add("aten::scatter.value_reduce", &AtenScatterValueReduce);
  r.Add("aten::scatter_.src", &AtenScatterSrc);
  r.Add("aten::scatter_.value", &AtenScatterValue);
  r.Add("aten::scatter_add.default", &AtenScatterAddDefault);
  r.Add("aten::scatter_add_.default", &AtenScatterAddDefault);
  r.Add("aten::scatter_reduce.two", &AtenScatterReduceTwo);
  r.Add("aten::scatter_reduce_.two", &AtenScatterReduceTwo);
  r.Add("aten::index_add.default", &AtenIndexAddDefault);
  r.Add("aten::index_add_.default", &AtenIndexAddDefault);
  r.Add("aten::index_copy.default", &AtenIndexCopyDefault);
  r.Add("aten::index_copy_.default", &AtenIndexCopyDefault);
  r.Add("aten::index_fill.int_Scalar", &AtenIndexFillIntScalar);
  r.Add("aten::index_fill.int_Tensor", &AtenIndexFillIntScalar);
  r.Add("aten::index_fill_.int_Scalar", &AtenIndexFillIntScalar);
  r.Add("aten::index_fill_.int_Tensor", &AtenIndexFillIntScalar);
  r.Add("aten::slice_scatter.default", &AtenSliceScatterDefault);
  r.Add("aten::select_scatter.default", &AtenSelectScatterDefault);
}

}  // namespace pt2onnx::ops
