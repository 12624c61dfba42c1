// File: reference/bessel.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/bessel.cc: J0, J1, Y0, Y1 and the spherical j0
// (Airy Ai: see AiryAi below),
// in double and rounded once to the result dtype. Not Cephes' rational
// approximations (which the translation repeats) but the textbook series:
// the power series up to |x| = 12 (Abramowitz & Stegun 9.1.10, 9.1.11,
// 9.1.13; at most ~1e-12 lost to cancellation there) and Hankel's
// asymptotic expansion beyond (9.2.5 - 9.2.10, summed to its smallest
// term). Special values as torch: Y0 / Y1 are -inf at 0 and NaN below 0,
// spherical j0 is 0 at +-inf.
#include <cmath>
#include <functional>
#include <utility>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kSeriesLimit = 12;

// J_nu(x) (nu = 0, 1) by its power series sum_k (-1)^k (x/2)^(2k+nu) / (k! (k+nu)!).
double JSeries(int nu, double x) {
  const double q = x * x / 4;
  double term = nu == 0 ? 1.0 : x / 2;
  double sum = term;
  for (int k = 1; k < 200; ++k) {
    term *= -q / (static_cast<double>(k) * (k + nu));
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum) && k > q) break;
  }
  return sum;
}

// Y0 and Y1 for 0 < x <= 12 by their series (harmonic numbers H_k).
double Y0Series(double x) {
  const double q = x * x / 4;
  double term = 1, harmonic = 0, sum = 0;
  for (int k = 1; k < 200; ++k) {
    term *= -q / (static_cast<double>(k) * k);
    harmonic += 1.0 / k;
    sum -= term * harmonic;  // (-1)^(k+1) H_k q^k / (k!)^2
    if (std::fabs(term * harmonic) < 1e-17 * std::fabs(sum) && k > q) break;
  }
  return 2 / M_PI * ((std::log(x / 2) + kEulerGamma) * JSeries(0, x) + sum);
}

double Y1Series(double x) {
  // Y1 = (2/pi) log(x/2) J1 - 2/(pi x) - (1/pi) sum_k (-1)^k (psi(k+1) + psi(k+2)) (x/2)^(2k+1) / (k! (k+1)!)
  const double q = x * x / 4;
  double term = x / 2;                      // (x/2)^(2k+1) / (k! (k+1)!) with its sign
  double psi_a = -kEulerGamma, psi_b = 1 - kEulerGamma;  // psi(k+1), psi(k+2)
  double sum = term * (psi_a + psi_b);
  for (int k = 1; k < 200; ++k) {
    term *= -q / (static_cast<double>(k) * (k + 1));
    psi_a += 1.0 / k;
    psi_b += 1.0 / (k + 1);
    sum += term * (psi_a + psi_b);
    if (std::fabs(term) < 1e-18 * std::fabs(sum) && k > q) break;
  }
  return 2 / M_PI * std::log(x / 2) * JSeries(1, x) - 2 / (M_PI * x) - sum / M_PI;
}

// Hankel's expansion: {J_nu(x), Y_nu(x)} for x > 12.
std::pair<double, double> Hankel(int nu, double x) {
  const double mu = 4.0 * nu * nu;
  double p = 0, q = 0, term = 1, previous = INFINITY;
  for (int k = 0; k < 100; ++k) {
    if (k > 0) term *= (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * x);
    if (std::fabs(term) > previous) break;  // the series started to diverge
    previous = std::fabs(term);
    const double sign = (k / 2) % 2 == 0 ? 1 : -1;
    if (k % 2 == 0) p += sign * term; else q += sign * term;
    if (std::fabs(term) < 1e-17) break;
  }
  const double chi = x - (nu / 2.0 + 0.25) * M_PI;
  const double scale = std::sqrt(2 / (M_PI * x));
  return {scale * (p * std::cos(chi) - q * std::sin(chi)), scale * (p * std::sin(chi) + q * std::cos(chi))};
}

double BesselJ(int nu, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  const double sign = nu == 1 && x < 0 ? -1 : 1;
  if (std::isinf(a)) return NAN;  // torch: cos(inf) in the asymptotic form
  return sign * (a <= kSeriesLimit ? JSeries(nu, a) : Hankel(nu, a).first);
}

double BesselY(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return -INFINITY;
  if (x < 0) return NAN;
  if (std::isinf(x)) return NAN;
  if (x <= kSeriesLimit) return nu == 0 ? Y0Series(x) : Y1Series(x);
  return Hankel(nu, x).second;
}

