// File: ops/modified_bessel.cc
// -----------------------------------------------------------------------------
// Modified Bessel functions: i0 (= special_modified_bessel_i0), i0e, i1
// (special_i1 = special_modified_bessel_i1), i1e, and of the second kind
// special_modified_bessel_k0 / _k1 and their exp(x)-scaled forms. All
// translations hold for opsets 18..23.
//
// torch evaluates Cephes' Chebyshev series (aten/src/ATen/native/Math.h:
// calc_i0 / calc_i0e / calc_i1 / calc_i1e and modified_bessel_*_forward) by
// the Clenshaw recurrence: I on [0, 8] in x/2 - 2 and beyond in 32/x - 2; K
// on (0, 2] in x^2 - 2 (plus a log(x/2) I term) and beyond in 8/x - 2. The
// series here run in float64 and are rounded once. torch's float kernels
// multiply by a float exp(|x|), which overflows to inf from 88.7 on (and
// inf / inf gives i0(+-inf) = i1(+-inf) = NaN): that factor is rounded to the
// output dtype first so the same inputs give inf and NaN here. K0 and K1 are
// +inf at 0 and NaN below; I1 and I1e are odd.
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/formula.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr DataType kF64 = DataType::kDouble;


// torch's exp(|x|) factor: rounded to float below float64 (overflow included).
std::string ExpFactor(Formula& m, const std::string& a, DataType out) {
  DataType exp_dtype = out == kF64 ? kF64 : DataType::kFloat;
  return m.ctx.CastTo(m.ctx.CastTo(m.op("Exp", a), kF64, exp_dtype), exp_dtype, kF64);
}

