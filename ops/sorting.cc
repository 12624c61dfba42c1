// File: ops/sorting.cc
// -----------------------------------------------------------------------------
// Sorting and selection: topk, sort, argsort, msort, kthvalue, median,
// nanmedian, mode.
//
// Every translation produces torch's *stable* order: ascending or descending
// by value, equal values in index order, NaN above every number (last when
// ascending, first when descending), as torch's CPU sort orders them. ONNX
// TopK (sorted=1) keeps equal values in index order, which ONNX Runtime
// implements for the key types used here (float, double, int32, int64), but
// it leaves NaN unspecified; so float inputs are ordered by a composite key:
// a first TopK by value with NaN replaced by 0, then a second, stable TopK by
// "is NaN" over that order (least-significant key first, as in radix sort).
//
// torch's non-stable variants (stable=False, topk) order equal values in an
// unspecified way (their CPU kernels use an introsort whose tie order is an
// implementation detail); the stable order is one of the orders torch's
// contract allows, and the values are exactly torch's. topk with
// sorted=False likewise returns an unspecified order in torch; the sorted
// order is returned here. kthvalue / median / nanmedian select with a
// quickselect in torch, so which of several equal values' index they return
// is unspecified too; the value is exact, and the index is the one at that
// position of the stable order.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// The tensor to order, with the checked axis. A 0-d tensor is ordered as a
// one-element vector (torch returns it with index 0).
struct Sortable {
  std::string x;
  DataType dtype = DataType::kUndefined;
  int64_t axis = 0;
  bool was_scalar = false;
  std::optional<int64_t> static_length;  // size along axis when static
};

absl::StatusOr<Sortable> ReadSortable(TranslateContext& ctx, std::optional<int64_t> dim) {
  Sortable s;
  PT2ONNX_ASSIGN_OR_RETURN(s.x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(s.dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(
      s.axis, CheckedAxis(dim.value_or(0), rank, absl::StrCat("dim of ", ctx.key())));
  if (rank == 0) {
    s.x = Unsqueeze(ctx, s.x, {0});
    s.was_scalar = true;
    s.static_length = 1;
  } else if (!meta->sizes[s.axis].is_symbolic) {
    s.static_length = meta->sizes[s.axis].value;
  }
  return s;
}

// The size along the axis as a 1-D INT64 value.
std::string Length(TranslateContext& ctx, const Sortable& s) {
  if (s.static_length.has_value()) return ctx.ConstantInt64s({*s.static_length});
  return ShapeSlice(ctx, s.x, s.axis, s.axis + 1);
}

// A TopK key type ONNX Runtime orders stably with the same order as `dtype`.
absl::StatusOr<std::string> OrderKey(TranslateContext& ctx, const Sortable& s) {
  switch (s.dtype) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kInt32:
    case DataType::kInt64:
      return s.x;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      // Exact widening, at every opset: TopK-24 takes bfloat16, but ONNX
      // Runtime 1.32 has no bfloat16 TopK kernel and the order is the same.
      return ctx.CastTo(s.x, s.dtype, DataType::kFloat);
    case DataType::kBool:
    case DataType::kUint8:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kUint16:
      return ctx.CastTo(s.x, s.dtype, DataType::kInt32);
    case DataType::kUint32:
      return ctx.CastTo(s.x, s.dtype, DataType::kInt64);
    default:
      return ctx.Unsupported(absl::StrCat("ordering ", DataTypeName(s.dtype),
                                          " tensors is not supported"));
  }
}

std::string TopKIndices(TranslateContext& ctx, const std::string& key, const std::string& k,
                        int64_t axis, bool largest) {
  return ctx.AddNode("TopK", {key, k},
                     {ir::Attribute::Int("axis", axis),
                      ir::Attribute::Int("largest", largest ? 1 : 0),
                      ir::Attribute::Int("sorted", 1)},
                     2)[1];
}

// Indices (int64) of the first `k` elements of the stable order along the
// axis (`k` a 1-D INT64 value).
absl::StatusOr<std::string> StableOrder(TranslateContext& ctx, const Sortable& s,
                                        const std::string& k, bool descending) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string key, OrderKey(ctx, s));
  if (!IsFloatingPoint(s.dtype)) return TopKIndices(ctx, key, k, s.axis, descending);
  DataType key_dtype = s.dtype == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
  std::string nan = ctx.Op("IsNaN", {key});
  std::string by_value = ctx.Op("Where", {nan, ctx.ConstantScalar(key_dtype, 0), key});
  std::string order = TopKIndices(ctx, by_value, Length(ctx, s), s.axis, descending);
  std::string nan_key = ctx.CastTo(nan, DataType::kBool, DataType::kInt32);
  std::string nan_in_order =
      ctx.Op("GatherElements", {nan_key, order}, {ir::Attribute::Int("axis", s.axis)});
  std::string nan_last = TopKIndices(ctx, nan_in_order, k, s.axis, descending);
  return ctx.Op("GatherElements", {order, nan_last}, {ir::Attribute::Int("axis", s.axis)});
}

