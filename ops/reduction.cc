// File: ops/reduction.cc
// -----------------------------------------------------------------------------
// Reductions: sum/mean/prod, amax/amin/max/min, argmax/argmin, all/any,
// cumsum, logsumexp, vector norms, count_nonzero. var/std are in
// variance.cc.
//
// Since opset 18 every Reduce* op takes its axes as an optional INPUT, and an
// omitted axes input (with noop_with_empty_axes=0) reduces every dimension,
// which is how the "reduce all" overloads are emitted. All translations here
// hold for the whole range 18..23: later opsets only widened type lists.
//
// Result dtypes follow torch (ctx.OutputDtype): integer and bool sums and
// products accumulate in int64, so inputs are cast to the result dtype first.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/reduce_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Sum-like reduction (ReduceSum / ReduceMean / ReduceProd) in the output dtype.
absl::Status ReduceInOutputDtype(TranslateContext& ctx, absl::string_view op_type,
                                 const std::vector<int64_t>& axes, bool keepdim) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, SelfAsOutputDtype(ctx));
  return ctx.SetOutput(0, Reduce(ctx, op_type, x, axes, keepdim));
}

// ReduceMax / ReduceMin. Bool and int16 inputs go through int32 (exact): the
// bool variants only exist from opset 20 and ONNX Runtime does not implement
// them everywhere; ONNX has no int16 variant at any opset.
absl::StatusOr<std::string> ReduceMaxMin(TranslateContext& ctx, absl::string_view op_type,
                                         const std::vector<int64_t>& axes, bool keepdim) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (dtype != DataType::kBool && dtype != DataType::kInt16) {
    return Reduce(ctx, op_type, x, axes, keepdim);
  }
  std::string as_int = ctx.CastTo(x, dtype, DataType::kInt32);
  return ctx.CastTo(Reduce(ctx, op_type, as_int, axes, keepdim), DataType::kInt32, dtype);
}

// `int[1]? dim` (none or empty: every axis) as checked axes, and `keepdim`.
struct DimsAndKeepdim {
  std::vector<int64_t> axes;
  bool keepdim = false;
};

absl::StatusOr<DimsAndKeepdim> ReducedDimsArgs(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, OptionalDims(ctx, "dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  return DimsAndKeepdim{std::move(axes), keepdim};
}

// `op_type` over `dim`, in the output dtype (sum, mean, logsumexp).
absl::Status ReduceOverDims(TranslateContext& ctx, absl::string_view op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(DimsAndKeepdim dims, ReducedDimsArgs(ctx));
  return ReduceInOutputDtype(ctx, op_type, dims.axes, dims.keepdim);
}

// ReduceMax / ReduceMin over `dim` (amax, amin).
absl::Status MaxMinOverDims(TranslateContext& ctx, absl::string_view op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(DimsAndKeepdim dims, ReducedDimsArgs(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ReduceMaxMin(ctx, op_type, dims.axes, dims.keepdim));
  return ctx.SetOutput(0, y);
}

// ---- sum / mean / prod ----

// aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenSumDefault(TranslateContext& ctx) {
  return ReduceInOutputDtype(ctx, "ReduceSum", {}, false);
}

// aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenSumDimIntList(TranslateContext& ctx) {
  return ReduceOverDims(ctx, "ReduceSum");
}

// aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenMeanDefault(TranslateContext& ctx) {
  return ReduceInOutputDtype(ctx, "ReduceMean", {}, false);
}

// aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenMeanDim(TranslateContext& ctx) {
  return ReduceOverDims(ctx, "ReduceMean");
}

// aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenProdDefault(TranslateContext& ctx) {
  return ReduceInOutputDtype(ctx, "ReduceProd", {}, false);
}

// aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenProdDimInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReducedAxes(ctx, "dim", {dim}, rank));
  return ReduceInOutputDtype(ctx, "ReduceProd", axes, keepdim);
}

// ---- amax / amin / max / min ----

// aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
absl::Status AtenAmaxDefault(TranslateContext& ctx) {
  return MaxMinOverDims(ctx, "ReduceMax");
}

// aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
absl::Status AtenAminDefault(TranslateContext& ctx) {
  return MaxMinOverDims(ctx, "ReduceMin");
}

