// File: ops/special_math.cc
// -----------------------------------------------------------------------------
// Inverse hyperbolic functions (ONNX operators) and the special functions
// ONNX has no operator for: erfinv, lgamma (and mvlgamma), digamma, the
// Hurwitz zeta and polygamma, as composites.
//
// Accuracy of the composites, against torch's CPU results for float32 (the
// op-zoo case `special` checks them at atol 1e-5, rtol 1e-4):
// * erfinv repeats torch's own algorithm (Math.h calc_erfinv: a rational
//   first guess, then two Newton steps using erf) in the input's precision
//   (float32 for float16/bfloat16), so it carries torch's error, not a new one.
// * lgamma and digamma are computed in float64 and rounded to the output
//   dtype: lgamma by the Lanczos approximation (g = 7, 9 terms; relative error
//   about 1e-15) with the reflection formula below 0.5; digamma by torch's
//   method (reflection below 0, the recurrence up to 10, then the asymptotic
//   series with torch's coefficients). They are at least as accurate as
//   torch's float32 kernels; near the roots of lgamma (1, 2) and digamma
//   (1.4616...) the differences are absolute, of order 1e-7.
// * zeta(x, q) repeats Cephes' method as torch does (in double for float
//   inputs): 30 direct terms, so it matches for q > -20 (torch keeps adding
//   terms past that); polygamma(n >= 1) is (-1)^(n+1) n! zeta(n + 1, x).
// Poles and special values follow torch: lgamma is +inf at 0, the negative
// integers and +-inf; digamma is -inf at +0, +inf at -0, NaN at the negative
// integers; erfinv is +-inf at +-1 and NaN outside [-1, 1].
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "ops/gamma_helpers.h"
#include "translate/op_helpers.h"
#include "ops/formula.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();

// aten::acosh(Tensor self) -> Tensor (asinh, atanh alike)
absl::Status UnaryOp(TranslateContext& ctx, absl::string_view op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op(op_type, {x}));
}
absl::Status AtenAcosh(TranslateContext& ctx) { return UnaryOp(ctx, "Acosh"); }
absl::Status AtenAsinh(TranslateContext& ctx) { return UnaryOp(ctx, "Asinh"); }
absl::Status AtenAtanh(TranslateContext& ctx) { return UnaryOp(ctx, "Atanh"); }


// The input as a floating value of `compute` plus the output dtype; integer
// and bool inputs give the default float result, as torch's unary float ops.
struct Operand {
  std::string x;
  DataType out;
};
absl::StatusOr<Operand> FloatOperand(TranslateContext& ctx, DataType compute) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(out), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", compute));
  return Operand{x, out};
}

// aten::erfinv(Tensor self) -> Tensor
absl::Status AtenErfinv(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  DataType compute = out == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, FloatOperand(ctx, compute));
  Formula m{ctx, compute};
  const std::string& y = in.x;
  std::string ay = m.op("Abs", y);
  std::string z = m.mul({y, y});
  std::string central_num = m.poly(z, {-0.140543331, 0.914624893, -1.645349621, 0.886226899});
  std::string central_den =
      m.poly(z, {0.012229801, -0.329097515, 1.442710462, -2.118377725, 1.0});
  std::string central = m.div({m.mul({y, central_num}), central_den});
  std::string t = m.op("Sqrt", m.op("Neg", m.op("Log", m.div({m.sub({m.c(1), ay}), m.c(2)}))));
  std::string tail_num = m.poly(t, {1.641345311, 3.429567803, -1.624906493, -1.970840454});
  std::string tail_den = m.poly(t, {1.637067800, 3.543889200, 1.0});
  std::string tail = m.mul({m.op("Sign", y), m.div({tail_num, tail_den})});
  std::string x = m.where({ctx.Op("LessOrEqual", {ay, m.c(0.7)}), central, tail});
  for (int step = 0; step < 2; ++step) {  // Newton: x -= (erf(x) - y) / (2/sqrt(pi) exp(-x^2))
    std::string slope = m.mul({m.c(2.0 / std::sqrt(kPi)), m.op("Exp", m.op("Neg", m.mul({x, x})))});
    x = m.sub({x, m.div({m.sub({m.op("Erf", x), y}), slope})});
  }
  x = m.where({m.eq({ay, m.c(1)}), m.mul({m.op("Sign", y), m.c(kInf)}), x});
  x = m.where({ctx.Op("Greater", {ay, m.c(1)}), m.c(std::numeric_limits<double>::quiet_NaN()), x});
  return BindResult(ctx, ctx.CastTo(x, compute, in.out));
}

