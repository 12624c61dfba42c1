// File: ops/linalg_unrolled_helpers.cc
// -----------------------------------------------------------------------------
// Unrolled LU, Cholesky, substitutions and solves in ONNX ops; see the header.
#include "ops/linalg_unrolled_helpers.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/graph.h"
#include "core/ir/tensor.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

std::string SliceAxis(TranslateContext& ctx, const std::string& x, int64_t axis, int64_t start,
                      int64_t end) {
  return ctx.Op("Slice", {x, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}),
                          ctx.ConstantInt64s({axis})});
}

std::string RowIds(TranslateContext& ctx, int64_t m) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < m; ++i) ids.push_back(i);
  return ctx.Constant(ir::Tensor::Int64s({m, 1}, ids));
}

}  // namespace

std::string ConstantMask(TranslateContext& ctx, int64_t rows, int64_t cols,
                         const std::function<bool(int64_t, int64_t)>& pred) {
  std::string bytes;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) bytes.push_back(pred(i, j) ? 1 : 0);
  }
  return ctx.Constant(ir::Tensor::Owned(DataType::kBool, {rows, cols}, std::move(bytes)));
}

std::string PermutationFromPivots(TranslateContext& ctx, const std::string& pivots, int64_t m,
                                  int64_t k) {
  std::string rows = RowIds(ctx, m);
  std::string batch = SliceAxis(ctx, ctx.Op("Shape", {pivots}), 0, 0, -1);
  std::string perm = ctx.Op("Expand", {rows, ctx.Op("Concat", {batch, ctx.ConstantInt64s({m, 1})},
                                                    {Attribute::Int("axis", 0)})});
  for (int64_t s = 0; s < k; ++s) {
    std::string p = Unsqueeze(ctx, ctx.Op("Sub", {SliceAxis(ctx, pivots, -1, s, s + 1),
                                                  ctx.ConstantInt64(1)}), {-1});  // (..., 1, 1)
    std::string is_k = ConstantMask(ctx, m, 1, [s](int64_t i, int64_t) { return i == s; });
    std::string is_p = ctx.Op("Equal", {rows, p});
    std::string perm_p = ctx.Op("GatherElements", {perm, p}, {Attribute::Int("axis", -2)});
    std::string perm_k = SliceAxis(ctx, perm, -2, s, s + 1);
    perm = ctx.Op("Where", {is_k, perm_p, ctx.Op("Where", {is_p, perm_k, perm})});
  }
  return perm;
}

std::string PermutationMatrix(TranslateContext& ctx, const std::string& perm, int64_t m,
                              DataType dtype) {
  std::string as_row = Unsqueeze(ctx, Squeeze(ctx, perm, {-1}), {-2});  // (..., 1, m)
  return ctx.CastTo(ctx.Op("Equal", {as_row, RowIds(ctx, m)}), DataType::kBool, dtype);
}

absl::StatusOr<std::pair<int64_t, int64_t>> StaticMatrixDims(TranslateContext& ctx,
                                                             absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(arg));
  const size_t rank = meta == nullptr ? 0 : meta->sizes.size();
  if (rank < 2) return ctx.Invalid(absl::StrCat("'", arg, "' must be a batch of matrices"));
  const auto& rows = meta->sizes[rank - 2];
  const auto& cols = meta->sizes[rank - 1];
  if (rows.is_symbolic || cols.is_symbolic) {
    return ctx.Unsupported(absl::StrCat(
        "a symbolic matrix size in '", arg,
        "' (the solver is unrolled in ONNX ops, which needs static matrix dims; export with "
        "static sizes for the last two dims)"));
  }
  if (rows.value > kMaxUnrolledSize || cols.value > kMaxUnrolledSize) {
    return ctx.Unsupported(absl::StrCat(
        "a ", rows.value, "x", cols.value, " matrix in '", arg, "' (the solver is unrolled in "
        "ONNX ops, up to ", kMaxUnrolledSize, "x", kMaxUnrolledSize,
        "; compute it outside the exported model for larger matrices)"));
  }
  return std::make_pair(rows.value, cols.value);
}

std::string TransposeLast2(TranslateContext& ctx, const std::string& x, int64_t rank) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return ctx.Op("Transpose", {x}, {Attribute::Ints("perm", perm)});
}