// aten::max(Tensor self) -> Tensor
absl::Status AtenMaxDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ReduceMaxMin(ctx, "ReduceMax", {}, false));
  return ctx.SetOutput(0, y);
}

// aten::min(Tensor self) -> Tensor
absl::Status AtenMinDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ReduceMaxMin(ctx, "ReduceMin", {}, false));
  return ctx.SetOutput(0, y);
}

// ArgMax / ArgMin over one axis. Bool inputs go through int32 (no bool
// variant in ONNX), int16 ones too (ONNX Runtime has no int16 kernel).
// select_last_index=0: torch returns the first extremum.
absl::StatusOr<std::string> ArgReduce(TranslateContext& ctx, absl::string_view op_type,
                                      const std::string& x, DataType dtype, int64_t axis,
                                      bool keepdim) {
  const bool widened = dtype == DataType::kBool || dtype == DataType::kInt16;
  std::string input = widened ? ctx.CastTo(x, dtype, DataType::kInt32) : x;
  return ctx.Op(op_type, {input},
                {Attribute::Int("axis", axis), Attribute::Int("keepdims", keepdim ? 1 : 0),
                 Attribute::Int("select_last_index", 0)});
}

// max.dim / min.dim -> (values, indices).
absl::Status ValuesAndIndices(TranslateContext& ctx, absl::string_view reduce_op,
                              absl::string_view arg_op) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  if (rank == 0) {
    // A 0-d input is its own extremum, at index 0.
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, x));
    return ctx.SetOutput(1, ctx.ConstantInt64(0));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string values, ReduceMaxMin(ctx, reduce_op, {axis}, keepdim));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ArgReduce(ctx, arg_op, x, dtype, axis, keepdim));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, values));
  return ctx.SetOutput(1, indices);
}

// aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status AtenMaxDim(TranslateContext& ctx) {
  return ValuesAndIndices(ctx, "ReduceMax", "ArgMax");
}

// aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status AtenMinDim(TranslateContext& ctx) {
  return ValuesAndIndices(ctx, "ReduceMin", "ArgMin");
}

// argmax/argmin with `int? dim`: None flattens first, and keepdim then keeps
// every dimension as size 1 (the FX output rank says which).
absl::Status ArgMaxMin(TranslateContext& ctx, absl::string_view arg_op) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (dim.has_value()) {
    PT2ONNX_RETURN_IF_ERROR(CheckedAxis(ctx, "dim", *dim, rank).status());
  }
  if (dim.has_value() && rank > 0) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", *dim, rank));
    PT2ONNX_ASSIGN_OR_RETURN(std::string y, ArgReduce(ctx, arg_op, x, dtype, axis, keepdim));
    return ctx.SetOutput(0, y);
  }
  std::string flat = Reshape(ctx, x, {-1});
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ArgReduce(ctx, arg_op, flat, dtype, 0, false));
  int64_t out_rank = ctx.OutputRank(0);
  if (out_rank > 0) y = Reshape(ctx, y, std::vector<int64_t>(out_rank, 1));
  return ctx.SetOutput(0, y);
}

// aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
absl::Status AtenArgmaxDefault(TranslateContext& ctx) { return ArgMaxMin(ctx, "ArgMax"); }

// aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
absl::Status AtenArgminDefault(TranslateContext& ctx) { return ArgMaxMin(ctx, "ArgMin"); }

// ---- all / any ----

// all: ReduceMin over the truth values as int32 (an empty reduction gives
// INT32_MAX -> True, as torch). any: ReduceMax > 0 (empty gives INT32_MIN ->
// False). uint8 inputs keep a uint8 result in torch, so the result is cast
// to the FX output dtype.
absl::Status AllAny(TranslateContext& ctx, bool is_all, const std::vector<int64_t>& axes,
                    bool keepdim) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  std::string truth = ctx.CastTo(x, dtype, DataType::kBool);
  std::string as_int = ctx.CastTo(truth, DataType::kBool, DataType::kInt32);
  std::string result;
  if (is_all) {
    std::string reduced = Reduce(ctx, "ReduceMin", as_int, axes, keepdim);
    result = ctx.CastTo(reduced, DataType::kInt32, DataType::kBool);
  } else {
    std::string reduced = Reduce(ctx, "ReduceMax", as_int, axes, keepdim);
    result = ctx.Op("Greater", {reduced, ctx.ConstantScalar(DataType::kInt32, 0)});
  }
  DataType out = ctx.OutputDtype(0);
  if (out != DataType::kUndefined) result = ctx.CastTo(result, DataType::kBool, out);
  return ctx.SetOutput(0, result);
}

