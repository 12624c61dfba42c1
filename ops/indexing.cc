// File: ops/indexing.cc
// -----------------------------------------------------------------------------
// Indexing: embedding, gather, index_select, take_along_dim, advanced
// indexing (index.Tensor) and its write twin index_put. The scatter family
// and the other writes at indices are in scatter.cc.
//
// Advanced indexing x[i0, :, i2] is lowered as torch defines it: the indexed
// axes move to the front (Transpose), the broadcast index tensors stack into
// one [B..., k] index, and GatherND / ScatterND do the work; when the indexed
// axes were adjacent, torch keeps the broadcast block B where they were, so a
// final Transpose puts it back. Bool masks become their NonZero coordinates
// first, as torch does. ScatterND's `reduction` covers add (accumulate=True)
// since opset 16, so one translation serves the whole range 18..23.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
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

// FX metadata of element `j` of a Tensor[] / Tensor?[] argument; nullptr when
// the element is None or its metadata is unknown.
const pt2::TensorMeta* ElementMeta(const TranslateContext& ctx, absl::string_view arg,
                                   size_t j) {
  return ctx.InputListMeta(arg, j);
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
  std::vector<std::optional<std::vector<int64_t>>> static_shapes;  // per value, when known
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
        r.static_shapes.push_back(std::nullopt);
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
    r.static_shapes.push_back(StaticSizes(meta));
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

// The numpy broadcast of the index shapes when every one is static and they
// are compatible; nullopt otherwise (then it is computed at run time).
std::optional<std::vector<int64_t>> StaticBroadcast(const AxisIndices& idx) {
  std::vector<int64_t> out;
  for (const std::optional<std::vector<int64_t>>& shape : idx.static_shapes) {
    if (!shape) return std::nullopt;
    if (shape->size() > out.size()) out.insert(out.begin(), shape->size() - out.size(), 1);
    const size_t offset = out.size() - shape->size();
    for (size_t k = 0; k < shape->size(); ++k) {
      const int64_t d = (*shape)[k];
      int64_t& o = out[offset + k];
      if (d < 0) return std::nullopt;
      if (o == 1) {
        o = d;
      } else if (d != 1 && d != o) {
        return std::nullopt;
      }
    }
  }
  return out;
}

// The stacked [B..., k] INT64 index of `idx` (broadcast against each other).
std::string StackIndices(TranslateContext& ctx, const AxisIndices& idx) {
  std::vector<std::string> values = idx.values;
  std::optional<std::vector<int64_t>> broadcast =
      values.size() > 1 ? StaticBroadcast(idx) : std::nullopt;
  if (broadcast) {
    // Known shapes: only the indices that differ from the broadcast expand.
    for (size_t i = 0; i < values.size(); ++i) {
      if (*idx.static_shapes[i] == *broadcast) continue;
      values[i] = ctx.Op("Expand", {values[i], ctx.ConstantInt64s(*broadcast)});
    }
  } else if (values.size() > 1) {
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
  std::string xt = TransposeBy(ctx, x, IndexedFirst(idx, rank));
  std::string y = ctx.Op("GatherND", {xt, StackIndices(ctx, idx)});
  if (idx.adjacent() && idx.axes[0] > 0) {
    int64_t out_rank = ctx.OutputRank(0);
    int64_t b_rank = idx.broadcast_rank.value_or(out_rank - (rank - k));
    y = TransposeBy(ctx, y, BlockToTorchLayout(b_rank, idx.axes[0], out_rank));
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
  std::string xt = TransposeBy(ctx, x, perm);
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
    values = TransposeBy(ctx, values, InversePermutation(to_torch));
  } else {
    values = ctx.Op("Expand", {values, update_shape});
  }
  std::vector<Attribute> attrs;
  if (accumulate) attrs.push_back(Attribute::String("reduction", "add"));
  std::string yt = ctx.Op("ScatterND", {xt, stacked, values}, attrs);
  return TransposeBy(ctx, yt, InversePermutation(perm));
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
}

}  // namespace pt2onnx::ops