std::string ValuesAt(TranslateContext& ctx, const Sortable& s, const std::string& indices) {
  return ctx.Op("GatherElements", {s.x, indices}, {ir::Attribute::Int("axis", s.axis)});
}

std::string Unscalar(TranslateContext& ctx, const Sortable& s, const std::string& v) {
  return s.was_scalar ? Squeeze(ctx, v, {0}) : v;
}

// Binds (values, indices), skipping whichever the program does not read.
absl::Status BindSorted(TranslateContext& ctx, const Sortable& s, const std::string& indices) {
  if (ctx.OutputUsed(0)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Unscalar(ctx, s, ValuesAt(ctx, s, indices))));
  }
  if (ctx.num_outputs() > 1 && ctx.OutputUsed(1)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, Unscalar(ctx, s, indices)));
  }
  return absl::OkStatus();
}

absl::Status SortAlong(TranslateContext& ctx, int64_t dim, bool descending, bool values_too) {
  PT2ONNX_ASSIGN_OR_RETURN(Sortable s, ReadSortable(ctx, dim));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, StableOrder(ctx, s, Length(ctx, s), descending));
  if (values_too) return BindSorted(ctx, s, indices);
  return ctx.SetOutput(0, Unscalar(ctx, s, indices));
}

absl::StatusOr<bool> Descending(const TranslateContext& ctx) {
  if (!ctx.Has("descending")) return false;
  return ctx.Bool("descending");
}

// aten::sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
// aten::sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
absl::Status AtenSort(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool descending, Descending(ctx));
  return SortAlong(ctx, dim, descending, /*values_too=*/true);
}

// aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor
// aten::argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor
absl::Status AtenArgsort(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool descending, Descending(ctx));
  return SortAlong(ctx, dim, descending, /*values_too=*/false);
}

// torch.msort(x) is torch.sort(x, dim=0).values.
// aten::msort(Tensor self) -> Tensor
absl::Status AtenMsort(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Sortable s, ReadSortable(ctx, 0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, StableOrder(ctx, s, Length(ctx, s), false));
  return ctx.SetOutput(0, Unscalar(ctx, s, ValuesAt(ctx, s, indices)));
}

// k is checked against a static size (torch: "selected index k out of
// range"); a symbolic k or size is left to ONNX Runtime's own check.
// aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
absl::Status AtenTopk(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool largest, ctx.Bool("largest"));
  PT2ONNX_ASSIGN_OR_RETURN(Sortable s, ReadSortable(ctx, dim));
  std::string k;
  absl::StatusOr<int64_t> static_k = ctx.Int("k");
  if (static_k.ok()) {
    if (*static_k < 0 || (s.static_length.has_value() && *static_k > *s.static_length)) {
      return ctx.Invalid(absl::StrCat("k=", *static_k, " is out of range for a dimension of size ",
                                      s.static_length.value_or(-1)));
    }
    k = ctx.ConstantInt64s({*static_k});
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string k0, ctx.SymIntAsTensor("k"));
    k = Unsqueeze(ctx, k0, {0});
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, StableOrder(ctx, s, k, largest));
  return BindSorted(ctx, s, indices);
}