std::string BatchShape(TranslateContext& ctx, const std::string& x) {
  // Shape then Slice (not Shape's end attribute): ONNX shape inference types
  // an empty Shape(end=-2) of a plain matrix as a scalar, which Concat refuses.
  return SliceAxis(ctx, ctx.Op("Shape", {x}), 0, 0, -2);
}

std::vector<std::string> BroadcastBatch(TranslateContext& ctx, std::vector<std::string> values) {
  if (values.size() < 2) return values;
  std::string common;
  for (const std::string& v : values) {
    // (batch..., 1) zeros: never a scalar, whose Shape ONNX's inference mistypes.
    std::string zeros = ctx.Op(
        "Expand", {ctx.Constant(ir::Tensor::Int64s({1}, {0})),
                   ctx.Op("Concat", {BatchShape(ctx, v), ctx.ConstantInt64s({1})},
                          {Attribute::Int("axis", 0)})});
    common = common.empty() ? zeros : ctx.Op("Add", {common, zeros});
  }
  std::string batch = SliceAxis(ctx, ctx.Op("Shape", {common}), 0, 0, -1);
  for (std::string& v : values) {
    std::string tail = SliceAxis(ctx, ctx.Op("Shape", {v}), 0, -2, INT64_MAX);
    v = ctx.Op("Expand", {v, ctx.Op("Concat", {batch, tail}, {Attribute::Int("axis", 0)})});
  }
  return values;
}

std::string BatchedEye(TranslateContext& ctx, int64_t n, const std::string& batch, DataType dtype) {
  std::string eye = ctx.CastTo(ConstantMask(ctx, n, n, [](int64_t i, int64_t j) { return i == j; }),
                               DataType::kBool, dtype);
  return ctx.Op("Expand", {eye, ctx.Op("Concat", {batch, ctx.ConstantInt64s({n, n})},
                                       {Attribute::Int("axis", 0)})});
}

namespace {

// The 1-based index of the first set flag of `flags` (steps of (..., 1, 1)
// BOOL), else 0, as INT32 of the batch shape.
std::string FirstFlag(TranslateContext& ctx, const std::vector<std::string>& step_flags,
                      const std::string& batch) {
  if (step_flags.empty()) return ctx.Op("Expand", {ctx.ConstantScalar(DataType::kInt32, 0), batch});
  std::vector<std::string> flags;
  for (const std::string& f : step_flags) {
    flags.push_back(Squeeze(ctx, ctx.CastTo(f, DataType::kBool, DataType::kInt32), {-1}));
  }
  std::string all_flags =
      flags.size() == 1 ? flags[0] : ctx.Op("Concat", flags, {Attribute::Int("axis", -1)});
  // Reshapes pin the batch shape: ONNX Runtime's ArgMax and ReduceMax keep
  // the reduced axis of an empty batch.
  std::string first = ctx.Op("ArgMax", {all_flags},
                             {Attribute::Int("axis", -1), Attribute::Int("keepdims", 0),
                              Attribute::Int("select_last_index", 0)});
  first = ctx.Op("Reshape", {first, batch}, {Attribute::Int("allowzero", 1)});
  std::string any = ctx.Op("Reshape", {ctx.Op("ReduceMax", {all_flags, ctx.ConstantInt64s({-1})},
                                               {Attribute::Int("keepdims", 0)}),
                                     batch},
                           {Attribute::Int("allowzero", 1)});
  std::string first32 = ctx.CastTo(ctx.Op("Add", {first, ctx.ConstantInt64(1)}), DataType::kInt64,
                                   DataType::kInt32);
  return ctx.Op("Mul", {first32, any});
}

}  // namespace

