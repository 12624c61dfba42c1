// File: ops/linalg_cholesky.cc
// -----------------------------------------------------------------------------
// Cholesky factorization and its uses, unrolled over static matrix sizes up
// to kMaxUnrolledSize (ops/linalg_unrolled_helpers.h): linalg_cholesky(_ex),
// cholesky_solve and cholesky_inverse. Only the lower triangle of A is read
// (upper=True returns L^T, as torch does for real inputs). Where torch would
// raise for a matrix that is not positive definite the factor holds NaN;
// linalg_cholesky_ex reports it in info.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/linalg_unrolled_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

absl::StatusOr<DataType> CholeskyDtype(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("Cholesky of dtype ", DataTypeName(dtype),
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

// aten::linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor
// aten::linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False)
//     -> (Tensor L, Tensor info)
absl::Status AtenLinalgCholesky(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, CholeskyDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, ctx.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  UnrolledCholesky c = CholeskyFactor(ctx, a, n, dtype);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, upper ? TransposeLast2(ctx, c.l, rank) : c.l));
  if (ctx.num_outputs() > 1) return ctx.SetOutput(1, c.info);
  return absl::OkStatus();
}

// X with A X = B for A = L L^T (upper: A = U^T U), batches broadcast.
std::string CholeskySolve(TranslateContext& ctx, const std::string& factor, const std::string& b,
                          int64_t n, bool upper, int64_t rank, DataType dtype) {
  std::vector<std::string> both = BroadcastBatch(ctx, {factor, b});
  std::string f = both[0];
  std::string ft = TransposeLast2(ctx, f, rank);
  // lower: L y = B, L^T x = y; upper: U^T y = B, U x = y.
  std::string y = TriangularSolve(ctx, upper ? ft : f, both[1], n, /*lower=*/true, false, dtype);
  return TriangularSolve(ctx, upper ? f : ft, y, n, /*lower=*/false, false, dtype);
}

// aten::cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor
absl::Status AtenCholeskySolve(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, CholeskyDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "input2"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, ctx.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t b_rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t f_rank, ctx.InputRank("input2"));
  if (b_rank < 2) return ctx.Invalid("cholesky_solve needs self to be a batch of matrices");
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string f, ctx.InputAs("input2", dtype));
  return ctx.SetOutput(0, CholeskySolve(ctx, f, b, n, upper, std::max(b_rank, f_rank), dtype));
}

// aten::cholesky_inverse(Tensor self, bool upper=False) -> Tensor
// (L L^T)^-1 (upper: (U^T U)^-1) from the factor.
absl::Status AtenCholeskyInverse(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, CholeskyDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SquareSize(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, ctx.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string f, ctx.InputAs("self", dtype));
  std::string eye = BatchedEye(ctx, n, BatchShape(ctx, f), dtype);
  return ctx.SetOutput(0, CholeskySolve(ctx, f, eye, n, upper, rank, dtype));
}

}  // namespace

void RegisterLinalgCholeskyOps(OpRegistry& r) {
  r.Add("aten::linalg_cholesky.default", &AtenLinalgCholesky);
  r.Add("aten::linalg_cholesky_ex.default", &AtenLinalgCholesky);
  r.Add("aten::cholesky_solve.default", &AtenCholeskySolve);
  r.Add("aten::cholesky_inverse.default", &AtenCholeskyInverse);
}

}  // namespace pt2onnx::ops
