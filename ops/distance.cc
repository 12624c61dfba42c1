// File: ops/distance.cc
// -----------------------------------------------------------------------------
// Pairwise p-norm distances: _cdist_forward (torch.cdist) and _pdist_forward
// (torch.pdist), as torch's CPU kernels compute them:
//   p = 0: the count of differing coordinates; p = 1: sum |d|;
//   p = 2: sqrt(sum d^2); p = inf: max |d|; otherwise (sum |d|^p)^(1/p).
// cdist with p = 2 uses the matrix-product form
//   sqrt(clamp_min(|x|^2 + |y|^2 - 2 x.y, 0))
// when compute_mode is 1, or when it is None/0 and either point count
// exceeds 25 (aten/src/ATen/native/Distance.cpp); it rounds differently, so
// the same choice is made here (at run time when the counts are symbolic).
#include <cmath>
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
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

std::string SumLast(TranslateContext& ctx, absl::string_view op, const std::string& x) {
  return ctx.Op(op, {x, ctx.ConstantInt64s({-1})}, {Attribute::Int("keepdims", 0)});
}

// The p-norm over the last axis of the differences `diff`.
std::string PNorm(TranslateContext& ctx, const std::string& diff, double p, DataType dtype) {
  std::string magnitude = ctx.Op("Abs", {diff});
  if (p == 0) {
    std::string differs = ctx.Op("Not", {ctx.Op("Equal", {diff, ctx.ConstantScalar(dtype, 0)})});
    return SumLast(ctx, "ReduceSum", ctx.CastTo(differs, DataType::kBool, dtype));
  }
  if (p == 1) return SumLast(ctx, "ReduceSum", magnitude);
  if (p == 2) return ctx.Op("Sqrt", {SumLast(ctx, "ReduceSum", ctx.Op("Mul", {diff, diff}))});
  if (std::isinf(p)) return SumLast(ctx, "ReduceMax", magnitude);
  std::string powered = ctx.Op("Pow", {magnitude, ctx.ConstantScalar(dtype, p)});
  return ctx.Op("Pow", {SumLast(ctx, "ReduceSum", powered), ctx.ConstantScalar(dtype, 1.0 / p)});
}

absl::StatusOr<double> CheckedP(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, ctx.Float("p"));
  if (!(p >= 0)) return ctx.Invalid(absl::StrCat("p must be a non-negative number, got ", p));
  return p;
}

