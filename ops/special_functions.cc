// File: ops/special_functions.cc
// -----------------------------------------------------------------------------
// torch.special functions ONNX has no operator for, as float64 composites
// rounded once to the output dtype: i0 (= special_modified_bessel_i0), i0e,
// erfcx, ndtr, ndtri, log_ndtr and xlog1py; and entr. All translations hold
// for opsets 18..23.
//
// * i0 / i0e evaluate torch's Chebyshev series (Cephes, as in
//   aten/src/ATen/native/Math.h calc_i0 / calc_i0e) by the Clenshaw
//   recurrence. torch's float kernels multiply by a float exp(|x|), which
//   overflows to inf from 88.7 on (and inf / inf gives i0(+-inf) = NaN): the
//   exp factor is rounded to the output dtype first so the same inputs give
//   inf and NaN here.
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
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr DataType kF64 = DataType::kDouble;

// float64 formula helpers. Operands come as braced lists, evaluated left to
// right, so nodes are emitted in the same order with every compiler (the
// wasm build must write the CLI's bytes).
struct F64 {
  struct Two {
    std::string a, b;
  };
  TranslateContext& ctx;
  std::string c(double v) { return ctx.ConstantScalar(kF64, v); }
  std::string add(Two t) { return ctx.Op("Add", {t.a, t.b}); }
  std::string sub(Two t) { return ctx.Op("Sub", {t.a, t.b}); }
  std::string mul(Two t) { return ctx.Op("Mul", {t.a, t.b}); }
  std::string div(Two t) { return ctx.Op("Div", {t.a, t.b}); }
  std::string op(absl::string_view type, const std::string& a) { return ctx.Op(type, {a}); }
  std::string where(const std::string& cond, const std::string& a, const std::string& b) {
    return ctx.Op("Where", {cond, a, b});
  }
  std::string less(Two t) { return ctx.Op("Less", {t.a, t.b}); }
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

// The Chebyshev series sum_i' coefficients[i] T_i(t / 2) as Cephes' chbevl
// evaluates it (Clenshaw, highest coefficient first).
std::string Chebyshev(F64& m, const std::string& t, const std::vector<double>& coefficients) {
  std::string b0 = m.c(coefficients[0]);
  std::string b1 = m.c(0);
  std::string b2;
  for (size_t i = 1; i < coefficients.size(); ++i) {
    b2 = b1;
    b1 = b0;
    std::string step = m.sub({m.mul({t, b1}), b2});
    b0 = m.add({step, m.c(coefficients[i])});
  }
  return m.mul({m.c(0.5), m.sub({b0, b2})});
}

// Cephes' coefficients of exp(-x) I0(x) on [0, 8] and of exp(-x) sqrt(x)
// I0(x) on (8, inf), as in aten/src/ATen/native/Math.h
// (chebyshev_coefficients_i0e_A / _B).
const std::vector<double>& I0eSmall() {
  static const std::vector<double>* const kA = new std::vector<double>{
      -4.41534164647933937950E-18, 3.33079451882223809783E-17,  -2.43127984654795469359E-16,
      1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
      -4.85644678311192946090E-13, 2.95505266312963983461E-12,  -1.72682629144155570723E-11,
      9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
      -1.30002500998624804212E-8,  6.04699502254191894932E-8,   -2.67079385394061173391E-7,
      1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
      -5.75419501008210370398E-5,  1.88502885095841655729E-4,   -5.76375574538582365885E-4,
      1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
      -2.37374148058994688156E-2,  4.93052842396707084878E-2,   -9.49010970480476444210E-2,
      1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1};
  return *kA;
}
const std::vector<double>& I0eLarge() {
  static const std::vector<double>* const kB = new std::vector<double>{
      -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
      3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
      1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
      -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
      7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
      -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
      3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
      2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
      8.04490411014108831608E-1};
  return *kB;
}

// The input in float64 plus the output dtype (integers give torch's default
// float result).
struct Operand {
  std::string x;
  DataType out;
};
absl::StatusOr<Operand> AsFloat64(TranslateContext& ctx, absl::string_view arg) {
  DataType out = ctx.OutputDtype(0);
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(out), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs(arg, kF64));
  return Operand{x, out};
}