double SphericalJ0(double x) {
  if (std::isinf(x)) return 0;
  if (x == 0) return 1;
  return std::sin(x) / x;
}

// Airy Ai: the Maclaurin series c1 f - c2 g (A&S 10.4.2) on [-6, 1]; for
// x > 1, Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi with K's integral
// int_0^inf exp(-zeta cosh t) cosh(t / 3) dt by the trapezoid rule (whose
// error falls exponentially for such integrands); below -6 the asymptotic
// expansion A&S 10.4.60. NaN at +-inf, as torch.
double AiryAi(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return NAN;
  const double c1 = 0.355028053887817239260, c2 = 0.258819403792806798405;
  if (x >= -6 && x <= 1) {
    const double z = x * x * x;
    double f = 1, g = x, fm = 1, gm = x;
    for (int k = 1; k < 60; ++k) {
      fm *= z / ((3.0 * k - 1) * (3.0 * k));
      gm *= z / ((3.0 * k) * (3.0 * k + 1));
      f += fm;
      g += gm;
      if (std::fabs(fm) + std::fabs(gm) < 1e-18) break;
    }
    return c1 * f - c2 * g;
  }
  const double a = std::fabs(x);
  const double zeta = 2.0 / 3.0 * a * std::sqrt(a);
  if (x > 1) {
    if (zeta > 745) return 0;
    const double h = 0.01;
    // Trapezoid sum of exp(-zeta (cosh t - 1)) cosh(t / 3); exp(-zeta) outside.
    double sum = 0.5;  // t = 0, halved
    for (int i = 1; i < 100000; ++i) {
      const double t = i * h;
      const double term = std::exp(-zeta * (std::cosh(t) - 1)) * std::cosh(t / 3);
      sum += term;
      if (term < 1e-18 * sum) break;
    }
    return std::sqrt(x / 3) / M_PI * h * sum * std::exp(-zeta);
  }
  // x < -6: pi^(-1/2) a^(-1/4) [sin(zeta + pi/4) P - cos(zeta + pi/4) Q], with
  // P = sum_k (-1)^k u_2k zeta^-2k and Q = sum_k (-1)^k u_(2k+1) zeta^-(2k+1).
  double u = 1, p = 1, q = 0, power = 1, previous = INFINITY;
  for (int k = 1; k < 60; ++k) {
    u *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216 * k);
    power /= zeta;
    const double term = u * power;
    if (term > previous) break;
    previous = term;
    const double sign = ((k / 2) % 2 == 0) ? 1 : -1;
    if (k % 2 == 0) p += sign * term; else q += sign * term;
    if (term < 1e-17) break;
  }
  const double phase = zeta + M_PI / 4;
  return (std::sin(phase) * p - std::cos(phase) * q) / (std::sqrt(M_PI) * std::sqrt(std::sqrt(a)));
}

absl::Status Unary(RefCall& call, const std::function<double(double)>& f, absl::string_view arg = "self") {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input(arg));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, UnaryMapDouble(self, FloatResult(self.dtype()), f));
  return call.SetTensor(std::move(y));
}

// aten::special_bessel_j0(Tensor self) -> Tensor (j1, y0, y1 alike;
// special_spherical_bessel_j0(Tensor x))
absl::Status J0Op(RefCall& call) { return Unary(call, [](double x) { return BesselJ(0, x); }); }
absl::Status J1Op(RefCall& call) { return Unary(call, [](double x) { return BesselJ(1, x); }); }
absl::Status Y0Op(RefCall& call) { return Unary(call, [](double x) { return BesselY(0, x); }); }
absl::Status Y1Op(RefCall& call) { return Unary(call, [](double x) { return BesselY(1, x); }); }
absl::Status SphericalJ0Op(RefCall& call) { return Unary(call, SphericalJ0, "x"); }
// aten::special_airy_ai(Tensor x) -> Tensor
absl::Status AiryAiOp(RefCall& call) { return Unary(call, AiryAi, "x"); }

}  // namespace

void RegisterBesselRef(RefRegistry& r) {
  r.Add("aten::special_bessel_j0.default", J0Op);
  r.Add("aten::special_bessel_j1.default", J1Op);
  r.Add("aten::special_bessel_y0.default", Y0Op);
  r.Add("aten::special_bessel_y1.default", Y1Op);
  r.Add("aten::special_spherical_bessel_j0.default", SphericalJ0Op);
  r.Add("aten::special_airy_ai.default", AiryAiOp);
}

}  // namespace pt2onnx::reference