// ln Gamma(w) for w >= 0.5 (Lanczos, g = 7).
std::string LanczosLgamma(Formula& m, const std::string& w) {
  static const double kP[] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                              771.32342877765313,   -176.61502916214059,   12.507343278686905,
                              -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  std::string z = m.sub({w, m.c(1)});
  std::string series = m.c(kP[0]);
  for (int i = 1; i < 9; ++i) series = m.add({series, m.div({m.c(kP[i]), m.add({z, m.c(i)})})});
  std::string t = m.add({z, m.c(7.5)});
  std::string main = m.sub({m.mul({m.add({z, m.c(0.5)}), m.op("Log", t)}), t});
  return m.add({m.add({main, m.c(0.5 * std::log(2 * kPi))}), m.op("Log", series)});
}

// lgamma(x) in float64, poles and infinities included.
std::string LgammaF64(Formula& m, const std::string& x) {
  std::string reflect = m.lt({x, m.c(0.5)});
  std::string w = m.where({reflect, m.sub({m.c(1), x}), x});
  std::string direct = LanczosLgamma(m, w);
  // lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
  std::string sine = m.op("Abs", m.op("Sin", m.mul({m.c(kPi), x})));
  std::string reflected = m.sub({m.sub({m.c(std::log(kPi)), m.op("Log", sine)}), direct});
  std::string y = m.where({reflect, reflected, direct});
  std::string pole = m.both({m.ctx.Op("LessOrEqual", {x, m.c(0)}), m.eq({m.op("Floor", x), x})});
  std::string infinite = m.eq({m.op("Abs", x), m.c(kInf)});
  return m.where({m.ctx.Op("Or", {pole, infinite}), m.c(kInf), y});
}

// aten::lgamma(Tensor self) -> Tensor
absl::Status AtenLgamma(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, FloatOperand(ctx, DataType::kDouble));
  Formula m{ctx, DataType::kDouble};
  return BindResult(ctx, ctx.CastTo(LgammaF64(m, in.x), DataType::kDouble, in.out));
}

// Above this p, mvlgamma would emit too many lgamma terms (p comes from the file).
constexpr int64_t kMaxMvlgammaP = 64;

// aten::mvlgamma(Tensor self, int p) -> Tensor
// sum_{j < p} lgamma(x - j / 2) + p (p - 1) / 4 log(pi). torch also checks
// every x > (p - 1) / 2 at run time; an ONNX graph cannot raise, so smaller
// x give the formula's value.
absl::Status AtenMvlgamma(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t p, ctx.Int("p"));
  if (p < 1) return ctx.Invalid(absl::StrCat("p has to be greater than or equal to 1; got ", p));
  if (p > kMaxMvlgammaP) return ctx.Unsupported(absl::StrCat("mvlgamma with p = ", p, " (at most 64)"));
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, FloatOperand(ctx, DataType::kDouble));
  Formula m{ctx, DataType::kDouble};
  std::string sum = m.c(static_cast<double>(p) * static_cast<double>(p - 1) / 4 * std::log(kPi));
  for (int64_t j = 0; j < p; ++j) {
    std::string shifted = j == 0 ? in.x : m.sub({in.x, m.c(static_cast<double>(j) / 2)});
    sum = m.add({sum, LgammaF64(m, shifted)});
  }
  return BindResult(ctx, ctx.CastTo(sum, DataType::kDouble, in.out));
}

