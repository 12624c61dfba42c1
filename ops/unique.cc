// File: ops/unique.cc
// -----------------------------------------------------------------------------
// Unique values and their bookkeeping (output sizes are data dependent: an
// unbacked symbol in the .pt2).
//
//  * _unique2 / unique_dim: ONNX Unique with sorted=1. torch's CPU kernels
//    return ascending values (slices in lexicographic order for unique_dim)
//    whatever `sorted` says, so sorted=False is translated the same way.
//    inverse has self's shape (unique_dim: the size of `dim`). torch keeps
//    each NaN as a distinct value, last; ONNX Runtime's Unique loses them,
//    so NaNs bypass it (_unique2) or are refused (float unique_dim).
//  * unique_consecutive: a run starts where an
//    element (a slice along dim) differs from the previous one; values are
//    the run starts, inverse counts the runs begun so far, counts are the
//    distances between run starts.
// An output torch does not compute (return_inverse / return_counts False)
// is an empty int64 tensor, as in torch.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

absl::StatusOr<bool> Flag(const TranslateContext& ctx, absl::string_view arg) {
  if (!ctx.Has(arg)) return false;
  return ctx.Bool(arg);
}

// Binds outputs 1 (inverse) and 2 (counts): the value when torch computes
// it, else an empty int64 tensor.
absl::Status BindExtras(TranslateContext& ctx, bool want_inverse, const std::string& inverse,
                        bool want_counts, const std::string& counts) {
  if (ctx.num_outputs() > 1 && ctx.OutputUsed(1)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, want_inverse ? inverse : ctx.ConstantInt64s({})));
  }
  if (ctx.num_outputs() > 2 && ctx.OutputUsed(2)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(2, want_counts ? counts : ctx.ConstantInt64s({})));
  }
  return absl::OkStatus();
}

// aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)
// aten::_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor): the same
// without counts.
absl::Status AtenUnique2(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(bool want_inverse, Flag(ctx, "return_inverse"));
  PT2ONNX_ASSIGN_OR_RETURN(bool want_counts, Flag(ctx, "return_counts"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  std::string flat = Reshape(ctx, x, {-1});
  if (!IsFloatingPoint(dtype)) {
    std::vector<std::string> out = ctx.AddNode("Unique", {flat}, {Attribute::Int("sorted", 1)}, 4);
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, out[0]));
    std::string inverse = ctx.Op("Reshape", {out[2], ctx.Op("Shape", {x})});
    return BindExtras(ctx, want_inverse, inverse, want_counts, out[3]);
  }
  // torch keeps every NaN as a value of its own, after the others, in input
  // order; ONNX Runtime's Unique drops them. So only the other elements go
  // through Unique and the NaNs are appended.
  std::string is_nan = ctx.Op("IsNaN", {flat});
  std::string not_nan = ctx.Op("Not", {is_nan});
  std::vector<std::string> out = ctx.AddNode("Unique",
                                             {ctx.Op("Compress", {flat, not_nan},
                                                     {Attribute::Int("axis", 0)})},
                                             {Attribute::Int("sorted", 1)}, 4);
  std::string nans = ctx.Op("Compress", {flat, is_nan}, {Attribute::Int("axis", 0)});
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0,
                                        ctx.Op("Concat", {out[0], nans},
                                               {Attribute::Int("axis", 0)})));
  auto rank_among = [&](const std::string& mask) {
    std::string as_int = ctx.CastTo(mask, DataType::kBool, DataType::kInt64);
    std::string running = ctx.Op("CumSum", {as_int, ctx.ConstantInt64(0)});
    return ctx.Op("Sub", {running, ctx.ConstantInt64(1)});
  };
  // A padded inverse keeps the Gather in range when every element is NaN.
  std::string clean_inverse = ctx.Op("Concat", {out[2], ctx.ConstantInt64s({0})},
                                     {Attribute::Int("axis", 0)});
  std::string of_clean = ctx.Op("Gather",
                                {clean_inverse,
                                 ctx.Op("Max", {rank_among(not_nan), ctx.ConstantInt64(0)})},
                                {Attribute::Int("axis", 0)});
  std::string of_nan = ctx.Op("Add", {rank_among(is_nan), ShapeSlice(ctx, out[0], 0, 1)});
  std::string inverse = ctx.Op("Reshape",
                               {ctx.Op("Where", {is_nan, of_nan, of_clean}), ctx.Op("Shape", {x})});
  std::string nan_counts = ctx.Op("Expand", {ctx.ConstantInt64(1), ctx.Op("Shape", {nans})});
  std::string counts = ctx.Op("Concat", {out[3], nan_counts}, {Attribute::Int("axis", 0)});
  return BindExtras(ctx, want_inverse, inverse, want_counts, counts);
}