UnrolledCholesky CholeskyFactor(TranslateContext& ctx, const std::string& a, int64_t n,
                                DataType dtype) {
  std::string w = a;
  std::string one = ctx.ConstantScalar(dtype, 1);
  std::vector<std::string> bad;
  for (int64_t k = 0; k < n; ++k) {
    std::string d = SliceAxis(ctx, SliceAxis(ctx, w, -2, k, k + 1), -1, k, k + 1);  // (..., 1, 1)
    bad.push_back(ctx.Op("Not", {ctx.Op("Greater", {d, ctx.ConstantScalar(dtype, 0)})}));
    std::string s = ctx.Op("Sqrt", {d});
    std::string col = ctx.Op("Mul", {SliceAxis(ctx, w, -1, k, k + 1), ctx.Op("Div", {one, s})});
    std::string col_t = Unsqueeze(ctx, Squeeze(ctx, col, {-1}), {-2});  // (..., 1, n)
    std::string updated = ctx.Op("Sub", {w, ctx.Op("Mul", {col, col_t})});
    std::string below_right = ConstantMask(ctx, n, n, [k](int64_t i, int64_t j) {
      return i > k && j > k;
    });
    std::string below = ConstantMask(ctx, n, n, [k](int64_t i, int64_t j) { return i > k && j == k; });
    std::string at = ConstantMask(ctx, n, n, [k](int64_t i, int64_t j) { return i == k && j == k; });
    w = ctx.Op("Where", {below_right, updated,
                         ctx.Op("Where", {below, col, ctx.Op("Where", {at, s, w})})});
  }
  std::string lower = ConstantMask(ctx, n, n, [](int64_t i, int64_t j) { return i >= j; });
  UnrolledCholesky r;
  r.l = ctx.Op("Where", {lower, w, ctx.ConstantScalar(dtype, 0)});
  r.info = FirstFlag(ctx, bad, BatchShape(ctx, a));
  return r;
}

UnrolledLu LuFactor(TranslateContext& ctx, const std::string& a, int64_t m, int64_t n,
                    int64_t extra, DataType dtype) {
  const int64_t width = n + extra;
  const int64_t steps = std::min(m, n);
  std::string w = a;
  std::string rows = RowIds(ctx, m);
  std::string batch = BatchShape(ctx, a);
  std::string perm = ctx.Op("Expand", {rows, ctx.Op("Concat", {batch, ctx.ConstantInt64s({m, 1})},
                                                    {Attribute::Int("axis", 0)})});
  std::string row_index_shape =
      ctx.Op("Concat", {batch, ctx.ConstantInt64s({1, width})}, {Attribute::Int("axis", 0)});
  std::string batch11 =
      ctx.Op("Concat", {batch, ctx.ConstantInt64s({1, 1})}, {Attribute::Int("axis", 0)});
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string one = ctx.ConstantScalar(dtype, 1);
  std::string sign = one, log_abs = ctx.ConstantScalar(dtype, 0);
  std::vector<std::string> pivots, zero_flags;
  for (int64_t k = 0; k < steps; ++k) {
    // The pivot row: the first largest |value| in column k at or below row k.
    std::string column = SliceAxis(ctx, SliceAxis(ctx, w, -1, k, k + 1), -2, k, m);
    std::string rel = ctx.Op("ArgMax", {ctx.Op("Abs", {column})},
                             {Attribute::Int("axis", -2), Attribute::Int("keepdims", 1),
                              Attribute::Int("select_last_index", 0)});
    // Pinned to (..., 1, 1): ONNX Runtime's ArgMax keeps the reduced axis of
    // an empty batch.
    rel = ctx.Op("Reshape", {rel, batch11}, {Attribute::Int("allowzero", 1)});
    std::string p = ctx.Op("Add", {rel, ctx.ConstantInt64(k)});  // (..., 1, 1)
    pivots.push_back(p);
    std::string is_k = ConstantMask(ctx, m, 1, [k](int64_t i, int64_t) { return i == k; });
    std::string is_p = ctx.Op("Equal", {rows, p});  // (..., m, 1)
    // Swap rows k and p of the working matrix and of the permutation.
    std::string row_p = ctx.Op("GatherElements", {w, ctx.Op("Expand", {p, row_index_shape})},
                               {Attribute::Int("axis", -2)});
    std::string row_k = SliceAxis(ctx, w, -2, k, k + 1);
    w = ctx.Op("Where", {is_k, row_p, ctx.Op("Where", {is_p, row_k, w})});
    std::string perm_p = ctx.Op("GatherElements", {perm, p}, {Attribute::Int("axis", -2)});
    std::string perm_k = SliceAxis(ctx, perm, -2, k, k + 1);
    perm = ctx.Op("Where", {is_k, perm_p, ctx.Op("Where", {is_p, perm_k, perm})});
    // Eliminate below the pivot (a zero pivot has a zero column: left as is).
    std::string pivot = SliceAxis(ctx, row_p, -1, k, k + 1);  // (..., 1, 1)
    std::string is_zero = ctx.Op("Equal", {pivot, zero});
    zero_flags.push_back(is_zero);
    std::string recip = ctx.Op("Div", {one, ctx.Op("Where", {is_zero, one, pivot})});
    std::string factor = ctx.Op("Mul", {SliceAxis(ctx, w, -1, k, k + 1), recip});  // (..., m, 1)
    std::string updated = ctx.Op("Sub", {w, ctx.Op("Mul", {factor, row_p})});
    std::string below_right =
        ConstantMask(ctx, m, width, [k](int64_t i, int64_t j) { return i > k && j > k; });
    std::string below = ConstantMask(ctx, m, width, [k](int64_t i, int64_t j) { return i > k && j == k; });
    w = ctx.Op("Where", {below_right, updated, ctx.Op("Where", {below, factor, w})});
    // det bookkeeping: a swap flips the sign, each pivot contributes its own.
    std::string swapped = ctx.Op("Equal", {p, ctx.ConstantInt64(k)});
    std::string step_sign = ctx.Op("Mul", {ctx.Op("Sign", {pivot}),
                                           ctx.Op("Where", {swapped, one,
                                                            ctx.ConstantScalar(dtype, -1)})});
    sign = ctx.Op("Mul", {sign, step_sign});
    log_abs = ctx.Op("Add", {log_abs, ctx.Op("Log", {ctx.Op("Abs", {pivot})})});
  }
  UnrolledLu r;
  r.lu = w;
  r.perm = perm;
  r.det_sign = ctx.Op("Expand", {sign, batch11});
  r.log_abs = ctx.Op("Expand", {log_abs, batch11});
  if (steps == 0) {
    r.info = ctx.Op("Expand", {ctx.ConstantScalar(DataType::kInt32, 0), batch});
    return r;
  }
  std::vector<std::string> one_based;
  for (int64_t k = 0; k < steps; ++k) {
    one_based.push_back(Squeeze(ctx, ctx.Op("Add", {pivots[k], ctx.ConstantInt64(1)}), {-1}));
  }
  r.pivots = steps == 1 ? one_based[0] : ctx.Op("Concat", one_based, {Attribute::Int("axis", -1)});
  r.info = FirstFlag(ctx, zero_flags, batch);
  return r;
}