// i0(x) (with_exp) or i0e(x), torch's evaluation order included: for
// |x| > 8, exp(|x|) * series / sqrt(|x|).
absl::Status BesselI0(TranslateContext& ctx, bool with_exp) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, AsFloat64(ctx, "self"));
  F64 m{ctx};
  std::string a = m.op("Abs", in.x);
  std::string small = Chebyshev(m, m.sub({m.div({a, m.c(2)}), m.c(2)}), I0eSmall());
  std::string large = Chebyshev(m, m.sub({m.div({m.c(32), a}), m.c(2)}), I0eLarge());
  if (with_exp) {
    // torch's float exp(|x|), overflow included; float16 / bfloat16 compute in float.
    DataType exp_dtype = in.out == kF64 ? kF64 : DataType::kFloat;
    std::string e = ctx.CastTo(ctx.CastTo(m.op("Exp", a), kF64, exp_dtype), exp_dtype, kF64);
    small = m.mul({e, small});
    large = m.mul({e, large});
  }
  large = m.div({large, m.op("Sqrt", a)});
  std::string y = m.where(ctx.Op("LessOrEqual", {a, m.c(8)}), small, large);
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

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
  return m.where(m.less({a, m.c(2)}), near, far);
}

// erfcx(x) for any x.
std::string Erfcx(F64& m, const std::string& x) {
  std::string positive = ErfcxOfAbs(m, m.op("Abs", x));
  std::string reflected = m.sub({m.mul({m.c(2), m.op("Exp", m.mul({x, x}))}), positive});
  return m.where(m.less({x, m.c(0)}), reflected, positive);
}

// erfc(z) = erfcx(|z|) exp(-z^2), or 2 minus that for z < 0.
std::string Erfc(F64& m, const std::string& z) {
  std::string upper = m.mul({ErfcxOfAbs(m, m.op("Abs", z)), m.op("Exp", m.op("Neg", m.mul({z, z})))});
  std::string negative = m.less({z, m.c(0)});
  std::string reflected = m.sub({m.c(2), upper});
  return m.where(negative, reflected, upper);
}

// aten::special_erfcx(Tensor self) -> Tensor
absl::Status AtenSpecialErfcx(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, AsFloat64(ctx, "self"));
  F64 m{ctx};
  return BindResult(ctx, ctx.CastTo(Erfcx(m, in.x), kF64, in.out));
}

// aten::special_ndtr(Tensor self) -> Tensor: erfc(-x / sqrt(2)) / 2.
absl::Status AtenSpecialNdtr(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, AsFloat64(ctx, "self"));
  F64 m{ctx};
  std::string y = m.mul({m.c(0.5), Erfc(m, m.mul({in.x, m.c(-kSqrtHalf)}))});
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

// aten::special_log_ndtr(Tensor self) -> Tensor
// x < -1: log(erfcx(-t) / 2) - t^2; else log1p(-erfc(t) / 2); t = x / sqrt(2).
absl::Status AtenSpecialLogNdtr(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, AsFloat64(ctx, "self"));
  F64 m{ctx};
  std::string t = m.mul({in.x, m.c(kSqrtHalf)});
  std::string lower_half = m.div({ErfcxOfAbs(m, m.op("Neg", t)), m.c(2)});
  std::string lower = m.sub({m.op("Log", lower_half), m.mul({t, t})});
  std::string upper = m.log1p(m.op("Neg", m.div({Erfc(m, t), m.c(2)})));
  std::string y = m.where(m.less({in.x, m.c(-1)}), lower, upper);
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

// aten::special_xlog1py(Tensor self, Tensor other) -> Tensor (and the
// self_scalar / other_scalar overloads): NaN where other is NaN, else 0 where
// self is 0, else self * log1p(other), as torch's xlog1py kernel.
absl::Status AtenSpecialXlog1py(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand x, AsFloat64(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputOrScalarAs("other", kF64));
  F64 m{ctx};
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
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, AsFloat64(ctx, "self"));
  F64 m{ctx};
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
  std::string tail = m.sub({x0, m.where(m.less({t, m.c(8)}), near, far)});
  tail = m.where(upper, tail, m.op("Neg", tail));
  std::string x = m.where(ctx.Op("Greater", {y, m.c(kExpMinus2)}), central, tail);
  const double inf = std::numeric_limits<double>::infinity();
  std::string outside = ctx.Op("Or", {m.less({p, m.c(0)}), ctx.Op("Greater", {p, m.c(1)})});
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

// aten::i0(Tensor self) -> Tensor; aten::special_modified_bessel_i0(Tensor self) -> Tensor
absl::Status AtenI0(TranslateContext& ctx) { return BesselI0(ctx, true); }
// aten::special_i0e(Tensor self) -> Tensor
absl::Status AtenSpecialI0e(TranslateContext& ctx) { return BesselI0(ctx, false); }

}  // namespace

void RegisterSpecialFunctionOps(OpRegistry& r) {
  r.Add("aten::i0.default", &AtenI0);
  r.Add("aten::special_modified_bessel_i0.default", &AtenI0);
  r.Add("aten::special_i0e.default", &AtenSpecialI0e);
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
