// File: ops/orthogonal_polynomials.cc
// -----------------------------------------------------------------------------
// torch.special's classical orthogonal polynomials of a tensor degree n:
// Chebyshev T, U, V, W (and their shifted forms on [0, 1]), Hermite H and
// He, Laguerre L and Legendre P. All translations hold for opsets 18..23.
//
// torch evaluates them (aten/src/ATen/native/Math.h, *_polynomial_*_forward)
// in the input's dtype by the three-term recurrence up to n, after special
// cases that this translation reproduces in torch's order:
// * n is truncated toward zero as static_cast<int64_t> does; NaN, +-inf and
//   |n| >= 2^63 become INT64_MIN on the x86 builds (hermite_h says -1
//   outright), i.e. a negative degree: every polynomial is 0 there;
// * Chebyshev-type: the values at x = +-1 (x = 0, 1 for the shifted ones),
//   and for |x| < 1 past a degree (6, 8 or 4) the closed trigonometric form
//   torch switches to, computed as torch does (float32 for float inputs);
// * Hermite H / He are NaN past n = 128 (float32) or 512 (float64);
//   Laguerre is 1 at x = 0, Legendre +-1 at x = +-1.
// The recurrence itself runs as an ONNX Loop over the largest degree that
// needs it, each element stepping while its own degree is not reached, in
// the compute dtype (float32 for float32 / float16 / bfloat16, else
// float64) so that overflow and cancellation happen where torch's do. For
// float64 the trigonometric branch is left to the recurrence (ONNX Runtime
// has no float64 Acos / Cos): both are exact to float64 rounding there, but
// a float64 degree in the millions on (-1, 1) then costs that many steps.
// The loop ends early once every element still stepping is NaN, as torch's.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/loop_builder.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/formula.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {


enum class Family { kChebyshevT, kChebyshevU, kChebyshevV, kChebyshevW, kHermiteH, kHermiteE, kLaguerre, kLegendre };

// P_{k+1} from p = P_{k-1}, q = P_k at loop iteration i (k = i + 1).
std::string Step(Formula& m, Family family, const std::string& x, const std::string& i, const std::string& p,
                 const std::string& q) {
  switch (family) {
    case Family::kHermiteH: {  // (x + x) q - 2k p
      std::string k2 = m.mul({m.add({i, m.c(1)}), m.c(2)});
      return m.sub({m.mul({m.add({x, x}), q}), m.mul({k2, p})});
    }
    case Family::kHermiteE: {  // x q - k p
      std::string k = m.add({i, m.c(1)});
      return m.sub({m.mul({x, q}), m.mul({k, p})});
    }
    case Family::kLaguerre: {  // ((2k + (1 - x)) q - k p) / (k + 1)
      std::string k = m.add({i, m.c(1)});
      std::string a = m.add({m.add({k, k}), m.sub({m.c(1), x})});
      return m.div({m.sub({m.mul({a, q}), m.mul({k, p})}), m.add({k, m.c(1)})});
    }
    case Family::kLegendre: {  // ((2k + 1) x q - k p) / (k + 1)
      std::string k = m.add({i, m.c(1)});
      std::string a = m.mul({m.mul({m.add({m.add({k, k}), m.c(1)}), x}), q});
      return m.div({m.sub({a, m.mul({k, p})}), m.add({k, m.c(1)})});
    }
    default:  // Chebyshev kinds: (x + x) q - p (x already shifted)
      return m.sub({m.mul({m.add({x, x}), q}), p});
  }
}

// P_n(x) for every element with n >= 1 (q after n - 1 masked steps from
// P_0 = 1, P_1 = p1). `needed` holds the degrees the recurrence must reach
// (0 where another branch decides), bounding the trip count.
std::string Recurrence(Formula& m, Family family, const std::string& x, const std::string& n, const std::string& p1,
                       const std::string& needed) {
  TranslateContext& ctx = m.ctx;
  // P_0 and P_1 broadcast to the shape of (x, n) by a Where on a condition
  // of that shape, so that shape inference sees it.
  std::string full = m.lt({x, n});
  std::string p0 = m.where({full, m.c(1), m.c(1)});
  std::string q0 = m.where({full, p1, p1});
  std::string flat = ctx.Op("Reshape", {needed, ctx.ConstantInt64s({-1})});
  std::string padded = ctx.Op("Concat", {flat, ctx.Op("Reshape", {m.c(0), ctx.ConstantInt64s({1})})},
                              {ir::Attribute::Int("axis", 0)});
  std::string most = ctx.Op("ReduceMax", {padded}, {ir::Attribute::Int("keepdims", 0)});
  std::string trips = ctx.CastTo(m.op("Relu", m.sub({most, m.c(1)})), m.dtype, DataType::kInt64);

  const LoopValueType type{m.dtype, LoopResultDims(ctx)};
  std::vector<std::string> results = LoopWhilePending(
      ctx, "recurrence", trips, {p0, q0}, {type, type},
      [&](const std::string& trip, const std::vector<std::string>& carried) {
        const std::string& p = carried[0];
        const std::string& q = carried[1];
        std::string i = ctx.CastTo(trip, DataType::kInt64, m.dtype);
        std::string r = Step(m, family, x, i, p, q);
        std::string active = m.lt({m.add({i, m.c(1)}), n});
        std::string q_next = m.where({active, r, q});
        // Go on while an element has steps left and a number to step: torch
        // stops its loop at NaN (overflow gives inf - inf), so huge degrees end early.
        std::string pending = m.both({m.lt({m.add({i, m.c(2)}), n}), m.op("Not", m.op("IsNaN", q_next))});
        return LoopTrip{{m.where({active, q, p}), q_next}, pending};
      });
  return results[1];
}