// aten::unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)
absl::Status AtenUniqueDim(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of aten::unique_dim"));
  if (rank == 0) return ctx.Invalid("unique_dim needs a tensor with at least one dim");
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (IsFloatingPoint(dtype)) {
    return ctx.Unsupported(
        "unique_dim of a floating-point tensor (torch orders slices holding NaN in a way ONNX "
        "Unique does not); unique over int or bool tensors is translated");
  }
  PT2ONNX_ASSIGN_OR_RETURN(bool want_inverse, Flag(ctx, "return_inverse"));
  PT2ONNX_ASSIGN_OR_RETURN(bool want_counts, Flag(ctx, "return_counts"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  std::vector<std::string> out =
      ctx.AddNode("Unique", {x}, {Attribute::Int("sorted", 1), Attribute::Int("axis", axis)}, 4);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, out[0]));
  return BindExtras(ctx, want_inverse, out[2], want_counts, out[3]);
}

// Runs of equal elements (dim: nullopt, over the flattened input) or of
// equal slices along `dim`.
absl::Status Consecutive(TranslateContext& ctx, std::optional<int64_t> dim) {
  PT2ONNX_ASSIGN_OR_RETURN(bool want_inverse, Flag(ctx, "return_inverse"));
  PT2ONNX_ASSIGN_OR_RETURN(bool want_counts, Flag(ctx, "return_counts"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  int64_t axis = 0;
  std::string rows = Reshape(ctx, x, {-1});  // (n,) or (n, rest)
  if (dim) {
    if (rank == 0) {
      return ctx.Invalid("unique_consecutive with dim needs a tensor with at least one dim");
    }
    PT2ONNX_ASSIGN_OR_RETURN(axis, CheckedAxis(*dim, rank, "dim of aten::unique_consecutive"));
    std::vector<int64_t> perm = {axis};
    for (int64_t i = 0; i < rank; ++i) {
      if (i != axis) perm.push_back(i);
    }
    rows = Reshape(ctx, ctx.Op("Transpose", {x}, {Attribute::Ints("perm", perm)}), {0, -1});
  }
  auto slice0 = [&](const std::string& v, int64_t start, int64_t end) {
    return ctx.Op("Slice",
                  {v, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}),
                   ctx.ConstantInt64s({0})});
  };
  std::string n = ShapeSlice(ctx, rows, 0, 1);
  std::string differs = ctx.Op("Not",
                               {ctx.Op("Equal", {slice0(rows, 1, kToEnd), slice0(rows, 0, -1)})});
  if (dim) {  // a slice differs if any element does
    differs = ctx.Op("ReduceMax",
                     {ctx.CastTo(differs, DataType::kBool, DataType::kInt32),
                      ctx.ConstantInt64s({1})},
                     {Attribute::Int("keepdims", 0)});
    differs = ctx.CastTo(differs, DataType::kInt32, DataType::kBool);
  }
  // The first element starts a run (cut back to n for an empty input).
  std::string starts_run = ctx.Op("Concat",
                                  {ctx.CastTo(ctx.ConstantInt64s({1}), DataType::kInt64,
                                              DataType::kBool),
                                             differs}, {Attribute::Int("axis", 0)});
  starts_run = ctx.Op("Slice", {starts_run, ctx.ConstantInt64s({0}), n});
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.Op("Compress", {dim ? x : rows, starts_run},
                                                  {Attribute::Int("axis", axis)})));
  std::string inverse = ctx.Op("Sub",
                               {ctx.Op("CumSum",
                                       {ctx.CastTo(starts_run, DataType::kBool, DataType::kInt64),
                                                         ctx.ConstantInt64(0)}),
                                       ctx.ConstantInt64(1)});
  if (!dim) inverse = ctx.Op("Reshape", {inverse, ctx.Op("Shape", {x})});
  std::string firsts = Reshape(ctx, ctx.Op("NonZero", {starts_run}), {-1});
  std::string ends = ctx.Op("Concat", {slice0(firsts, 1, kToEnd), n}, {Attribute::Int("axis", 0)});
  return BindExtras(ctx, want_inverse, inverse, want_counts, ctx.Op("Sub", {ends, firsts}));
}

// aten::unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)
absl::Status AtenUniqueConsecutive(TranslateContext& ctx) {
  std::optional<int64_t> dim;
  if (ctx.Has("dim")) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, ctx.OptionalInt("dim"));
  }
  return Consecutive(ctx, dim);
}

}  // namespace

void RegisterUniqueOps(OpRegistry& r) {
  r.Add("aten::_unique2.default", &AtenUnique2);
  r.Add("aten::_unique.default", &AtenUnique2);
  r.Add("aten::unique_consecutive.default", &AtenUniqueConsecutive);
  r.Add("aten::unique_dim.default", &AtenUniqueDim);
}

}  // namespace pt2onnx::ops