absl::Status AllAnyDims(TranslateContext& ctx, bool is_all) {
  PT2ONNX_ASSIGN_OR_RETURN(DimsAndKeepdim dims, ReducedDimsArgs(ctx));
  return AllAny(ctx, is_all, dims.axes, dims.keepdim);
}

// aten::all(Tensor self) -> Tensor
absl::Status AtenAllDefault(TranslateContext& ctx) { return AllAny(ctx, true, {}, false); }
// aten::all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
absl::Status AtenAllDim(TranslateContext& ctx) { return AllAnyDims(ctx, true); }
// aten::all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
absl::Status AtenAllDims(TranslateContext& ctx) { return AllAnyDims(ctx, true); }
// aten::any(Tensor self) -> Tensor
absl::Status AtenAnyDefault(TranslateContext& ctx) { return AllAny(ctx, false, {}, false); }
// aten::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
absl::Status AtenAnyDim(TranslateContext& ctx) { return AllAnyDims(ctx, false); }
// aten::any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
absl::Status AtenAnyDims(TranslateContext& ctx) { return AllAnyDims(ctx, false); }

// ---- cumsum / logsumexp / norms / count_nonzero ----

// aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenCumsumDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, SelfAsOutputDtype(ctx));
  if (rank == 0) return ctx.SetOutput(0, x);  // a 0-d cumsum is the value itself
  // ONNX's CumSum has no 8- or 16-bit integers: summed as int32 and wrapped
  // back, the same bits as ATen's sum in the dtype.
  const DataType dtype = ctx.OutputDtype(0);
  if (IsInteger(dtype) && ElementSize(dtype) < 4) {
    std::string sum = ctx.Op("CumSum", {ctx.CastTo(x, dtype, DataType::kInt32), ctx.ConstantInt64(axis)});
    return ctx.SetOutput(0, ctx.CastTo(sum, DataType::kInt32, dtype));
  }
  return ctx.SetOutput(0, ctx.Op("CumSum", {x, ctx.ConstantInt64(axis)}));
}

// aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
// ONNX Runtime's ReduceLogSumExp subtracts the maximum first, as torch does.
absl::Status AtenLogsumexpDefault(TranslateContext& ctx) {
  return ReduceOverDims(ctx, "ReduceLogSumExp");
}

// ||x||_ord over `axes` in the output dtype: 2 -> ReduceL2, 1 -> ReduceL1,
// +-inf -> max/min of |x|, 0 -> count of non-zeros, else (sum |x|^p)^(1/p).
// Half-precision norms are computed in float32, as ATen's norm kernels
// accumulate (|x|^p of a float16 overflows long before the norm does).
absl::Status VectorNorm(TranslateContext& ctx, double ord, const std::vector<int64_t>& axes,
                        bool keepdim) {
  const DataType out_dtype = ctx.OutputDtype(0);
  const DataType dtype = ElementSize(out_dtype) == 2 && IsFloatingPoint(out_dtype) ? DataType::kFloat : out_dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string out_x, SelfAsOutputDtype(ctx));
  std::string x = ctx.CastTo(out_x, out_dtype, dtype);
  std::string y;
  if (ord == 2) {
    y = Reduce(ctx, "ReduceL2", x, axes, keepdim);
  } else if (ord == 1) {
    y = Reduce(ctx, "ReduceL1", x, axes, keepdim);
  } else if (std::isinf(ord)) {
    y = Reduce(ctx, ord > 0 ? "ReduceMax" : "ReduceMin", ctx.Op("Abs", {x}), axes, keepdim);
  } else if (ord == 0) {
    std::string nonzero = ctx.Op("Not", {ctx.Op("Equal", {x, ctx.ConstantScalar(dtype, 0)})});
    y = Reduce(ctx, "ReduceSum", ctx.CastTo(nonzero, DataType::kBool, dtype), axes, keepdim);
  } else {
    std::string powered = ctx.Op("Pow", {ctx.Op("Abs", {x}), ctx.ConstantScalar(dtype, ord)});
    std::string sum = Reduce(ctx, "ReduceSum", powered, axes, keepdim);
    y = ctx.Op("Pow", {sum, ctx.ConstantScalar(dtype, 1.0 / ord)});
  }
  return ctx.SetOutput(0, ctx.CastTo(y, dtype, out_dtype));
}

// aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenLinalgVectorNormDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue ord, ctx.Scalar("ord"));
  PT2ONNX_ASSIGN_OR_RETURN(DimsAndKeepdim dims, ReducedDimsArgs(ctx));
  return VectorNorm(ctx, ord.AsDouble(), dims.axes, dims.keepdim);
}

// aten::norm.Scalar(Tensor self, Scalar p=2) -> Tensor
absl::Status AtenNormScalar(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue p, ctx.Scalar("p"));
  return VectorNorm(ctx, p.AsDouble(), {}, false);
}

// aten::norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
absl::Status AtenNormScalarOptDim(TranslateContext& ctx) {
  double p = 2;
  if (ctx.Has("p")) {
    PT2ONNX_ASSIGN_OR_RETURN(ScalarValue v, ctx.Scalar("p"));
    p = v.AsDouble();
  }
  PT2ONNX_ASSIGN_OR_RETURN(DimsAndKeepdim dims, ReducedDimsArgs(ctx));
  return VectorNorm(ctx, p, dims.axes, dims.keepdim);
}

absl::Status CountNonzero(TranslateContext& ctx, const std::vector<int64_t>& axes) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  std::string truth = ctx.CastTo(x, dtype, DataType::kBool);
  std::string counts = ctx.CastTo(truth, DataType::kBool, DataType::kInt64);
  return ctx.SetOutput(0, Reduce(ctx, "ReduceSum", counts, axes, false));
}

// aten::count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor
// An empty `dim` list counts over every dimension, like None.
absl::Status AtenCountNonzeroDimIntList(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, OptionalDims(ctx, "dim", rank));
  return CountNonzero(ctx, axes);
}

// aten::count_nonzero(Tensor self, int? dim=None) -> Tensor
absl::Status AtenCountNonzeroDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  std::vector<int64_t> axes;
  if (dim.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(axes, ReducedAxes(ctx, "dim", {*dim}, rank));
  }
  return CountNonzero(ctx, axes);
}

}  // namespace

void RegisterReductionOps(OpRegistry& r) {
  r.Add("aten::sum.default", &AtenSumDefault);
  r.Add("aten::sum.dim_IntList", &AtenSumDimIntList);
  r.Add("aten::mean.default", &AtenMeanDefault);
  r.Add("aten::mean.dim", &AtenMeanDim);
  r.Add("aten::prod.default", &AtenProdDefault);
  r.Add("aten::prod.dim_int", &AtenProdDimInt);
  r.Add("aten::amax.default", &AtenAmaxDefault);
  r.Add("aten::amin.default", &AtenAminDefault);
  r.Add("aten::max.default", &AtenMaxDefault);
  r.Add("aten::min.default", &AtenMinDefault);
  r.Add("aten::max.dim", &AtenMaxDim);
  r.Add("aten::min.dim", &AtenMinDim);
  r.Add("aten::argmax.default", &AtenArgmaxDefault);
  r.Add("aten::argmin.default", &AtenArgminDefault);
  r.Add("aten::all.default", &AtenAllDefault);
  r.Add("aten::all.dim", &AtenAllDim);
  r.Add("aten::all.dims", &AtenAllDims);
  r.Add("aten::any.default", &AtenAnyDefault);
  r.Add("aten::any.dim", &AtenAnyDim);
  r.Add("aten::any.dims", &AtenAnyDims);
  r.Add("aten::cumsum.default", &AtenCumsumDefault);
  r.Add("aten::logsumexp.default", &AtenLogsumexpDefault);
  r.Add("aten::linalg_vector_norm.default", &AtenLinalgVectorNormDefault);
  r.Add("aten::norm.Scalar", &AtenNormScalar);
  r.Add("aten::norm.ScalarOpt_dim", &AtenNormScalarOptDim);
  r.Add("aten::count_nonzero.dim_IntList", &AtenCountNonzeroDimIntList);
  r.Add("aten::count_nonzero.default", &AtenCountNonzeroDefault);
}

}  // namespace pt2onnx::ops
