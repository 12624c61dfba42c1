// File: ops/special_functions.cc
// -----------------------------------------------------------------------------
// torch.special functions ONNX has no operator for, as float64 composites
// rounded once to the output dtype: erfcx, ndtr, ndtri, log_ndtr and
// xlog1py; and entr. (i0 and i0e live with the other modified Bessel
// functions, in modified_bessel.cc.) All translations hold for opsets 18..23.
//
// * erfcx(|x|) is exp(x^2) (1 - erf) with erf's Taylor series below 2 (30
//   terms) and Laplace's continued fraction for erfc from 2 on (50 terms);
//   both are within 1e-9 relative of the true value in float64 (checked
//   against mpmath), far below float32's rounding. Negative x use
//   erfcx(x) = 2 exp(x^2) - erfcx(-x). erfc and so ndtr / log_ndtr come from
//   the same pieces, accurate in the tails where 1 - erf would cancel.
// * log_ndtr splits at x = -1 as torch's calc_log_ndtr (Math.h).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/formula.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr DataType kF64 = DataType::kDouble;

struct F64 : Formula {
  // log(1 + v) without the rounding of 1 + v (Kahan): v where 1 + v == 1,
  // +inf at +inf (where the correction would be inf / inf).
  std::string log1p(const std::string& v) {
    std::string u = add({c(1), v});
    std::string scaled = div({mul({op("Log", u), v}), sub({u, c(1)})});
    std::string is_plus_inf = ctx.Op("IsInf", {u}, {ir::Attribute::Int("detect_negative", 0)});
    scaled = where(is_plus_inf, u, scaled);
    return where(ctx.Op("Equal", {u, c(1)}), v, scaled);
  }
};

// erfcx(a) for a = |x| >= 0 (NaN stays NaN).
std::string ErfcxOfAbs(F64& m, const std::string& a) {
  // erf(a) = 2/sqrt(pi) * a * sum_k (-1)^k a^(2k) / (k! (2k + 1)), Horner in a^2.
  constexpr int kTaylorTerms = 30;
  std::vector<double> taylor(kTaylorTerms);
  double factorial = 1;
  for (int k = 0; k < kTaylorTerms; ++k) {
    if (k > 0) factorial *= k;
    taylor[kTaylorTerms - 1 - k] = (k % 2 == 0 ? 1.0 : -1.0) / (factorial * (2 * k + 1));
  }
  std::string a2 = m.mul({a, a});
  std::string series = m.c(taylor[0]);
  for (int i = 1; i < kTaylorTerms; ++i) series = m.add({m.mul({series, a2}), m.c(taylor[i])});
  std::string erf = m.mul({m.mul({m.c(2 / std::sqrt(kPi)), a}), series});
  std::string near = m.mul({m.op("Exp", a2), m.sub({m.c(1), erf})});
  // erfcx(a) = 1/sqrt(pi) / (a + (1/2) / (a + 1 / (a + (3/2) / (a + ...)))).
  constexpr int kFractionTerms = 50;
  std::string denominator = a;
  for (int k = kFractionTerms; k >= 1; --k) {
    denominator = m.add({a, m.div({m.c(k / 2.0), denominator})});
  }
  std::string far = m.div({m.c(1 / std::sqrt(kPi)), denominator});
  return m.where(m.lt({a, m.c(2)}), near, far);
}

// erfcx(x) for any x.
std::string Erfcx(F64& m, const std::string& x) {
  std::string positive = ErfcxOfAbs(m, m.op("Abs", x));
  std::string reflected = m.sub({m.mul({m.c(2), m.op("Exp", m.mul({x, x}))}), positive});
  return m.where(m.lt({x, m.c(0)}), reflected, positive);
}

// erfc(z) = erfcx(|z|) exp(-z^2), or 2 minus that for z < 0.
std::string Erfc(F64& m, const std::string& z) {
  std::string upper = m.mul({ErfcxOfAbs(m, m.op("Abs", z)), m.op("Exp", m.op("Neg", m.mul({z, z})))});
  std::string negative = m.lt({z, m.c(0)});
  std::string reflected = m.sub({m.c(2), upper});
  return m.where(negative, reflected, upper);
}

// aten::special_erfcx(Tensor self) -> Tensor
absl::Status AtenSpecialErfcx(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand in, AsFloat64Operand(ctx, "self"));
  F64 m{{ctx, kF64}};
  return BindResult(ctx, ctx.CastTo(Erfcx(m, in.x), kF64, in.out));
}

