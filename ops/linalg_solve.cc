// File: ops/linalg_solve.cc
// -----------------------------------------------------------------------------
// Linear solves ONNX has no op for, unrolled over static matrix sizes up to
// kMaxUnrolledSize (ops/linalg_unrolled_helpers.h): linalg_inv(_ex),
// linalg_solve(_ex), linalg_slogdet and logdet through LAPACK-style LU with
// partial pivoting; linalg_solve_triangular and triangular_solve by
// substitution; linalg_matrix_power (negative powers invert first) and
// linalg_multi_dot (a MatMul chain in torch's order).
//
// A singular matrix cannot raise inside an ONNX graph: the solutions then
// hold inf/NaN where torch would raise, and the *_ex info outputs report it
// as torch's do (the 1-based index of the first zero pivot).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/linalg_unrolled_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

absl::StatusOr<DataType> FloatDtype(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("linear solves of dtype ", DataTypeName(dtype),
                                        " (float32 and float64 are translated)"));
  }
  return dtype;
}

absl::StatusOr<int64_t> SquareSize(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, arg));
  if (dims.first != dims.second) {
    return ctx.Invalid(absl::StrCat("'", arg, "' must be batches of square matrices"));
  }
  return dims.first;
}

// aten::linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)
// aten::linalg_inv(Tensor A) -> Tensor
absl::Status AtenLinalgInvEx(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("A", dtype));
  SolvedSystem s = Inverse(ctx, a, n, dtype);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, s.x));
  if (ctx.num_outputs() > 1) return ctx.SetOutput(1, s.info);
  return absl::OkStatus();
}

// aten::linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor
// aten::linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False)
//     -> (Tensor result, Tensor info)
// B is a batch of vectors when it is 1-D or has A's shape without its last
// dim (torch/_refs/linalg and BatchLinearAlgebra.cpp's vector-rhs rule);
// left=False solves X A = B as A^T X^T = B^T.
absl::Status AtenLinalgSolve(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(bool left, ctx.Bool("left"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* a_meta, ctx.InputMeta("A"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* b_meta, ctx.InputMeta("B"));
  const int64_t a_rank = static_cast<int64_t>(a_meta->sizes.size());
  const int64_t b_rank = static_cast<int64_t>(b_meta->sizes.size());
  if (b_rank < 1) return ctx.Invalid("linalg_solve needs B to have at least 1 dimension");
  bool vector = b_rank == 1;
  if (!vector && b_rank == a_rank - 1) {
    vector = true;
    for (int64_t i = 0; i < b_rank; ++i) {
      const auto& x = a_meta->sizes[i];
      const auto& y = b_meta->sizes[i];
      if (x.is_symbolic || y.is_symbolic) {
        return ctx.Unsupported("linalg_solve with symbolic sizes deciding whether B is a vector");
      }
      if (x.value != y.value) vector = false;
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("A", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("B", dtype));
  int64_t r = 1;
  if (vector) {
    b = Unsqueeze(ctx, b, {-1});
  } else {
    const auto& cols = b_meta->sizes.back();
    const auto& rows = b_meta->sizes[b_rank - 2];
    if (cols.is_symbolic || rows.is_symbolic) {
      return ctx.Unsupported("linalg_solve with a symbolic number of right-hand sides");
    }
    r = left ? cols.value : rows.value;
  }
  if (!left) {
    if (vector) return ctx.Unsupported("linalg_solve with left=False and a vector B");
    a = TransposeLast2(ctx, a, a_rank);
    b = TransposeLast2(ctx, b, b_rank);
  }
  SolvedSystem s = SolveSquare(ctx, a, b, n, r, dtype);
  std::string x = s.x;
  if (vector) x = Squeeze(ctx, x, {-1});
  if (!left) x = TransposeLast2(ctx, x, ctx.OutputRank(0));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, x));
  if (ctx.num_outputs() > 1) return ctx.SetOutput(1, s.info);
  return absl::OkStatus();
}

// aten::linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)
absl::Status AtenLinalgSlogdet(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("A", dtype));
  UnrolledLu lu = LuFactor(ctx, a, n, n, 0, dtype);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Squeeze(ctx, lu.det_sign, {-2, -1})));
  return ctx.SetOutput(1, Squeeze(ctx, lu.log_abs, {-2, -1}));
}

// aten::logdet(Tensor self) -> Tensor
// NaN for a negative determinant, else log|det| (-inf when singular), as
// LinearAlgebra.cpp's logdet derives it from slogdet.
absl::Status AtenLogdet(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  UnrolledLu lu = LuFactor(ctx, a, n, n, 0, dtype);
  std::string negative = ctx.Op("Less", {lu.det_sign, ctx.ConstantScalar(dtype, 0)});
  std::string y = ctx.Op("Where", {negative, ctx.ConstantScalar(dtype, std::nan("")), lu.log_abs});
  return ctx.SetOutput(0, Squeeze(ctx, y, {-2, -1}));
}

