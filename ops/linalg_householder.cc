// File: ops/linalg_householder.cc
// -----------------------------------------------------------------------------
// linalg_householder_product (orgqr): the first n columns of
// H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i = (0.., 1, A[i+1:, i]),
// unrolled over the static reflector count k (at most kMaxUnrolledSize,
// ops/linalg_unrolled_helpers.h). The reflectors are applied last to first
// to the leading columns of the identity, as LAPACK's org2r does. Also geqrf
// linalg_qr and ormqr (Householder QR as geqr2: R's diagonal signs follow
// LAPACK's).
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

// The first `cols` columns of H_1 ... H_k for the reflectors stored below
// the diagonal of a (..., m, >= k) and tau (..., >= k).
std::string HouseholderProduct(TranslateContext& ctx, const std::string& a, const std::string& tau,
                               int64_t m, int64_t a_cols, int64_t cols, int64_t k, int64_t rank,
                               DataType dtype) {
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string v = ctx.Op(
      "Where",
      {ConstantMask(ctx, m, a_cols, [](int64_t i, int64_t j) { return i > j; }), a,
       ctx.Op("Where", {ConstantMask(ctx, m, a_cols, [](int64_t i, int64_t j) { return i == j; }),
                        ctx.ConstantScalar(dtype, 1), zero})});
  std::string eye = ctx.CastTo(
      ConstantMask(ctx, m, cols, [](int64_t i, int64_t j) { return i == j; }), DataType::kBool, dtype);
  std::string q = BroadcastBatch(ctx, {eye, a})[0];
  for (int64_t i = k - 1; i >= 0; --i) {
    std::string vi = SliceAt(ctx, v, -1, i, i + 1);                          // (..., m, 1)
    std::string ti = Unsqueeze(ctx, SliceAt(ctx, tau, -1, i, i + 1), {-1});  // (..., 1, 1)
    std::string vtq = ctx.Op("MatMul", {TransposeLast2(ctx, vi, rank), q});  // (..., 1, cols)
    q = ctx.Op("Sub", {q, ctx.Op("Mul", {ctx.Op("Mul", {vi, ti}), vtq})});
  }
  return q;
}

absl::StatusOr<DataType> FloatDtype(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("Householder ops of dtype ", DataTypeName(dtype)));
  }
  return dtype;
}

// aten::linalg_householder_product(Tensor input, Tensor tau) -> Tensor
absl::Status AtenLinalgHouseholderProduct(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
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
  return ctx.SetOutput(0, HouseholderProduct(ctx, a, tau, m, n, n, k, rank, dtype));
}

// Householder QR of (..., m, n) as LAPACK's geqr2/larfg: per column the
// reflector that maps it to beta e_1, beta = -sign(alpha) * ||(alpha, x)||
// (tau = 0 when x is zero), stored below the diagonal; tau (..., min(m, n)).
std::pair<std::string, std::string> Geqrf(TranslateContext& ctx, const std::string& a, int64_t m,
                                          int64_t n, int64_t rank, DataType dtype) {
  const int64_t k = std::min(m, n);
  std::string w = a;
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string one = ctx.ConstantScalar(dtype, 1);
  std::vector<std::string> taus;
  for (int64_t i = 0; i < k; ++i) {
    std::string col = SliceAt(ctx, w, -1, i, i + 1);  // (..., m, 1)
    std::string alpha = SliceAt(ctx, col, -2, i, i + 1);
    std::string x = ctx.Op("Where", {ConstantMask(ctx, m, 1, [i](int64_t r, int64_t) { return r > i; }),
                                     col, zero});
    std::string xnorm2 = ctx.Op("ReduceSum", {ctx.Op("Mul", {x, x}), ctx.ConstantInt64s({-2})},
                                {Attribute::Int("keepdims", 1)});
    std::string nonzero = ctx.Op("Greater", {xnorm2, zero});
    std::string norm = ctx.Op("Sqrt", {ctx.Op("Add", {ctx.Op("Mul", {alpha, alpha}), xnorm2})});
    std::string beta = ctx.Op("Where", {ctx.Op("Less", {alpha, zero}), norm, ctx.Op("Neg", {norm})});
    std::string safe_beta = ctx.Op("Where", {nonzero, beta, one});
    std::string tau = ctx.Op("Where", {nonzero, ctx.Op("Div", {ctx.Op("Sub", {beta, alpha}), safe_beta}),
                                       zero});
    std::string gap = ctx.Op("Where", {nonzero, ctx.Op("Sub", {alpha, beta}), one});
    std::string scaled = ctx.Op("Mul", {x, ctx.Op("Div", {one, gap})});
    std::string is_i = ConstantMask(ctx, m, 1, [i](int64_t r, int64_t) { return r == i; });
    std::string v = ctx.Op("Where", {is_i, one, scaled});  // (..., m, 1), zero above i
    // Apply H = I - tau v v^T to the columns right of i.
    std::string vtw = ctx.Op("MatMul", {TransposeLast2(ctx, v, rank), w});  // (..., 1, n)
    std::string updated = ctx.Op("Sub", {w, ctx.Op("Mul", {ctx.Op("Mul", {v, tau}), vtw})});
    std::string right = ConstantMask(ctx, m, n, [i](int64_t r, int64_t c) { return r >= i && c > i; });
    std::string below = ConstantMask(ctx, m, n, [i](int64_t r, int64_t c) { return r > i && c == i; });
    std::string at = ConstantMask(ctx, m, n, [i](int64_t r, int64_t c) { return r == i && c == i; });
    std::string new_alpha = ctx.Op("Where", {nonzero, beta, alpha});
    w = ctx.Op("Where", {right, updated,
                         ctx.Op("Where", {below, v, ctx.Op("Where", {at, new_alpha, w})})});
    taus.push_back(Squeeze(ctx, tau, {-1}));  // (..., 1)
  }
  std::string tau;
  if (k == 0) {
    tau = ctx.Op("Expand", {zero, ctx.Op("Concat", {BatchShape(ctx, a), ctx.ConstantInt64s({0})},
                                         {Attribute::Int("axis", 0)})});
  } else {
    tau = taus.size() == 1 ? taus[0] : ctx.Op("Concat", taus, {Attribute::Int("axis", -1)});
  }
  return {w, tau};
}