// aten::special_ndtr(Tensor self) -> Tensor: erfc(-x / sqrt(2)) / 2.
absl::Status AtenSpecialNdtr(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand in, AsFloat64Operand(ctx, "self"));
  F64 m{{ctx, kF64}};
  std::string y = m.mul({m.c(0.5), Erfc(m, m.mul({in.x, m.c(-kSqrtHalf)}))});
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

// aten::special_log_ndtr(Tensor self) -> Tensor
// x < -1: log(erfcx(-t) / 2) - t^2; else log1p(-erfc(t) / 2); t = x / sqrt(2).
absl::Status AtenSpecialLogNdtr(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand in, AsFloat64Operand(ctx, "self"));
  F64 m{{ctx, kF64}};
  std::string t = m.mul({in.x, m.c(kSqrtHalf)});
  std::string lower_half = m.div({ErfcxOfAbs(m, m.op("Neg", t)), m.c(2)});
  std::string lower = m.sub({m.op("Log", lower_half), m.mul({t, t})});
  std::string upper = m.log1p(m.op("Neg", m.div({Erfc(m, t), m.c(2)})));
  std::string y = m.where(m.lt({in.x, m.c(-1)}), lower, upper);
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

// aten::special_xlog1py(Tensor self, Tensor other) -> Tensor (and the
// self_scalar / other_scalar overloads): NaN where other is NaN, else 0 where
// self is 0, else self * log1p(other), as torch's xlog1py kernel.
absl::Status AtenSpecialXlog1py(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand x, AsFloat64Operand(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputOrScalarAs("other", kF64));
  F64 m{{ctx, kF64}};
  std::string product = m.mul({x.x, m.log1p(y)});
  std::string self_zero = ctx.Op("Equal", {x.x, m.c(0)});
  std::string zero = m.c(0);
  std::string zeroed = m.where(self_zero, zero, product);
  std::string nan = m.c(std::numeric_limits<double>::quiet_NaN());
  std::string result = m.where(m.op("IsNaN", y), nan, zeroed);
  return BindResult(ctx, ctx.CastTo(result, kF64, x.out));
}

// Cephes' rational approximations of ndtri, as in
// aten/src/ATen/native/Math.h calc_ndtri: P0 / Q0 for |y - 1/2| <= 3/8,
// P1 / Q1 and P2 / Q2 in z = 1 / sqrt(-2 log y) for the tails (split at
// sqrt(-2 log y) = 8).
constexpr double kNdtriP0[] = {-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
                               1.39312609387279679503E1, -1.23916583867381258016E0};
constexpr double kNdtriQ0[] = {1.0,
                               1.95448858338141759834E0,  4.67627912898881538453E0,  8.63602421390890590575E1,
                               -2.25462687854119370527E2, 2.00260212380060660359E2,  -8.20372256168333339912E1,
                               1.59056225126211695515E1,  -1.18331621121330003142E0};
constexpr double kNdtriP1[] = {4.05544892305962419923E0,   3.15251094599893866154E1,  5.71628192246421288162E1,
                               4.40805073893200834700E1,   1.46849561928858024014E1,  2.18663306850790267539E0,
                               -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4};
constexpr double kNdtriQ1[] = {1.0,
                               1.57799883256466749731E1,  4.53907635128879210584E1,   4.13172038254672030440E1,
                               1.50425385692907503408E1,  2.50464946208309415979E0,   -1.42182922854787788574E-1,
                               -3.80806407691578277194E-2, -9.33259480895457427372E-4};
constexpr double kNdtriP2[] = {3.23774891776946035970E0,  6.91522889068984211695E0,  3.93881025292474443415E0,
                               1.33303460815807542389E0,  2.01485389549179081538E-1, 1.23716634817820021358E-2,
                               3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9};
constexpr double kNdtriQ2[] = {1.0,
                               6.02427039364742014255E0,  3.67983563856160859403E0,  1.37702099489081330271E0,
                               2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
                               2.89247864745380683936E-6, 6.79019408009981274425E-9};

// c[0] z^(count-1) + ... + c[count-1] (Horner).
template <size_t kCount>
std::string Horner(F64& m, const std::string& z, const double (&c)[kCount]) {
  std::string acc = m.c(c[0]);
  for (size_t i = 1; i < kCount; ++i) acc = m.add({m.mul({acc, z}), m.c(c[i])});
  return acc;
}