// The element at `position` (keepdims-shaped INT64) of the stable ascending
// order: (value, index), with the sorted axis kept or dropped.
absl::Status BindSelected(TranslateContext& ctx, const Sortable& s, const std::string& order,
                          const std::string& position, bool keepdim) {
  std::string index =
      ctx.Op("GatherElements", {order, position}, {ir::Attribute::Int("axis", s.axis)});
  auto shaped = [&](const std::string& v) {
    return keepdim && !s.was_scalar ? v : Squeeze(ctx, v, {s.axis});
  };
  if (ctx.OutputUsed(0) || ctx.num_outputs() == 1) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, shaped(ValuesAt(ctx, s, index))));
  }
  if (ctx.num_outputs() > 1 && ctx.OutputUsed(1)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, shaped(index)));
  }
  return absl::OkStatus();
}

// `position` (0-d or keepdims-shaped) broadcast to one entry per row: the
// shape of `order` with the sorted axis of size 1.
std::string AcrossRows(TranslateContext& ctx, const Sortable& s, const std::string& order,
                       const std::string& position) {
  std::string row_shape = ctx.Op("ScatterElements", {ctx.Op("Shape", {order}),
                                                     ctx.ConstantInt64s({s.axis}),
                                                     ctx.ConstantInt64s({1})});
  return ctx.Op("Expand", {position, row_shape});
}

absl::StatusOr<bool> KeepDim(const TranslateContext& ctx) {
  if (!ctx.Has("keepdim")) return false;
  return ctx.Bool("keepdim");
}

// k is 1-based; a static k outside [1, size] is torch's "selected number k
// out of range".
// aten::kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status AtenKthvalue(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, KeepDim(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(Sortable s, ReadSortable(ctx, dim));
  std::string position;
  absl::StatusOr<int64_t> static_k = ctx.Int("k");
  if (static_k.ok()) {
    if (*static_k < 1 || (s.static_length.has_value() && *static_k > *s.static_length)) {
      return ctx.Invalid(absl::StrCat("selected number k=", *static_k, " out of range"));
    }
    position = ctx.ConstantInt64(*static_k - 1);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string k, ctx.SymIntAsTensor("k"));
    position = ctx.Op("Sub", {k, ctx.ConstantInt64(1)});
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string order, StableOrder(ctx, s, Length(ctx, s), false));
  return BindSelected(ctx, s, order, AcrossRows(ctx, s, order, position), keepdim);
}

// torch's median is the lower median, sorted[(n - 1) / 2]; with any NaN in
// the row, median returns the first NaN (the NaN of lowest index), while
// nanmedian takes the lower median of the other values (NaN when all are).
absl::Status Median(TranslateContext& ctx, std::optional<int64_t> dim, bool keepdim,
                    bool skip_nan) {
  PT2ONNX_ASSIGN_OR_RETURN(Sortable s, ReadSortable(ctx, dim));
  if (!dim.has_value() && !s.was_scalar) {
    s.x = Reshape(ctx, s.x, {-1});  // median over all elements
    s.axis = 0;
    s.static_length.reset();
    PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
    int64_t count = 1;
    for (const pt2::SymInt& size : meta->sizes) {
      bool overflows = size.value > 0 && count > INT64_MAX / size.value;
      if (size.is_symbolic || size.value < 0 || overflows) {
        count = -1;
        break;
      }
      count *= size.value;
    }
    if (count >= 0) s.static_length = count;
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string order, StableOrder(ctx, s, Length(ctx, s), false));
  std::string n = Length(ctx, s);  // 1-D; broadcasts against keepdims shapes
  std::string one = ctx.ConstantInt64(1);
  std::string two = ctx.ConstantInt64(2);
  std::string position;
  if (!IsFloatingPoint(s.dtype)) {
    position = AcrossRows(ctx, s, order, ctx.Op("Div", {ctx.Op("Sub", {n, one}), two}));
  } else {
    std::string is_nan = ctx.CastTo(ctx.Op("IsNaN", {s.x}), DataType::kBool, DataType::kInt64);
    std::string nans = ctx.Op("ReduceSum", {is_nan, ctx.ConstantInt64s({s.axis})},
                              {ir::Attribute::Int("keepdims", 1)});
    std::string numbers = ctx.Op("Sub", {n, nans});
    std::string lower_median =
        ctx.Op("Div", {ctx.Op("Max", {ctx.Op("Sub", {numbers, one}), ctx.ConstantInt64(0)}), two});
    position = skip_nan ? lower_median
                        : ctx.Op("Where", {ctx.Op("Greater", {nans, ctx.ConstantInt64(0)}), numbers,
                                           lower_median});
  }
  return BindSelected(ctx, s, order, position, keepdim);
}

