// File: ops/linalg_lu.cc
// -----------------------------------------------------------------------------
// LU factorizations and their uses, unrolled over static matrix sizes up to
// kMaxUnrolledSize (ops/linalg_unrolled_helpers.h): linalg_lu_factor(_ex),
// _lu_with_info (torch.lu), linalg_lu, lu_unpack, lu_solve and
// linalg_lu_solve. Pivots are INT32 and 1-based like LAPACK's; pivot=False
// is refused as torch's CPU kernels refuse it.
#include <algorithm>
#include <cstdint>
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

std::string SliceAt(TranslateContext& ctx, const std::string& x, int64_t axis, int64_t start,
                    int64_t end) {
  return ctx.Op("Slice", {x, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}),
                          ctx.ConstantInt64s({axis})});
}

absl::StatusOr<DataType> LuDtype(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("LU of dtype ", DataTypeName(dtype),
                                        " (float32 and float64 are translated)"));
  }
  return dtype;
}

absl::Status CheckPivot(TranslateContext& ctx) {
  if (!ctx.Has("pivot")) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(bool pivot, ctx.Bool("pivot"));
  if (!pivot) return ctx.Unsupported("LU without pivoting (torch's CPU kernels refuse it too)");
  return absl::OkStatus();
}

// Pivots of an LU with k = min(m, n) steps, INT32; an empty (..., 0) when k == 0.
std::string PivotsInt32(TranslateContext& ctx, const UnrolledLu& lu, const std::string& a,
                        int64_t k) {
  if (k > 0) return ctx.CastTo(lu.pivots, DataType::kInt64, DataType::kInt32);
  std::string shape = ctx.Op("Concat", {BatchShape(ctx, a), ctx.ConstantInt64s({0})},
                             {Attribute::Int("axis", 0)});
  return ctx.Op("Expand", {ctx.ConstantScalar(DataType::kInt32, 0), shape});
}

// aten::linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)
// aten::linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False)
//     -> (Tensor LU, Tensor pivots, Tensor info)
// aten::_lu_with_info(Tensor self, bool pivot=True, bool check_errors=True)
//     -> (Tensor LU, Tensor pivots, Tensor info)
absl::Status LuFactorOp(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, LuDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckPivot(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, arg));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs(arg, dtype));
  UnrolledLu lu = LuFactor(ctx, a, dims.first, dims.second, 0, dtype);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.Op("Identity", {lu.lu})));
  PT2ONNX_RETURN_IF_ERROR(
      ctx.SetOutput(1, PivotsInt32(ctx, lu, a, std::min(dims.first, dims.second))));
  if (ctx.num_outputs() > 2) return ctx.SetOutput(2, lu.info);
  return absl::OkStatus();
}
absl::Status AtenLinalgLuFactor(TranslateContext& ctx) { return LuFactorOp(ctx, "A"); }
absl::Status AtenLuWithInfo(TranslateContext& ctx) { return LuFactorOp(ctx, "self"); }

// L (..., m, k) unit lower and U (..., k, n) upper from a packed (..., m, n) LU.
std::pair<std::string, std::string> UnpackLu(TranslateContext& ctx, const std::string& lu,
                                             int64_t m, int64_t n, DataType dtype) {
  const int64_t k = std::min(m, n);
  std::string l_part = SliceAt(ctx, lu, -1, 0, k);
  std::string u_part = SliceAt(ctx, lu, -2, 0, k);
  std::string strictly_lower = ConstantMask(ctx, m, k, [](int64_t i, int64_t j) { return i > j; });
  std::string diag = ConstantMask(ctx, m, k, [](int64_t i, int64_t j) { return i == j; });
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string l = ctx.Op("Where", {strictly_lower, l_part,
                                   ctx.Op("Where", {diag, ctx.ConstantScalar(dtype, 1), zero})});
  std::string upper = ConstantMask(ctx, k, n, [](int64_t i, int64_t j) { return i <= j; });
  std::string u = ctx.Op("Where", {upper, u_part, zero});
  // Where broadcasts the constant branches: expand to the batch explicitly.
  std::vector<std::string> shaped = BroadcastBatch(ctx, {l, u, lu});
  return {shaped[0], shaped[1]};
}

// aten::linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)
absl::Status AtenLinalgLu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, LuDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckPivot(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, "A"));
  const int64_t m = dims.first, n = dims.second;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("A", dtype));
  UnrolledLu lu = LuFactor(ctx, a, m, n, 0, dtype);
  auto [l, u] = UnpackLu(ctx, lu.lu, m, n, dtype);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, PermutationMatrix(ctx, lu.perm, m, dtype)));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, l));
  return ctx.SetOutput(2, u);
}

// aten::lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True,
//                 bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)
// Outputs not unpacked are empty in torch; reading them is refused.
absl::Status AtenLuUnpack(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, LuDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(bool unpack_data, ctx.Bool("unpack_data"));
  PT2ONNX_ASSIGN_OR_RETURN(bool unpack_pivots, ctx.Bool("unpack_pivots"));
  if ((!unpack_pivots && ctx.OutputUsed(0)) ||
      (!unpack_data && (ctx.OutputUsed(1) || ctx.OutputUsed(2)))) {
    return ctx.Unsupported("reading an lu_unpack output that was not unpacked (torch's is empty)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, "LU_data"));
  const int64_t m = dims.first, n = dims.second;
  PT2ONNX_ASSIGN_OR_RETURN(std::string lu, ctx.InputAs("LU_data", dtype));
  if (unpack_pivots) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string piv, ctx.InputAs("LU_pivots", DataType::kInt64));
    std::string perm = PermutationFromPivots(ctx, piv, m, std::min(m, n));
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, PermutationMatrix(ctx, perm, m, dtype)));
  }
  if (unpack_data) {
    auto [l, u] = UnpackLu(ctx, lu, m, n, dtype);
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, l));
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(2, u));
  }
  return absl::OkStatus();
}

