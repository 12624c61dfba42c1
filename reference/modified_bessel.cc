// File: reference/modified_bessel.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/modified_bessel.cc's first- and second-kind
// order-one and K functions: special_i1 (= special_modified_bessel_i1),
// special_i1e, special_modified_bessel_k0 / _k1 and their scaled forms
// (i0 and i0e are in special_functions.cc). In double from the textbook
// series, not Cephes' Chebyshev expansions: exp(-a) I1(a) from the power
// series with the exp factor carried in every term (asymptotic past 700);
// K0 / K1 from Abramowitz & Stegun 9.6.13 / 9.6.11 up to x = 10 and the
// asymptotic expansion 9.7.2 beyond. Special values as torch: I1 overflows
// to inf where torch's float exp(|x|) does and is NaN at +-inf; K is +inf at
// 0 and NaN below.
#include <cfloat>
#include <cmath>
#include <functional>
#include <utility>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

constexpr double kEulerGamma = 0.57721566490153286061;

// exp(-a) I_nu(a) for a >= 0, nu = 0 or 1.
double ScaledI(int nu, double a) {
  if (a > 700) {  // 1/sqrt(2 pi a) (1 - (mu-1)/(8a) + (mu-1)(mu-9)/(2! (8a)^2) - ...)
    const double mu = 4.0 * nu * nu;
    double term = 1, sum = 1;
    for (int k = 1; k < 6; ++k) {
      term *= -(mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * a);
      sum += term;
    }
    return sum / std::sqrt(2 * M_PI * a);
  }
  const double q = a * a / 4;
  double term = std::exp(-a) * (nu == 0 ? 1.0 : a / 2);
  double sum = term;
  for (int k = 1; k < 4000; ++k) {
    term *= q / (static_cast<double>(k) * (k + nu));
    sum += term;
    if (2 * k > a && term <= sum * 1e-17) break;
  }
  return sum;
}

double I1(double x, DataType out) {
  const double a = std::fabs(x);
  if (std::isnan(a) || std::isinf(a)) return NAN;
  const double limit = out == DataType::kDouble ? std::log(DBL_MAX) : std::log(static_cast<double>(FLT_MAX));
  if (a > limit) return std::copysign(INFINITY, x);
  return std::copysign(ScaledI(1, a) * std::exp(a), x);
}

double I1e(double x, DataType) {
  if (std::isnan(x)) return x;
  return std::copysign(ScaledI(1, std::fabs(x)), x);
}

// exp(x) K_nu(x) for x > 0.
double ScaledK(int nu, double x) {
  if (x > 10) {  // sqrt(pi / (2x)) (1 + (mu-1)/(8x) + (mu-1)(mu-9)/(2! (8x)^2) + ...)
    const double mu = 4.0 * nu * nu;
    double term = 1, sum = 1, previous = INFINITY;
    for (int k = 1; k < 60; ++k) {
      term *= (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * x);
      if (std::fabs(term) >= previous) break;
      previous = std::fabs(term);
      sum += term;
      if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    }
    return std::sqrt(M_PI / (2 * x)) * sum;
  }
  const double q = x * x / 4;
  const double i_nu = ScaledI(nu, x) * std::exp(x);
  double k_value;
  if (nu == 0) {  // -(log(x/2) + gamma) I0 + sum_{k>=1} H_k q^k / (k!)^2
    double term = 1, harmonic = 0, sum = 0;
    for (int k = 1; k < 200; ++k) {
      term *= q / (static_cast<double>(k) * k);
      harmonic += 1.0 / k;
      sum += term * harmonic;
      if (term * harmonic < 1e-17 * sum) break;
    }
    k_value = -(std::log(x / 2) + kEulerGamma) * i_nu + sum;
  } else {  // 1/x + log(x/2) I1 - (x/4) sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!)
    double term = 1, psi_a = -kEulerGamma, psi_b = 1 - kEulerGamma;
    double sum = psi_a + psi_b;
    for (int k = 1; k < 200; ++k) {
      term *= q / (static_cast<double>(k) * (k + 1));
      psi_a += 1.0 / k;
      psi_b += 1.0 / (k + 1);
      sum += term * (psi_a + psi_b);
      if (std::fabs(term * (psi_a + psi_b)) < 1e-17 * std::fabs(sum)) break;
    }
    k_value = 1 / x + std::log(x / 2) * i_nu - x / 4 * sum;
  }
  return k_value * std::exp(x);
}

double K(int nu, bool scaled, double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return INFINITY;
  if (x < 0) return NAN;
  if (std::isinf(x)) return 0;
  const double value = ScaledK(nu, x);
  return scaled ? value : value * std::exp(-x);
}

absl::Status Unary(RefCall& call, const char* arg, const std::function<double(double, DataType)>& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input(arg));
  const DataType out = FloatResult(self.dtype());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, UnaryMapDouble(self, out, [&](double x) { return f(x, out); }));
  return call.SetTensor(std::move(y));
}

// aten::special_i1(Tensor self) -> Tensor (special_modified_bessel_i1 alike)
absl::Status I1Op(RefCall& call) { return Unary(call, "self", I1); }
// aten::special_i1e(Tensor self) -> Tensor
absl::Status I1eOp(RefCall& call) { return Unary(call, "self", I1e); }
// aten::special_modified_bessel_k0(Tensor self) -> Tensor (k1 alike)
absl::Status K0Op(RefCall& call) { return Unary(call, "self", [](double x, DataType) { return K(0, false, x); }); }
absl::Status K1Op(RefCall& call) { return Unary(call, "self", [](double x, DataType) { return K(1, false, x); }); }
// aten::special_scaled_modified_bessel_k0(Tensor x) -> Tensor (k1 alike)
absl::Status ScaledK0Op(RefCall& call) { return Unary(call, "x", [](double x, DataType) { return K(0, true, x); }); }
absl::Status ScaledK1Op(RefCall& call) { return Unary(call, "x", [](double x, DataType) { return K(1, true, x); }); }

}  // namespace

void RegisterModifiedBesselRef(RefRegistry& r) {
  r.Add("aten::special_i1.default", I1Op);
  r.Add("aten::special_modified_bessel_i1.default", I1Op);
  r.Add("aten::special_i1e.default", I1eOp);
  r.Add("aten::special_modified_bessel_k0.default", K0Op);
  r.Add("aten::special_modified_bessel_k1.default", K1Op);
  r.Add("aten::special_scaled_modified_bessel_k0.default", ScaledK0Op);
  r.Add("aten::special_scaled_modified_bessel_k1.default", ScaledK1Op);
}

}  // namespace pt2onnx::reference