// digamma(v) for v >= 0 (v == 0 handled by the caller): recurrence to 10,
// then torch's asymptotic series (psi(10) exactly at 10).
std::string DigammaNonNegative(Formula& m, std::string v) {
  std::string result = m.c(0);
  for (int i = 0; i < 10; ++i) {
    std::string small = m.lt({v, m.c(10)});
    result = m.sub({result, m.where({small, m.div({m.c(1), v}), m.c(0)})});
    v = m.where({small, m.add({v, m.c(1)}), v});
  }
  std::string z = m.div({m.c(1), m.mul({v, v})});
  std::string series = m.mul({z, m.poly(z, {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                                           7.57575757575757575758E-3, -4.16666666666666666667E-3,
                                           3.96825396825396825397E-3, -8.33333333333333333333E-3,
                                           8.33333333333333333333E-2})});
  series = m.where({m.lt({v, m.c(1e17)}), series, m.c(0)});
  std::string asymptotic = m.sub({m.sub({m.add({result, m.op("Log", v)}), m.div({m.c(0.5), v})}), series});
  return m.where({m.eq({v, m.c(10)}), m.add({result, m.c(2.25175258906672110764)}), asymptotic});
}

// aten::digamma(Tensor self) -> Tensor
absl::Status AtenDigamma(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, FloatOperand(ctx, DataType::kDouble));
  Formula m{ctx, DataType::kDouble};
  const std::string& x = in.x;
  std::string negative = m.lt({x, m.c(0)});
  std::string v = m.where({negative, m.sub({m.c(1), x}), x});
  std::string positive_part = DigammaNonNegative(m, v);
  // digamma(x) = digamma(1 - x) - pi / tan(pi r), r the fractional part of x;
  // cos(a) is sin(a + pi/2) (ONNX Runtime has no float64 Cos).
  std::string r = m.sub({x, m.where({negative, m.op("Ceil", x), m.op("Floor", x)})});
  std::string angle = m.mul({m.c(kPi), r});
  std::string cotangent = m.div({m.op("Sin", m.add({angle, m.c(kPi / 2)})), m.op("Sin", angle)});
  std::string reflected = m.sub({positive_part, m.mul({m.c(kPi), cotangent})});
  std::string y = m.where({negative, reflected, positive_part});
  std::string nan = m.c(std::numeric_limits<double>::quiet_NaN());
  y = m.where({m.both({negative, m.eq({m.op("Floor", x), x})}), nan, y});
  // +0 -> -inf, -0 -> +inf: copysign(inf, -x), read from 1/x's sign.
  std::string zero_pole = m.where({m.lt({m.div({m.c(1), x}), m.c(0)}), m.c(kInf), m.c(-kInf)});
  y = m.where({m.eq({x, m.c(0)}), zero_pole, y});
  return BindResult(ctx, ctx.CastTo(y, DataType::kDouble, in.out));
}

// Bernoulli-number divisors of the Euler-Maclaurin tail of Cephes' zeta,
// as in aten/src/ATen/native/Math.h zeta(): (2k)! / B_2k.
constexpr double kZetaTail[] = {12.0,
                                -720.0,
                                30240.0,
                                -1209600.0,
                                47900160.0,
                                -1.8924375803183791606e9,
                                7.47242496e10,
                                -2.950130727918164224e12,
                                1.1646782814350067249e14,
                                -4.5979787224074726105e15,
                                1.8152105401943546773e17,
                                -7.1661652561756670113e18};