// X with A X = B (adjoint: A^T X = B) for A = P L U given as packed LU and
// pivots; LU, pivots and B (..., n, r; r < 0 when symbolic) batches broadcast. getrs's order: swap B's rows,
// then the L and U substitutions (transposed: U^T, L^T, then unswap).
std::string LuSolve(TranslateContext& ctx, const std::string& lu, const std::string& pivots,
                    const std::string& b, int64_t n, int64_t r, bool adjoint, int64_t rank,
                    DataType dtype) {
  std::vector<std::string> shaped = BroadcastBatch(ctx, {lu, Unsqueeze(ctx, pivots, {-1}), b});
  const std::string& f = shaped[0];
  std::string perm = PermutationFromPivots(ctx, Squeeze(ctx, shaped[1], {-1}), n, n);
  std::string rows_shape = ctx.Op("Shape", {shaped[2]});
  // No right-hand sides: nothing to solve (and ONNX Runtime's Expand would
  // not take the row indices down to zero columns).
  if (r == 0) return shaped[2];
  if (!adjoint) {
    std::string pb = ctx.Op("GatherElements", {shaped[2], ctx.Op("Expand", {perm, rows_shape})},
                            {Attribute::Int("axis", -2)});
    std::string y = TriangularSolve(ctx, f, pb, n, /*lower=*/true, /*unit=*/true, dtype);
    return TriangularSolve(ctx, f, y, n, /*lower=*/false, /*unit=*/false, dtype);
  }
  std::string ft = TransposeLast2(ctx, f, rank);
  std::string y = TriangularSolve(ctx, ft, shaped[2], n, /*lower=*/true, /*unit=*/false, dtype);
  std::string z = TriangularSolve(ctx, ft, y, n, /*lower=*/false, /*unit=*/true, dtype);
  // X[perm[i]] = z[i]: gather z by the inverse permutation.
  std::string ids = ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(n),
                                     ctx.ConstantInt64(1)});
  std::string ids_col = ctx.Op("Expand", {Unsqueeze(ctx, ids, {-1}), ctx.Op("Shape", {perm})});
  std::string inverse = ctx.Op("ScatterElements", {perm, perm, ids_col}, {Attribute::Int("axis", -2)});
  return ctx.Op("GatherElements", {z, ctx.Op("Expand", {inverse, rows_shape})},
                {Attribute::Int("axis", -2)});
}

absl::StatusOr<int64_t> LuSize(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, arg));
  if (dims.first != dims.second) return ctx.Invalid("lu_solve needs square LU factors");
  return dims.first;
}

// aten::linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True,
//                       bool adjoint=False) -> Tensor
// left=False solves X A = B as A^T X^T = B^T (adjoint flipped).
absl::Status AtenLinalgLuSolve(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, LuDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, LuSize(ctx, "LU"));
  PT2ONNX_ASSIGN_OR_RETURN(bool left, ctx.Bool("left"));
  PT2ONNX_ASSIGN_OR_RETURN(bool adjoint, ctx.Bool("adjoint"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t b_rank, ctx.InputRank("B"));
  if (b_rank < 2) return ctx.Invalid("linalg_lu_solve needs B to be a batch of matrices");
  const int64_t rank = ctx.OutputRank(0);
  PT2ONNX_ASSIGN_OR_RETURN(std::string lu, ctx.InputAs("LU", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string piv, ctx.InputAs("pivots", DataType::kInt64));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("B", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* b_meta, ctx.InputMeta("B"));
  const auto& cols = b_meta->sizes[left ? b_rank - 1 : b_rank - 2];
  const int64_t r = cols.is_symbolic ? -1 : cols.value;
  if (!left) b = TransposeLast2(ctx, b, b_rank);
  std::string x = LuSolve(ctx, lu, piv, b, n, r, left ? adjoint : !adjoint, rank, dtype);
  if (!left) x = TransposeLast2(ctx, x, rank);
  return ctx.SetOutput(0, x);
}

// aten::lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor
absl::Status AtenLuSolve(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, LuDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, LuSize(ctx, "LU_data"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string lu, ctx.InputAs("LU_data", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string piv, ctx.InputAs("LU_pivots", DataType::kInt64));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* b_meta, ctx.InputMeta("self"));
  if (b_meta->sizes.size() < 2) return ctx.Invalid("lu_solve needs self to be a batch of matrices");
  const auto& cols = b_meta->sizes.back();
  const int64_t r = cols.is_symbolic ? -1 : cols.value;
  return ctx.SetOutput(0, LuSolve(ctx, lu, piv, b, n, r, false, ctx.OutputRank(0), dtype));
}

}  // namespace

void RegisterLinalgLuOps(OpRegistry& r) {
  r.Add("aten::linalg_lu_factor.default", &AtenLinalgLuFactor);
  r.Add("aten::linalg_lu_factor_ex.default", &AtenLinalgLuFactor);
  r.Add("aten::_lu_with_info.default", &AtenLuWithInfo);
  r.Add("aten::linalg_lu.default", &AtenLinalgLu);
  r.Add("aten::lu_unpack.default", &AtenLuUnpack);
  r.Add("aten::linalg_lu_solve.default", &AtenLinalgLuSolve);
  r.Add("aten::lu_solve.default", &AtenLuSolve);
}

}  // namespace pt2onnx::ops