// Solves op(T) X = B (left) or X op(T) = B for triangular T.
std::string SolveTriangular(TranslateContext& ctx, std::string t, std::string b, int64_t t_rank,
                            int64_t b_rank, int64_t n, bool upper, bool left, bool unit,
                            DataType dtype) {
  if (!left) {
    t = TransposeLast2(ctx, t, t_rank);
    b = TransposeLast2(ctx, b, b_rank);
    upper = !upper;
  }
  std::string x = TriangularSolve(ctx, t, b, n, /*lower=*/!upper, unit, dtype);
  return left ? x : TransposeLast2(ctx, x, std::max(t_rank, b_rank));
}

// aten::linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True,
//                               bool unitriangular=False) -> Tensor
absl::Status AtenLinalgSolveTriangular(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, ctx.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(bool left, ctx.Bool("left"));
  PT2ONNX_ASSIGN_OR_RETURN(bool unit, ctx.Bool("unitriangular"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t t_rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t b_rank, ctx.InputRank("B"));
  if (b_rank < 2) return ctx.Invalid("linalg_solve_triangular needs B to be a batch of matrices");
  PT2ONNX_ASSIGN_OR_RETURN(std::string t, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("B", dtype));
  std::string x = SolveTriangular(ctx, t, b, t_rank, b_rank, n, upper, left, unit, dtype);
  // Batches of T and B broadcast; a zero-size batch must still come out.
  std::vector<std::string> shaped = BroadcastBatch(ctx, {x, t});
  return ctx.SetOutput(0, shaped[0]);
}

// aten::triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False,
//                        bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)
// Solves op(A) X = self; the second output is A broadcast to the batch.
absl::Status AtenTriangularSolve(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, ctx.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(bool transpose, ctx.Bool("transpose"));
  PT2ONNX_ASSIGN_OR_RETURN(bool unit, ctx.Bool("unitriangular"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t a_rank, ctx.InputRank("A"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t b_rank, ctx.InputRank("self"));
  if (b_rank < 2) return ctx.Invalid("triangular_solve needs self to be a batch of matrices");
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("A", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("self", dtype));
  std::vector<std::string> both = BroadcastBatch(ctx, {a, b});
  std::string t = both[0];
  if (transpose) {
    t = TransposeLast2(ctx, t, std::max(a_rank, b_rank));
    upper = !upper;
  }
  std::string x = TriangularSolve(ctx, t, both[1], n, !upper, unit, dtype);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, x));
  return ctx.SetOutput(1, both[0]);
}

// aten::linalg_matrix_power(Tensor self, int n) -> Tensor
// Repeated squaring in LinearAlgebra.cpp's order (the running result is
// multiplied by the current square where a bit is set); n < 0 inverts first.
absl::Status AtenLinalgMatrixPower(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t power, ctx.Int("n"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  if (rank < 2) return ctx.Invalid("matrix_power needs a batch of square matrices");
  const auto& size = meta->sizes.back();
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  if (power == 0) {
    if (size.is_symbolic) return ctx.Unsupported("matrix_power(A, 0) with a symbolic matrix size");
    return ctx.SetOutput(0, BatchedEye(ctx, size.value, BatchShape(ctx, a), dtype));
  }
  if (power < 0) {
    if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
      return ctx.Invalid("matrix_power with a negative power needs a float32 or float64 input");
    }
    PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "self"));
    a = Inverse(ctx, a, n, dtype).x;
    power = -power;
  }
  if (power == 1) return ctx.SetOutput(0, ctx.Op("Identity", {a}));
  std::string result, z = a;
  while (power > 0) {
    if (power & 1) result = result.empty() ? z : ctx.Op("MatMul", {result, z});
    power >>= 1;
    if (power > 0) z = ctx.Op("MatMul", {z, z});
  }
  return ctx.SetOutput(0, result);
}