// aten::median(Tensor self) -> Tensor
absl::Status AtenMedian(TranslateContext& ctx) { return Median(ctx, std::nullopt, false, false); }
// aten::nanmedian(Tensor self) -> Tensor
absl::Status AtenNanmedian(TranslateContext& ctx) { return Median(ctx, std::nullopt, false, true); }

// aten::median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status AtenMedianDim(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, KeepDim(ctx));
  return Median(ctx, dim, keepdim, false);
}
// aten::nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status AtenNanmedianDim(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, KeepDim(ctx));
  return Median(ctx, dim, keepdim, true);
}

// torch's CPU kernel sorts each row and keeps the first (smallest) value of
// the highest frequency; its index is that of some occurrence (the sort is
// not stable), here the first in index order. Rows with NaN have no defined
// mode in torch (NaN breaks its sort); here every NaN counts once.
// aten::mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status AtenMode(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, KeepDim(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(Sortable s, ReadSortable(ctx, dim));
  PT2ONNX_ASSIGN_OR_RETURN(std::string order, StableOrder(ctx, s, Length(ctx, s), false));
  ir::Attribute axis = ir::Attribute::Int("axis", s.axis);
  std::string sorted = ctx.Op("GatherElements", {s.x, order}, {axis});
  // Runs of equal values: a run starts where the value differs from the one before.
  std::string axes = ctx.ConstantInt64s({s.axis});
  std::string big = ctx.ConstantInt64s({INT64_MAX});
  std::string zero = ctx.ConstantInt64s({0});
  std::string one = ctx.ConstantInt64s({1});
  std::string previous = ctx.Op("Slice", {sorted, zero, ctx.ConstantInt64s({-1}), axes});
  std::string current = ctx.Op("Slice", {sorted, one, big, axes});
  std::string first = ctx.Op("Slice", {sorted, zero, one, axes});
  std::string first_flag =
      ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, 1), ctx.Op("Shape", {first})});
  std::string changed = ctx.Op("Not", {ctx.Op("Equal", {current, previous})});
  std::string starts = ctx.Op("Concat", {first_flag, changed}, {axis});
  std::string starts_int = ctx.CastTo(starts, DataType::kBool, DataType::kInt64);
  std::string run = ctx.Op(
      "Sub", {ctx.Op("CumSum", {starts_int, ctx.ConstantInt64(s.axis)}), ctx.ConstantInt64(1)});
  std::string shape = ctx.Op("Shape", {order});
  std::string zeros = ctx.Op("Expand", {ctx.ConstantInt64(0), shape});
  std::string ones = ctx.Op("Expand", {ctx.ConstantInt64(1), shape});
  std::string counts = ctx.Op("ScatterElements", {zeros, run, ones},
                              {axis, ir::Attribute::String("reduction", "add")});
  std::string frequency = ctx.Op("GatherElements", {counts, run}, {axis});
  std::string best = ctx.Op("ArgMax", {frequency}, {axis, ir::Attribute::Int("keepdims", 1)});
  return BindSelected(ctx, s, order, best, keepdim);
}

}  // namespace

void RegisterSortingOps(OpRegistry& r) {
  r.Add("aten::topk.default", &AtenTopk);
  r.Add("aten::sort.default", &AtenSort);
  r.Add("aten::sort.stable", &AtenSort);
  r.Add("aten::argsort.default", &AtenArgsort);
  r.Add("aten::argsort.stable", &AtenArgsort);
  r.Add("aten::msort.default", &AtenMsort);
  r.Add("aten::kthvalue.default", &AtenKthvalue);
  r.Add("aten::median.default", &AtenMedian);
  r.Add("aten::median.dim", &AtenMedianDim);
  r.Add("aten::nanmedian.default", &AtenNanmedian);
  r.Add("aten::nanmedian.dim", &AtenNanmedianDim);
  r.Add("aten::mode.default", &AtenMode);
}

}  // namespace pt2onnx::ops