std::string TriangularSolve(TranslateContext& ctx, const std::string& t, const std::string& b,
                            int64_t n, bool lower, bool unit, DataType dtype) {
  std::string x = b;
  for (int64_t step = 0; step < n; ++step) {
    const int64_t k = lower ? step : n - 1 - step;
    std::string xk = SliceAxis(ctx, x, -2, k, k + 1);  // (..., 1, r)
    if (!unit) {
      xk = ctx.Op("Div", {xk, SliceAxis(ctx, SliceAxis(ctx, t, -2, k, k + 1), -1, k, k + 1)});
    }
    std::string tk = SliceAxis(ctx, t, -1, k, k + 1);  // (..., n, 1)
    std::string rest = ConstantMask(ctx, n, 1, [k, lower](int64_t i, int64_t) {
      return lower ? i > k : i < k;
    });
    std::string is_k = ConstantMask(ctx, n, 1, [k](int64_t i, int64_t) { return i == k; });
    x = ctx.Op("Where", {rest, ctx.Op("Sub", {x, ctx.Op("Mul", {tk, xk})}),
                         ctx.Op("Where", {is_k, xk, x})});
  }
  (void)dtype;
  return x;
}

SolvedSystem SolveSquare(TranslateContext& ctx, const std::string& a, const std::string& b,
                         int64_t n, int64_t r, DataType dtype) {
  std::vector<std::string> both = BroadcastBatch(ctx, {a, b});
  std::string w = ctx.Op("Concat", {both[0], both[1]}, {Attribute::Int("axis", -1)});
  UnrolledLu lu = LuFactor(ctx, w, n, n, r, dtype);
  std::string u = SliceAxis(ctx, lu.lu, -1, 0, n);
  std::string y = SliceAxis(ctx, lu.lu, -1, n, n + r);
  return {TriangularSolve(ctx, u, y, n, /*lower=*/false, /*unit=*/false, dtype), lu.info};
}

SolvedSystem Inverse(TranslateContext& ctx, const std::string& a, int64_t n, DataType dtype) {
  return SolveSquare(ctx, a, BatchedEye(ctx, n, BatchShape(ctx, a), dtype), n, n, dtype);
}

}  // namespace pt2onnx::ops