// aten::special_ndtri(Tensor self) -> Tensor: the inverse of ndtr by Cephes'
// method (torch's calc_ndtri) in float64; -inf at 0, inf at 1, NaN outside [0, 1].
absl::Status AtenSpecialNdtri(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand in, AsFloat64Operand(ctx, "self"));
  F64 m{{ctx, kF64}};
  const std::string& p = in.x;
  constexpr double kExpMinus2 = 0.13533528323661269189;
  std::string upper = ctx.Op("Greater", {p, m.c(1 - kExpMinus2)});
  std::string y = m.where(upper, m.sub({m.c(1), p}), p);
  std::string yc = m.sub({y, m.c(0.5)});
  std::string y2 = m.mul({yc, yc});
  std::string ratio = m.div({m.mul({y2, Horner(m, y2, kNdtriP0)}), Horner(m, y2, kNdtriQ0)});
  std::string central = m.mul({m.add({yc, m.mul({yc, ratio})}), m.c(2.50662827463100050242)});
  std::string t = m.op("Sqrt", m.mul({m.c(-2), m.op("Log", y)}));
  std::string x0 = m.sub({t, m.div({m.op("Log", t), t})});
  std::string z = m.div({m.c(1), t});
  std::string near = m.div({m.mul({z, Horner(m, z, kNdtriP1)}), Horner(m, z, kNdtriQ1)});
  std::string far = m.div({m.mul({z, Horner(m, z, kNdtriP2)}), Horner(m, z, kNdtriQ2)});
  std::string tail = m.sub({x0, m.where(m.lt({t, m.c(8)}), near, far)});
  tail = m.where(upper, tail, m.op("Neg", tail));
  std::string x = m.where(ctx.Op("Greater", {y, m.c(kExpMinus2)}), central, tail);
  const double inf = std::numeric_limits<double>::infinity();
  std::string outside = ctx.Op("Or", {m.lt({p, m.c(0)}), ctx.Op("Greater", {p, m.c(1)})});
  x = m.where(outside, m.c(std::numeric_limits<double>::quiet_NaN()), x);
  x = m.where(ctx.Op("Equal", {p, m.c(1)}), m.c(inf), x);
  x = m.where(ctx.Op("Equal", {p, m.c(0)}), m.c(-inf), x);
  return BindResult(ctx, ctx.CastTo(x, kF64, in.out));
}

// aten::special_entr(Tensor self) -> Tensor: -x log(x) for x > 0, 0 at 0,
// -inf below, NaN kept; in the input's precision (float32 below float64).
absl::Status AtenSpecialEntr(TranslateContext& ctx) {
  DataType out = ctx.OutputDtype(0);
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(out), " result"));
  }
  const DataType dt = out == kF64 ? kF64 : DataType::kFloat;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs("self", dt));
  std::string zero = ctx.ConstantScalar(dt, 0);
  std::string value = ctx.Op("Mul", {ctx.Op("Neg", {x}), ctx.Op("Log", {x})});
  std::string below = ctx.Op("Where", {ctx.Op("Equal", {x, zero}), zero,
                                       ctx.ConstantScalar(dt, -std::numeric_limits<double>::infinity())});
  std::string y = ctx.Op("Where", {ctx.Op("Greater", {x, zero}), value, below});
  y = ctx.Op("Where", {ctx.Op("IsNaN", {x}), x, y});
  return BindResult(ctx, ctx.CastTo(y, dt, out));
}

}  // namespace

void RegisterSpecialFunctionOps(OpRegistry& r) {
  r.Add("aten::special_erfcx.default", &AtenSpecialErfcx);
  r.Add("aten::special_ndtr.default", &AtenSpecialNdtr);
  r.Add("aten::special_log_ndtr.default", &AtenSpecialLogNdtr);
  r.Add("aten::special_ndtri.default", &AtenSpecialNdtri);
  r.Add("aten::special_entr.default", &AtenSpecialEntr);
  r.Add("aten::special_xlog1py.default", &AtenSpecialXlog1py);
  r.Add("aten::special_xlog1py.self_scalar", &AtenSpecialXlog1py);
  r.Add("aten::special_xlog1py.other_scalar", &AtenSpecialXlog1py);
}

}  // namespace pt2onnx::ops