// Hurwitz zeta(x, q) = sum_k (q + k)^-x in float64, as Cephes computes it: a
// direct sum (here a fixed 30 terms, so q > -20 reaches Cephes' w > 9), then
// the Euler-Maclaurin tail unless the last term is already below 1e-16 of
// the sum. x == 1 is +inf, x < 1 NaN; q a non-positive integer +inf, and
// q <= 0 with a non-integer x NaN, as torch.
std::string Zeta(Formula& m, const std::string& x, const std::string& q) {
  constexpr int kDirectTerms = 30;
  std::string neg_x = m.op("Neg", x);
  std::string sum = m.ctx.Op("Pow", {q, neg_x});
  std::string last;
  for (int i = 1; i < kDirectTerms; ++i) {
    last = m.ctx.Op("Pow", {m.add({q, m.c(i)}), neg_x});
    sum = m.add({sum, last});
  }
  std::string w = m.add({q, m.c(kDirectTerms - 1)});
  std::string tail = m.sub({m.div({m.mul({last, w}), m.sub({x, m.c(1)})}), m.mul({m.c(0.5), last})});
  std::string rising = m.c(1);
  std::string power = last;
  for (int i = 0; i < 12; ++i) {
    rising = m.mul({rising, m.add({x, m.c(2 * i)})});
    power = m.div({power, w});
    tail = m.add({tail, m.div({m.mul({rising, power}), m.c(kZetaTail[i])})});
    rising = m.mul({rising, m.add({x, m.c(2 * i + 1)})});
    power = m.div({power, w});
  }
  std::string converged = m.lt({m.op("Abs", last), m.mul({m.c(1.11022302462515654042E-16), m.op("Abs", sum)})});
  std::string y = m.where({converged, sum, m.add({sum, tail})});
  std::string non_positive_q = m.ctx.Op("LessOrEqual", {q, m.c(0)});
  std::string nan = m.c(std::numeric_limits<double>::quiet_NaN());
  std::string fractional_x = m.ctx.Op("Not", {m.eq({m.op("Floor", x), x})});
  y = m.where({m.both({non_positive_q, fractional_x}), nan, y});
  y = m.where({m.both({non_positive_q, m.eq({m.op("Floor", q), q})}), m.c(kInf), y});
  y = m.where({m.lt({x, m.c(1)}), nan, y});
  return m.where({m.eq({x, m.c(1)}), m.c(kInf), y});
}

// aten::special_zeta(Tensor self, Tensor other) -> Tensor (and the
// self_scalar / other_scalar overloads): Hurwitz zeta(self, other).
absl::Status AtenSpecialZeta(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(out), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs("self", DataType::kDouble));
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, ctx.InputOrScalarAs("other", DataType::kDouble));
  Formula m{ctx, DataType::kDouble};
  return BindResult(ctx, ctx.CastTo(Zeta(m, x, q), DataType::kDouble, out));
}

// aten::polygamma(int n, Tensor self) -> Tensor (special_polygamma alike)
// digamma for n = 0, else (-1)^(n + 1) n! zeta(n + 1, x) as torch's
// calc_polygamma (Math.h).
absl::Status AtenPolygamma(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, ctx.Int("n"));
  if (n < 0) return ctx.Invalid(absl::StrCat("polygamma(n, x) does not support negative n; got ", n));
  if (n == 0) return AtenDigamma(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, FloatOperand(ctx, DataType::kDouble));
  Formula m{ctx, DataType::kDouble};
  const double order = static_cast<double>(n);
  const double scale = (n % 2 == 1 ? 1.0 : -1.0) * std::tgamma(order + 1);
  std::string y = m.mul({m.c(scale), Zeta(m, m.c(order + 1), in.x)});
  return BindResult(ctx, ctx.CastTo(y, DataType::kDouble, in.out));
}

}  // namespace

std::string LgammaDouble(TranslateContext& ctx, const std::string& x) {
  Formula m{ctx, DataType::kDouble};
  return LgammaF64(m, x);
}

void RegisterSpecialMathOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::acosh", "default", &AtenAcosh);
  AddWithInPlace(r, "aten::asinh", "default", &AtenAsinh);
  AddWithInPlace(r, "aten::atanh", "default", &AtenAtanh);
  AddWithInPlace(r, "aten::erfinv", "default", &AtenErfinv);
  AddWithInPlace(r, "aten::lgamma", "default", &AtenLgamma);
  AddWithInPlace(r, "aten::digamma", "default", &AtenDigamma);
  r.Add("aten::mvlgamma.default", &AtenMvlgamma);
  r.Add("aten::special_zeta.default", &AtenSpecialZeta);
  r.Add("aten::special_zeta.self_scalar", &AtenSpecialZeta);
  r.Add("aten::special_zeta.other_scalar", &AtenSpecialZeta);
  r.Add("aten::polygamma.default", &AtenPolygamma);
  r.Add("aten::special_polygamma.default", &AtenPolygamma);
}

}  // namespace pt2onnx::ops
