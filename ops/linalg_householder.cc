// File: ops/linalg_householder.cc
// -----------------------------------------------------------------------------
// linalg_householder_product (orgqr): the first n columns of
// H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i = (0.., 1, A[i+1:, i]),
// unrolled over the static reflector count k (at most kMaxUnrolledSize,
// ops/linalg_unrolled_helpers.h). The reflectors are applied last to first
// to the leading columns of the identity, as LAPACK's org2r does. (QR itself,
// SVD and eigendecompositions are not translated.)
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/linalg_unrolled_helpers.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

std::string SliceAt(TranslateContext& ctx, const std::string& x, int64_t axis, int64_t start,
                    int64_t end) {
  return ctx.Op("Slice", {x, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}),
                          ctx.ConstantInt64s({axis})});
}

// aten::linalg_householder_product(Tensor input, Tensor tau) -> Tensor
absl::Status AtenLinalgHouseholderProduct(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("householder_product of dtype ", DataTypeName(dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, "input"));
  const int64_t m = dims.first, n = dims.second;
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* tau_meta, ctx.InputMeta("tau"));
  if (tau_meta->sizes.empty() || tau_meta->sizes.back().is_symbolic) {
    return ctx.Unsupported("householder_product needs a static number of reflectors");
  }
  const int64_t k = tau_meta->sizes.back().value;
  if (m < n || n < k) return ctx.Invalid("householder_product needs m >= n >= k");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("input", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string tau, ctx.InputAs("tau", dtype));
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string v = ctx.Op(
      "Where",
      {ConstantMask(ctx, m, n, [](int64_t i, int64_t j) { return i > j; }), a,
       ctx.Op("Where", {ConstantMask(ctx, m, n, [](int64_t i, int64_t j) { return i == j; }),
                        ctx.ConstantScalar(dtype, 1), zero})});
  std::string eye = ctx.CastTo(ConstantMask(ctx, m, n, [](int64_t i, int64_t j) { return i == j; }),
                               DataType::kBool, dtype);
  std::string q = BroadcastBatch(ctx, {eye, a})[0];
  for (int64_t i = k - 1; i >= 0; --i) {
    std::string vi = SliceAt(ctx, v, -1, i, i + 1);                          // (..., m, 1)
    std::string ti = Unsqueeze(ctx, SliceAt(ctx, tau, -1, i, i + 1), {-1});  // (..., 1, 1)
    std::string vtq = ctx.Op("MatMul", {TransposeLast2(ctx, vi, rank), q});  // (..., 1, n)
    q = ctx.Op("Sub", {q, ctx.Op("Mul", {ctx.Op("Mul", {vi, ti}), vtq})});
  }
  return ctx.SetOutput(0, q);
}

}  // namespace

void RegisterLinalgHouseholderOps(OpRegistry& r) {
  r.Add("aten::linalg_householder_product.default", &AtenLinalgHouseholderProduct);
}

}  // namespace pt2onnx::ops