struct Spec {
  Family family;
  bool shifted = false;
};

// aten::special_chebyshev_polynomial_t(Tensor x, Tensor n) -> Tensor (and
// the x_scalar / n_scalar overloads; every polynomial alike).
absl::Status Polynomial(TranslateContext& ctx, Spec spec) {
  DataType out = ctx.OutputDtype(0);
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(out), " result"));
  }
  const DataType dt = out == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
  const bool trig_allowed = dt == DataType::kFloat;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs("x", dt));
  PT2ONNX_ASSIGN_OR_RETURN(std::string raw_n, ctx.InputOrScalarAs("n", dt));
  Formula m{ctx, dt};
  // The degree as torch's int64 cast leaves it (see the file comment).
  std::string truncated = m.where({m.lt({raw_n, m.c(0)}), m.op("Ceil", raw_n), m.op("Floor", raw_n)});
  std::string in_range = m.lt({m.op("Abs", raw_n), m.c(9223372036854775808.0)});
  std::string n = m.where({in_range, truncated, m.c(-1)});
  std::string even = m.eq({m.mul({m.op("Floor", m.div({n, m.c(2)})), m.c(2)}), n});
  std::string positive = m.gt({x, m.c(0)});
  std::string one = m.c(1);
  std::string n1 = m.add({n, one});                   // n + 1
  std::string n2 = m.add({m.add({n, n}), one});       // 2n + 1

  // Branches in torch's order of precedence, highest last: {condition, value}.
  std::vector<std::pair<std::string, std::string>> cases;
  std::string y = x;  // the Chebyshev argument
  std::string p1;
  switch (spec.family) {
    case Family::kHermiteH:
    case Family::kHermiteE: {
      p1 = spec.family == Family::kHermiteH ? m.add({x, x}) : x;
      const double limit = dt == DataType::kDouble ? 512 : 128;
      cases.push_back({m.gt({n, m.c(limit)}), m.c(std::numeric_limits<double>::quiet_NaN())});
      break;
    }
    case Family::kLaguerre:
      p1 = m.sub({one, x});
      cases.push_back({m.eq({n, m.c(0)}), one});
      cases.push_back({m.eq({m.op("Abs", x), m.c(0)}), one});
      break;
    case Family::kLegendre: {
      p1 = x;
      cases.push_back({m.eq({n, m.c(0)}), one});
      std::string sign = m.where({m.either({positive, even}), one, m.c(-1)});
      cases.push_back({m.eq({m.op("Abs", x), one}), sign});
      break;
    }
    default: {
      if (spec.shifted) y = m.sub({m.add({x, x}), one});
      const Family f = spec.family;
      p1 = f == Family::kChebyshevT   ? y
           : f == Family::kChebyshevU ? m.add({y, y})
           : f == Family::kChebyshevV ? m.sub({m.add({y, y}), one})
                                      : m.add({m.add({y, y}), one});
      cases.push_back({m.eq({n, m.c(0)}), one});
      double threshold = f == Family::kChebyshevT ? 6 : 8;
      if (spec.shifted) threshold = f == Family::kChebyshevW ? 4 : 6;
      std::string parity = m.where({even, one, m.c(-1)});              // (-1)^n
      std::string odd_n2 = m.where({even, n2, m.op("Neg", n2)});       // (-1)^n (2n + 1)
      std::string odd_n1 = m.where({even, n1, m.op("Neg", n1)});       // (-1)^n (n + 1)
      if (trig_allowed) {
        std::string inside = m.both({m.gt({n, m.c(threshold)}), m.lt({m.op("Abs", y), one})});
        std::string theta = m.op("Acos", y);
        std::string half = m.div({theta, m.c(2)});
        std::string value;
        if (f == Family::kChebyshevT) {
          value = m.op("Cos", m.mul({n, theta}));
        } else if (f == Family::kChebyshevU) {
          std::string s = m.op("Sin", theta);
          std::string angle = m.mul({n1, theta});
          std::string regular = m.div({m.op("Sin", angle), s});
          std::string degenerate = m.div({m.mul({n1, m.op("Cos", angle)}), y});
          value = m.where({m.ne({s, m.c(0)}), regular, degenerate});
        } else if (f == Family::kChebyshevV) {
          std::string angle = m.mul({m.add({n, m.c(0.5)}), theta});
          std::string regular = m.div({m.op("Cos", angle), m.op("Cos", half)});
          value = m.where({m.ne({m.op("Sin", half), one}), regular, odd_n2});
        } else {
          std::string angle = m.mul({m.add({n, m.c(0.5)}), theta});
          std::string regular = m.div({m.op("Sin", angle), m.op("Sin", half)});
          std::string fallback = spec.shifted ? parity : m.where({positive, n2, parity});
          value = m.where({m.ne({m.op("Cos", half), one}), regular, fallback});
        }
        cases.push_back({inside, value});
      }
      // The end points: x = +-1, or x = 0 and 1 for the shifted kinds.
      std::string at_plus, at_minus, plus_value, minus_value;
      if (spec.shifted) {
        at_minus = m.eq({x, m.c(0)});
        at_plus = m.eq({x, one});
      } else {
        std::string unit = m.eq({m.op("Abs", x), one});
        at_minus = m.both({unit, m.op("Not", positive)});
        at_plus = m.both({unit, positive});
      }
      switch (f) {
        case Family::kChebyshevT: plus_value = one, minus_value = parity; break;
        case Family::kChebyshevU: plus_value = n1, minus_value = odd_n1; break;
        case Family::kChebyshevV: plus_value = one, minus_value = odd_n2; break;
        default: plus_value = n2, minus_value = parity; break;
      }
      cases.push_back({at_minus, minus_value});
      cases.push_back({at_plus, plus_value});
      break;
    }
  }
  if (spec.family == Family::kHermiteH || spec.family == Family::kHermiteE) {
    cases.insert(cases.begin(), {m.eq({n, m.c(0)}), one});
  }
  // Degrees the recurrence must reach: none where a later case decides.
  std::string decided = m.lt({n, one});
  for (const auto& [condition, value] : cases) decided = m.either({decided, condition});
  std::string needed = m.where({decided, m.c(0), n});
  std::string y_or_x = spec.family <= Family::kChebyshevW ? y : x;
  std::string result = Recurrence(m, spec.family, y_or_x, n, p1, needed);
  for (const auto& [condition, value] : cases) result = m.where({condition, value, result});
  result = m.where({m.lt({n, m.c(0)}), m.c(0), result});
  return BindResult(ctx, ctx.CastTo(result, dt, out));
}