// The Chebyshev series sum_i' coefficients[i] T_i(t / 2) as Cephes' chbevl
// evaluates it (Clenshaw, highest coefficient first).
std::string Chebyshev(Formula& m, const std::string& t, const std::vector<double>& coefficients) {
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

// Cephes' coefficients of exp(-x) I1(x) / x on [0, 8] and of
// exp(-x) sqrt(x) I1(x) beyond (Math.h, chebyshev_coefficients_i1e_A / _B).
const std::vector<double>& I1eSmall() {
  static const std::vector<double>* const kA = new std::vector<double>{
      2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
      -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
      3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
      -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
      9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
      -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
      4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
      -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
      2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
      -1.76416518357834055153E-1,  2.52587186443633654823E-1};
  return *kA;
}
const std::vector<double>& I1eLarge() {
  static const std::vector<double>* const kB = new std::vector<double>{
      7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
      -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
      4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
      3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
      -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  return *kB;
}
// K0 and K1 (Math.h modified_bessel_k0_forward / _k1_forward): on (0, 2] in
// x^2 - 2, beyond (of exp(x) sqrt(x) K) in 8/x - 2.
const std::vector<double>& K0Small() {
  static const std::vector<double>* const kTable = new std::vector<double>{1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
                                      1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
                                      1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
                                      -5.35327393233902768720e-01};
  return *kTable;
}
const std::vector<double>& K0Large() {
  static const std::vector<double>* const kTable = new std::vector<double>{
    5.30043377268626276149e-18,  -1.64758043015242134646e-17, 5.21039150503902756861e-17,  -1.67823109680541210385e-16,
    5.51205597852431940784e-16,  -1.84859337734377901440e-15, 6.34007647740507060557e-15,  -2.22751332699166985548e-14,
    8.03289077536357521100e-14,  -2.98009692317273043925e-13, 1.14034058820847496303e-12,  -4.51459788337394416547e-12,
    1.85594911495471785253e-11,  -7.95748924447710747776e-11, 3.57739728140030116597e-10,  -1.69753450938905987466e-09,
    8.57403401741422608519e-09,  -4.66048989768794782956e-08, 2.76681363944501510342e-07,  -1.83175552271911948767e-06,
    1.39498137188764993662e-05,  -1.28495495816278026384e-04, 1.56988388573005337491e-03,  -3.14481013119645005427e-02,
    2.44030308206595545468e+00};
  return *kTable;
}
const std::vector<double>& K1Small() {
  static const std::vector<double>* const kTable = new std::vector<double>{-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
                                      -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
                                      -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
                                      -3.53155960776544875667e-01, 1.52530022733894777053e+00};
  return *kTable;
}
const std::vector<double>& K1Large() {
  static const std::vector<double>* const kTable = new std::vector<double>{
    -5.75674448366501715755e-18, 1.79405087314755922667e-17,  -5.68946255844285935196e-17, 1.83809354436663880070e-16,
    -6.05704724837331885336e-16, 2.03870316562433424052e-15,  -7.01983709041831346144e-15, 2.47715442448130437068e-14,
    -8.97670518232499435011e-14, 3.34841966607842919884e-13,  -1.28917396095102890680e-12, 5.13963967348173025100e-12,
    -2.12996783842756842877e-11, 9.21831518760500529508e-11,  -4.19035475934189648750e-10, 2.01504975519703286596e-09,
    -1.03457624656780970260e-08, 5.74108412545004946722e-08,  -3.50196060308781257119e-07, 2.40648494783721712015e-06,
    -1.93619797416608296024e-05, 1.95215518471351631108e-04,  -2.85781685962277938680e-03, 1.03923736576817238437e-01,
    2.72062619048444266945e+00};
  return *kTable;
}

// i0(x) (with_exp) or i0e(x), torch's evaluation order included: for
// |x| > 8, exp(|x|) * series / sqrt(|x|).
absl::Status BesselI0(TranslateContext& ctx, bool with_exp) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand in, AsFloat64Operand(ctx, "self"));
  Formula m{ctx, kF64};
  std::string a = m.op("Abs", in.x);
  std::string small = Chebyshev(m, m.sub({m.div({a, m.c(2)}), m.c(2)}), I0eSmall());
  std::string large = Chebyshev(m, m.sub({m.div({m.c(32), a}), m.c(2)}), I0eLarge());
  if (with_exp) {
    std::string e = ExpFactor(m, a, in.out);
    small = m.mul({e, small});
    large = m.mul({e, large});
  }
  large = m.div({large, m.op("Sqrt", a)});
  std::string y = m.where(ctx.Op("LessOrEqual", {a, m.c(8)}), small, large);
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

// i1(x) (with_exp) or i1e(x): x * series on [0, 8], series / sqrt(|x|)
// beyond (times exp(|x|) for i1), odd in x.
absl::Status BesselI1(TranslateContext& ctx, bool with_exp) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand in, AsFloat64Operand(ctx, "self"));
  Formula m{ctx, kF64};
  std::string a = m.op("Abs", in.x);
  std::string small = m.mul({Chebyshev(m, m.sub({m.div({a, m.c(2)}), m.c(2)}), I1eSmall()), a});
  std::string large = Chebyshev(m, m.sub({m.div({m.c(32), a}), m.c(2)}), I1eLarge());
  if (with_exp) {
    std::string e = ExpFactor(m, a, in.out);
    small = m.mul({small, e});
    large = m.mul({e, large});
  }
  large = m.div({large, m.op("Sqrt", a)});
  std::string y = m.where(ctx.Op("LessOrEqual", {a, m.c(8)}), small, large);
  y = m.where(ctx.Op("Less", {in.x, m.c(0)}), m.op("Neg", y), y);
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