// aten::linalg_multi_dot(Tensor[] tensors) -> Tensor
// A 1-D first (last) operand is a row (column) vector whose added dim is
// dropped again; the product order is LinearAlgebra.cpp's: two operands
// directly, three by comparing the two orders' costs, more by the
// matrix-chain dynamic program (needs static sizes; else left to right).
absl::Status AtenLinalgMultiDot(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> ts, ctx.Inputs("tensors"));
  const size_t count = ts.size();
  if (count < 2) return ctx.Invalid("multi_dot expects at least two tensors");
  const pt2::TensorMeta* first = ctx.InputListMeta("tensors", 0);
  const pt2::TensorMeta* last = ctx.InputListMeta("tensors", count - 1);
  if (first == nullptr || last == nullptr) return ctx.Invalid("multi_dot operands need metadata");
  const bool first_vec = first->sizes.size() == 1;
  const bool last_vec = last->sizes.size() == 1;
  for (size_t i = 0; i < count; ++i) {
    const pt2::TensorMeta* m = ctx.InputListMeta("tensors", i);
    const size_t r = m == nullptr ? 0 : m->sizes.size();
    if (r != 2 && !((i == 0 || i + 1 == count) && r == 1)) {
      return ctx.Invalid("multi_dot needs 2-D tensors (the first and last may be 1-D)");
    }
  }
  if (first_vec) ts[0] = Unsqueeze(ctx, ts[0], {0});
  if (last_vec) ts[count - 1] = Unsqueeze(ctx, ts[count - 1], {1});
  // ONNX MatMul has no int8/int16/uint8: int32 products, cast back, keep the
  // low bits torch's wrapping integer products keep.
  const DataType dtype = first->dtype;
  const bool narrow = dtype == DataType::kInt8 || dtype == DataType::kInt16 || dtype == DataType::kUint8;
  if (narrow) {
    for (std::string& t : ts) t = ctx.CastTo(t, dtype, DataType::kInt32);
  }
  // dims[i], dims[i + 1]: the static shape of operand i, when known.
  std::vector<int64_t> dims;
  bool known = true;
  for (size_t i = 0; i < count && known; ++i) {
    const pt2::TensorMeta* m = ctx.InputListMeta("tensors", i);
    if (m == nullptr) { known = false; break; }
    const auto& s = m->sizes;
    for (const auto& d : s) known = known && !d.is_symbolic;
    if (!known) break;
    const int64_t rows = (i == 0 && first_vec) ? 1 : s[0].value;
    const int64_t cols = (i + 1 == count && last_vec) ? 1 : s.back().value;
    if (i == 0) dims.push_back(rows);
    dims.push_back(cols);
  }
  std::string out;
  if (count == 2 || !known) {
    out = ts[0];
    for (size_t i = 1; i < count; ++i) out = ctx.Op("MatMul", {out, ts[i]});
  } else if (count == 3) {
    const int64_t a = dims[0], b = dims[1], c = dims[2], d = dims[3];
    const int64_t cost_left = a * c * (b + d), cost_right = b * d * (a + c);
    out = cost_left > cost_right
              ? ctx.Op("MatMul", {ts[0], ctx.Op("MatMul", {ts[1], ts[2]})})
              : ctx.Op("MatMul", {ctx.Op("MatMul", {ts[0], ts[1]}), ts[2]});
  } else {
    const size_t n = count;
    std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0));
    std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
    for (size_t len = 1; len < n; ++len) {
      for (size_t i = 0; i + len < n; ++i) {
        const size_t j = i + len;
        cost[i][j] = INT64_MAX;
        for (size_t k = i; k < j; ++k) {
          const int64_t q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1];
          if (q < cost[i][j]) {
            cost[i][j] = q;
            split[i][j] = k;
          }
        }
      }
    }
    std::function<std::string(size_t, size_t)> chain = [&](size_t i, size_t j) -> std::string {
      if (i == j) return ts[i];
      return ctx.Op("MatMul", {chain(i, split[i][j]), chain(split[i][j] + 1, j)});
    };
    out = chain(0, n - 1);
  }
  if (first_vec && last_vec) {
    out = Squeeze(ctx, out, {0, 1});
  } else if (first_vec) {
    out = Squeeze(ctx, out, {0});
  } else if (last_vec) {
    out = Squeeze(ctx, out, {1});
  }
  if (narrow) out = ctx.CastTo(out, DataType::kInt32, dtype);
  return ctx.SetOutput(0, out);
}

}  // namespace

void RegisterLinalgSolveOps(OpRegistry& r) {
  r.Add("aten::linalg_inv_ex.default", &AtenLinalgInvEx);
  r.Add("aten::linalg_inv.default", &AtenLinalgInvEx);
  r.Add("aten::linalg_solve.default", &AtenLinalgSolve);
  r.Add("aten::linalg_solve_ex.default", &AtenLinalgSolve);
  r.Add("aten::linalg_slogdet.default", &AtenLinalgSlogdet);
  r.Add("aten::logdet.default", &AtenLogdet);
  r.Add("aten::linalg_solve_triangular.default", &AtenLinalgSolveTriangular);
  r.Add("aten::triangular_solve.default", &AtenTriangularSolve);
  r.Add("aten::linalg_matrix_power.default", &AtenLinalgMatrixPower);
  r.Add("aten::linalg_multi_dot.default", &AtenLinalgMultiDot);
}

}  // namespace pt2onnx::ops