absl::Status ChebyshevT(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevT}); }
absl::Status ChebyshevU(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevU}); }
absl::Status ChebyshevV(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevV}); }
absl::Status ChebyshevW(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevW}); }
absl::Status ShiftedT(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevT, true}); }
absl::Status ShiftedU(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevU, true}); }
absl::Status ShiftedV(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevV, true}); }
absl::Status ShiftedW(TranslateContext& ctx) { return Polynomial(ctx, {Family::kChebyshevW, true}); }
absl::Status HermiteH(TranslateContext& ctx) { return Polynomial(ctx, {Family::kHermiteH}); }
absl::Status HermiteE(TranslateContext& ctx) { return Polynomial(ctx, {Family::kHermiteE}); }
absl::Status Laguerre(TranslateContext& ctx) { return Polynomial(ctx, {Family::kLaguerre}); }
absl::Status Legendre(TranslateContext& ctx) { return Polynomial(ctx, {Family::kLegendre}); }

void AddThree(OpRegistry& r, const std::string& name, TranslateFn fn) {
  for (const char* overload : {".default", ".x_scalar", ".n_scalar"}) r.Add(absl::StrCat("aten::", name, overload), fn);
}

}  // namespace

void RegisterOrthogonalPolynomialOps(OpRegistry& r) {
  AddThree(r, "special_chebyshev_polynomial_t", &ChebyshevT);
  AddThree(r, "special_chebyshev_polynomial_u", &ChebyshevU);
  AddThree(r, "special_chebyshev_polynomial_v", &ChebyshevV);
  AddThree(r, "special_chebyshev_polynomial_w", &ChebyshevW);
  AddThree(r, "special_shifted_chebyshev_polynomial_t", &ShiftedT);
  AddThree(r, "special_shifted_chebyshev_polynomial_u", &ShiftedU);
  AddThree(r, "special_shifted_chebyshev_polynomial_v", &ShiftedV);
  AddThree(r, "special_shifted_chebyshev_polynomial_w", &ShiftedW);
  AddThree(r, "special_hermite_polynomial_h", &HermiteH);
  AddThree(r, "special_hermite_polynomial_he", &HermiteE);
  AddThree(r, "special_laguerre_polynomial_l", &Laguerre);
  AddThree(r, "special_legendre_polynomial_p", &Legendre);
}

}  // namespace pt2onnx::ops
