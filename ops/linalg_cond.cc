// File: ops/linalg_cond.cc
// -----------------------------------------------------------------------------
// linalg_cond as torch computes it (aten/src/ATen/native/LinearAlgebra.cpp,
// linalg_cond and _linalg_cond_helper): p None / 2 / -2 from the singular
// values (sigma_max / sigma_min, or its reciprocal); p 1, -1, inf, -inf,
// 'fro' and 'nuc' as norm(A) * norm(A^-1), the inverse of a singular matrix
// filled with inf and a NaN product turned into inf. An empty input gives
// zeros. Everything runs in float64 on static sizes up to kMaxUnrolledSize.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/linalg_spectral_helpers.h"
#include "ops/linalg_unrolled_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;
constexpr DataType kF64 = DataType::kDouble;

std::string Reduce(TranslateContext& ctx, absl::string_view op, const std::string& x,
                   std::vector<int64_t> axes) {
  return ctx.Op(op, {x, ctx.ConstantInt64s(std::move(axes))}, {Attribute::Int("keepdims", 0)});
}

// One of the orders torch's cond takes norms with ('fro', 'nuc', ±1, ±inf).
struct Order {
  std::string name;  // "fro", "nuc" or empty for a number
  double p = 2;
};

std::string Norm(TranslateContext& ctx, const SpectralInput& in, const std::string& x,
                 const Order& ord) {
  if (ord.name == "fro") return Reduce(ctx, "ReduceL2", x, {-2, -1});
  if (ord.name == "nuc") {
    return Reduce(ctx, "ReduceSum", SingularValuesOf(ctx, x, in.rows, in.cols, in.rank, in.empty_batch), {-1});
  }
  const bool columns = std::abs(ord.p) == 1;
  std::string sums = ctx.Op("ReduceSum", {ctx.Op("Abs", {x}), ctx.ConstantInt64s({columns ? -2 : -1})},
                            {Attribute::Int("keepdims", 0)});
  return Reduce(ctx, ord.p > 0 ? "ReduceMax" : "ReduceMin", sums, {-1});
}

absl::Status Cond(TranslateContext& ctx, const Order& ord) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, "self"));
  const int64_t m = in.rows, n = in.cols;
  if (m == 0 || n == 0) {
    std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(kF64, 0), BatchShape(ctx, in.a)});
    return ctx.SetOutput(0, ctx.CastTo(zeros, kF64, in.dtype));
  }
  if (ord.name.empty() && std::abs(ord.p) == 2) {
    std::string sv = SingularValuesOf(ctx, in.a, m, n, in.rank, in.empty_batch);
    std::string top = Reduce(ctx, "ReduceMax", sv, {-1});
    std::string bottom = Reduce(ctx, "ReduceMin", sv, {-1});
    std::string r = ord.p > 0 ? ctx.Op("Div", {top, bottom}) : ctx.Op("Div", {bottom, top});
    return ctx.SetOutput(0, ctx.CastTo(r, kF64, in.dtype));
  }
  if (m != n) return ctx.Invalid("linalg.cond with this norm needs square matrices");
  SolvedSystem inv = Inverse(ctx, in.a, n, kF64);
  std::string singular = Unsqueeze(ctx, ctx.Op("Greater", {inv.info, ctx.ConstantScalar(DataType::kInt32, 0)}),
                                   {-1, -2});
  std::string inverse = ctx.Op("Where", {singular, ctx.ConstantScalar(kF64, INFINITY), inv.x});
  std::string r = ctx.Op("Mul", {Norm(ctx, in, in.a, ord), Norm(ctx, in, inverse, ord)});
  r = ctx.Op("Where", {ctx.Op("IsNaN", {r}), ctx.ConstantScalar(kF64, INFINITY), r});
  return ctx.SetOutput(0, ctx.CastTo(r, kF64, in.dtype));
}

// aten::linalg_cond(Tensor self, Scalar? p=None) -> Tensor
absl::Status AtenLinalgCond(TranslateContext& ctx) {
  Order ord;
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("p"));
  if (arg.kind != pt2::Argument::Kind::kNone) {
    PT2ONNX_ASSIGN_OR_RETURN(ScalarValue v, ctx.Scalar("p"));
    ord.p = v.AsDouble();
  }
  if (std::abs(ord.p) != 2 && std::abs(ord.p) != 1 && !std::isinf(ord.p)) {
    return ctx.Invalid(absl::StrCat("linalg.cond got an invalid norm type: ", ord.p));
  }
  return Cond(ctx, ord);
}

// aten::linalg_cond.p_str(Tensor self, str p) -> Tensor
absl::Status AtenLinalgCondStr(TranslateContext& ctx) {
  Order ord;
  PT2ONNX_ASSIGN_OR_RETURN(ord.name, ctx.String("p"));
  if (ord.name != "fro" && ord.name != "nuc") {
    return ctx.Invalid(absl::StrCat("linalg.cond got an invalid norm type: ", ord.name));
  }
  return Cond(ctx, ord);
}

}  // namespace

void RegisterLinalgCondOps(OpRegistry& r) {
  r.Add("aten::linalg_cond.default", &AtenLinalgCond);
  r.Add("aten::linalg_cond.p_str", &AtenLinalgCondStr);
}

}  // namespace pt2onnx::ops
