// File: ops/scatter.cc
// -----------------------------------------------------------------------------
// Writes at indices: the scatter family (scatter, scatter_add,
// scatter_reduce), index_add/index_copy/index_fill, slice_scatter and
// select_scatter. ScatterElements/ScatterND `reduction` covers add/mul since
// opset 16 and max/min since 18, so one translation serves the whole range
// 18..23. index_put, the write twin of advanced indexing, is in indexing.cc.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/reduce_helpers.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

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
                          ctx.Op("Shape", {index}), ctx.ConstantInt64s(Iota(rank))});
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
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", std::max<int64_t>(rank, 1)));
  // A 0-d self is one row of a 1-D tensor (torch accepts dim 0/-1 and a
  // one-element index there).
  const bool scalar = rank == 0;
  if (scalar) {
    x = Reshape(ctx, x, {1});
    rank = 1;
  }
  std::vector<int64_t> perm = {axis};
  for (int64_t a = 0; a < rank; ++a) {
    if (a != axis) perm.push_back(a);
  }
  std::string xt = TransposeBy(ctx, x, perm);
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
    if (source_rank == 0 || scalar) source = Reshape(ctx, source, std::vector<int64_t>(rank, 1));
    updates = TransposeBy(ctx, source, perm);
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
  if (scalar) return Reshape(ctx, yt, {});
  return TransposeBy(ctx, yt, InversePermutation(perm));
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

void RegisterScatterOps(OpRegistry& r) {
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