// aten::_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor
// aten::cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor
absl::Status AtenCdistForward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, CheckedP(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank1, ctx.InputRank("x1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank2, ctx.InputRank("x2"));
  if (rank1 < 2 || rank2 < 2) return ctx.Invalid("x1 and x2 must have at least 2 dims");
  std::optional<int64_t> compute_mode;
  if (ctx.Has("compute_mode")) {
    PT2ONNX_ASSIGN_OR_RETURN(compute_mode, ctx.OptionalInt("compute_mode"));
  }
  const int64_t mode = compute_mode.value_or(0);
  if (mode < 0 || mode > 2) {
    return ctx.Invalid(absl::StrCat("compute_mode must be None, 0, 1 or 2, got ", mode));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x1, ctx.InputAs("x1", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x2, ctx.InputAs("x2", dtype));
  // Which form torch uses: 0 direct, 1 matrix product, -1 decided at run time.
  int form = 0;
  if (p == 2 && mode == 1) form = 1;
  if (p == 2 && mode == 0) {
    const pt2::SymInt& r1 = (*ctx.InputMeta("x1"))->sizes[rank1 - 2];
    const pt2::SymInt& r2 = (*ctx.InputMeta("x2"))->sizes[rank2 - 2];
    form = (r1.is_symbolic || r2.is_symbolic) ? -1 : (r1.value > 25 || r2.value > 25) ? 1 : 0;
  }
  std::string direct;
  if (form != 1) {
    direct = PNorm(ctx, ctx.Op("Sub", {Unsqueeze(ctx, x1, {-2}), Unsqueeze(ctx, x2, {-3})}), p,
                   dtype);
    if (form == 0) return ctx.SetOutput(0, direct);
  }

  // torch's _euclidean_dist: [-2 x, |x|^2, 1] . [y, 1, |y|^2]^T.
  auto square_norm = [&](const std::string& x) {
    return ctx.Op("ReduceSum", {ctx.Op("Mul", {x, x}), ctx.ConstantInt64s({-1})},
                  {Attribute::Int("keepdims", 1)});
  };
  std::string n1 = square_norm(x1);
  std::string n2 = square_norm(x2);
  std::string one1 = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1), ctx.Op("Shape", {n1})});
  std::string one2 = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1), ctx.Op("Shape", {n2})});
  std::string a = ctx.Op("Concat", {ctx.Op("Mul", {x1, ctx.ConstantScalar(dtype, -2)}), n1, one1},
                         {Attribute::Int("axis", -1)});
  std::string b = ctx.Op("Concat", {x2, one2, n2}, {Attribute::Int("axis", -1)});
  std::vector<int64_t> swap_last;
  for (int64_t i = 0; i < rank2; ++i) swap_last.push_back(i);
  std::swap(swap_last[rank2 - 1], swap_last[rank2 - 2]);
  std::string product = ctx.Op("MatMul",
                               {a, ctx.Op("Transpose", {b}, {Attribute::Ints("perm", swap_last)})});
  std::string by_matmul = ctx.Op("Sqrt", {ctx.Op("Max", {product, ctx.ConstantScalar(dtype, 0)})});
  if (form == 1) return ctx.SetOutput(0, by_matmul);

  // Symbolic point counts: the matrix form only when one exceeds 25.
  std::string counts = ctx.Op("Concat",
                              {ShapeSlice(ctx, x1, rank1 - 2, rank1 - 1),
                               ShapeSlice(ctx, x2, rank2 - 2, rank2 - 1)},
                              {Attribute::Int("axis", 0)});
  std::string large = ctx.Op("Greater",
                             {ctx.Op("ReduceMax", {counts}, {Attribute::Int("keepdims", 0)}),
                                         ctx.ConstantInt64(25)});
  return ctx.SetOutput(0, ctx.Op("Where", {large, by_matmul, direct}));
}

// aten::_pdist_forward(Tensor self, float p=2.) -> Tensor
// aten::pdist(Tensor self, float p=2.) -> Tensor
// Distances of rows i < j of an (N, M) input, in row-major (i, j) order.
absl::Status AtenPdistForward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, CheckedP(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 2) return ctx.Invalid(absl::StrCat("self must be an (N, M) matrix, got rank ", rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  std::string all = PNorm(ctx, ctx.Op("Sub", {Unsqueeze(ctx, x, {1}), Unsqueeze(ctx, x, {0})}), p,
                          dtype);
  std::string rows = ctx.Op("Range",
                            {ctx.ConstantInt64(0), Squeeze(ctx, ShapeSlice(ctx, x, 0, 1), {0}),
                                      ctx.ConstantInt64(1)});
  std::string upper = ctx.Op("Less", {Unsqueeze(ctx, rows, {1}), Unsqueeze(ctx, rows, {0})});
  return ctx.SetOutput(0, ctx.Op("Compress", {Reshape(ctx, all, {-1}), Reshape(ctx, upper, {-1})},
                                 {Attribute::Int("axis", 0)}));
}

}  // namespace

void RegisterDistanceOps(OpRegistry& r) {
  r.Add("aten::_cdist_forward.default", &AtenCdistForward);
  r.Add("aten::_pdist_forward.default", &AtenPdistForward);
  r.Add("aten::cdist.default", &AtenCdistForward);  // same arguments
  r.Add("aten::pdist.default", &AtenPdistForward);
}

}  // namespace pt2onnx::ops