// aten::geqrf(Tensor self) -> (Tensor a, Tensor tau)
absl::Status AtenGeqrf(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  auto [w, tau] = Geqrf(ctx, a, dims.first, dims.second, rank, dtype);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.Op("Identity", {w})));
  return ctx.SetOutput(1, tau);
}

// aten::linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)
// Q from the reflectors (m x k, or m x m for 'complete'), R the upper
// triangle of geqrf's result; mode 'r' leaves Q empty (reading it is refused).
absl::Status AtenLinalgQr(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, "A"));
  const int64_t m = dims.first, n = dims.second, k = std::min(m, n);
  PT2ONNX_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode"));
  if (mode != "reduced" && mode != "complete" && mode != "r") {
    return ctx.Invalid(absl::StrCat("qr received unrecognized mode '", mode, "'"));
  }
  if (mode == "r" && ctx.OutputUsed(0)) return ctx.Unsupported("reading Q of linalg_qr(mode='r')");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("A"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("A", dtype));
  auto [w, tau] = Geqrf(ctx, a, m, n, rank, dtype);
  const int64_t r_rows = mode == "complete" ? m : k;
  std::string upper = ConstantMask(ctx, r_rows, n, [](int64_t i, int64_t j) { return i <= j; });
  std::string r = ctx.Op("Where", {upper, SliceAt(ctx, w, -2, 0, r_rows),
                                   ctx.ConstantScalar(dtype, 0)});
  r = BroadcastBatch(ctx, {r, a})[0];
  if (mode != "r") {
    const int64_t q_cols = mode == "complete" ? m : k;
    // The reflectors live in w's first k columns; complete mode needs m.
    std::string v = SliceAt(ctx, w, -1, 0, k);
    PT2ONNX_RETURN_IF_ERROR(
        ctx.SetOutput(0, HouseholderProduct(ctx, v, tau, m, k, q_cols, k, rank, dtype)));
  }
  return ctx.SetOutput(1, r);
}

// aten::ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True,
//             bool transpose=False) -> Tensor
// op(Q) C (left) or C op(Q) for Q = H_1 ... H_k from geqrf's reflectors
// (self) and tau (input2); each H_i is symmetric, so op(Q) only reverses
// the order in which they apply.
absl::Status AtenOrmqr(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(auto vdims, StaticMatrixDims(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(auto cdims, StaticMatrixDims(ctx, "input3"));
  PT2ONNX_ASSIGN_OR_RETURN(bool left, ctx.Bool("left"));
  PT2ONNX_ASSIGN_OR_RETURN(bool transpose, ctx.Bool("transpose"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* tau_meta, ctx.InputMeta("input2"));
  if (tau_meta->sizes.empty() || tau_meta->sizes.back().is_symbolic) {
    return ctx.Unsupported("ormqr needs a static number of reflectors");
  }
  const int64_t k = tau_meta->sizes.back().value;
  const int64_t mq = left ? cdims.first : cdims.second;
  if (vdims.first != mq || k > vdims.second || k > mq) {
    return ctx.Invalid("ormqr: the reflectors do not fit input3");
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t v_rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string tau, ctx.InputAs("input2", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string c, ctx.InputAs("input3", dtype));
  const int64_t vc = vdims.second;
  std::string v = ctx.Op(
      "Where",
      {ConstantMask(ctx, mq, vc, [](int64_t i, int64_t j) { return i > j; }), a,
       ctx.Op("Where", {ConstantMask(ctx, mq, vc, [](int64_t i, int64_t j) { return i == j; }),
                        ctx.ConstantScalar(dtype, 1), ctx.ConstantScalar(dtype, 0)})});
  // Q C applies H_k first; Q^T C H_1 first; C Q H_1 first; C Q^T H_k first.
  const bool backward = left != transpose;
  for (int64_t step = 0; step < k; ++step) {
    const int64_t i = backward ? k - 1 - step : step;
    std::string vi = SliceAt(ctx, v, -1, i, i + 1);                          // (..., mq, 1)
    std::string ti = Unsqueeze(ctx, SliceAt(ctx, tau, -1, i, i + 1), {-1});  // (..., 1, 1)
    std::string vt = TransposeLast2(ctx, vi, v_rank);                        // (..., 1, mq)
    if (left) {
      c = ctx.Op("Sub", {c, ctx.Op("Mul", {ctx.Op("Mul", {vi, ti}), ctx.Op("MatMul", {vt, c})})});
    } else {
      c = ctx.Op("Sub", {c, ctx.Op("Mul", {ctx.Op("MatMul", {c, vi}), ctx.Op("Mul", {vt, ti})})});
    }
  }
  return ctx.SetOutput(0, ctx.Op("Identity", {c}));
}

}  // namespace

void RegisterLinalgHouseholderOps(OpRegistry& r) {
  r.Add("aten::linalg_householder_product.default", &AtenLinalgHouseholderProduct);
  r.Add("aten::geqrf.default", &AtenGeqrf);
  r.Add("aten::linalg_qr.default", &AtenLinalgQr);
  r.Add("aten::ormqr.default", &AtenOrmqr);
}

}  // namespace pt2onnx::ops