// K0 (order 0) or K1 of x > 0, times exp(x) when `scaled`; +inf at 0, NaN
// below. Small x: series(x^2 - 2) - log(x/2) I0(x) (order 0), or
// log(x/2) I1(x) + series / x (order 1); the I terms from their [0, 8] series.
absl::Status BesselK(TranslateContext& ctx, bool order_one, bool scaled) {
  PT2ONNX_ASSIGN_OR_RETURN(Float64Operand in, AsFloat64Operand(ctx, scaled ? "x" : "self"));
  Formula m{ctx, kF64};
  const std::string& x = in.x;
  std::string half_log = m.op("Log", m.mul({m.c(0.5), x}));
  std::string t = m.sub({m.div({x, m.c(2)}), m.c(2)});
  std::string exp_x = m.op("Exp", x);
  std::string small_series = Chebyshev(m, m.sub({m.mul({x, x}), m.c(2)}), order_one ? K1Small() : K0Small());
  std::string small;
  if (order_one) {
    std::string i1 = m.mul({m.mul({Chebyshev(m, t, I1eSmall()), x}), exp_x});
    small = m.add({m.mul({half_log, i1}), m.div({small_series, x})});
  } else {
    std::string i0 = m.mul({exp_x, Chebyshev(m, t, I0eSmall())});
    small = m.sub({small_series, m.mul({half_log, i0})});
  }
  std::string large = m.div({Chebyshev(m, m.sub({m.div({m.c(8), x}), m.c(2)}), order_one ? K1Large() : K0Large()),
                             m.op("Sqrt", x)});
  if (scaled) {
    small = m.mul({small, exp_x});
  } else {
    large = m.mul({m.op("Exp", m.op("Neg", x)), large});
  }
  std::string y = m.where(ctx.Op("LessOrEqual", {x, m.c(2)}), small, large);
  y = m.where(ctx.Op("Less", {x, m.c(0)}), m.c(std::numeric_limits<double>::quiet_NaN()), y);
  y = m.where(ctx.Op("Equal", {x, m.c(0)}), m.c(std::numeric_limits<double>::infinity()), y);
  return BindResult(ctx, ctx.CastTo(y, kF64, in.out));
}

// aten::i0(Tensor self) -> Tensor; aten::special_modified_bessel_i0(Tensor self) -> Tensor
absl::Status AtenI0(TranslateContext& ctx) { return BesselI0(ctx, true); }
// aten::special_i0e(Tensor self) -> Tensor
absl::Status AtenSpecialI0e(TranslateContext& ctx) { return BesselI0(ctx, false); }

// aten::special_i1(Tensor self) -> Tensor; special_modified_bessel_i1 alike
absl::Status AtenI1(TranslateContext& ctx) { return BesselI1(ctx, true); }
// aten::special_i1e(Tensor self) -> Tensor
absl::Status AtenI1e(TranslateContext& ctx) { return BesselI1(ctx, false); }
// aten::special_modified_bessel_k0(Tensor self) -> Tensor (k1 alike)
absl::Status AtenK0(TranslateContext& ctx) { return BesselK(ctx, false, false); }
absl::Status AtenK1(TranslateContext& ctx) { return BesselK(ctx, true, false); }
// aten::special_scaled_modified_bessel_k0(Tensor x) -> Tensor (k1 alike)
absl::Status AtenScaledK0(TranslateContext& ctx) { return BesselK(ctx, false, true); }
absl::Status AtenScaledK1(TranslateContext& ctx) { return BesselK(ctx, true, true); }

}  // namespace

void RegisterModifiedBesselOps(OpRegistry& r) {
  r.Add("aten::i0.default", &AtenI0);
  r.Add("aten::special_modified_bessel_i0.default", &AtenI0);
  r.Add("aten::special_i0e.default", &AtenSpecialI0e);
  r.Add("aten::special_i1.default", &AtenI1);
  r.Add("aten::special_modified_bessel_i1.default", &AtenI1);
  r.Add("aten::special_i1e.default", &AtenI1e);
  r.Add("aten::special_modified_bessel_k0.default", &AtenK0);
  r.Add("aten::special_modified_bessel_k1.default", &AtenK1);
  r.Add("aten::special_scaled_modified_bessel_k0.default", &AtenScaledK0);
  r.Add("aten::special_scaled_modified_bessel_k1.default", &AtenScaledK1);
}

}  // namespace pt2onnx::ops
