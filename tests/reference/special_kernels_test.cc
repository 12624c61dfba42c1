// Reference kernels of torch.special and float representation: the
// orthogonal polynomials (closed forms at small degrees, torch's special
// values at the end points, negative and non-finite degrees, Hermite's NaN
// past degree 128 in float32, the trigonometric form at high degree), ndtri,
// entr, the (modified) Bessel functions, Airy Ai, nextafter and frexp, against
// values computed by hand, from closed forms or with mpmath.
#include <cmath>
#include <string>
#include <vector>

#include "reference/ref_tensor.h"
#include "gtest/gtest.h"
#include "tests/reference/kernel_runner.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::reference {
namespace {

using ::pt2onnx::testing::FloatArg;
using ::pt2onnx::testing::TensorArg;

// `overload` on x (a [5] tensor) and the scalar degree n.
std::vector<double> Polynomial(const std::string& name, const std::vector<double>& x, double n) {
  ValueMap values{{"x", RefValue::OfTensor(F32({static_cast<int64_t>(x.size())}, x))}};
  KernelRun r = RunKernel("aten::special_" + name + ".n_scalar", {TensorArg("x", "x"), FloatArg("n", n)}, values);
  EXPECT_TRUE(r.status.ok()) << name << ": " << r.status;
  if (!r.status.ok()) return {};
  return ToDoubles(r.results[0].tensor);
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " [" << i << "]";
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << what << " [" << i << "]";
    }
  }
}

const std::vector<double> kX = {-1.5, -0.5, 0.25, 0.75, 2.0};

TEST(ReferenceOrthogonalPolynomials, DegreeThreeClosedForms) {
  std::vector<double> t, u, v, w, h, he, l, p;
  for (double x : kX) {
    t.push_back(4 * x * x * x - 3 * x);
    u.push_back(8 * x * x * x - 4 * x);
    v.push_back(8 * x * x * x - 4 * x * x - 4 * x + 1);
    w.push_back(8 * x * x * x + 4 * x * x - 4 * x - 1);
    h.push_back(8 * x * x * x - 12 * x);
    he.push_back(x * x * x - 3 * x);
    l.push_back((-x * x * x + 9 * x * x - 18 * x + 6) / 6);
    p.push_back((5 * x * x * x - 3 * x) / 2);
  }
  ExpectNear(Polynomial("chebyshev_polynomial_t", kX, 3), t, "T3");
  ExpectNear(Polynomial("chebyshev_polynomial_u", kX, 3), u, "U3");
  ExpectNear(Polynomial("chebyshev_polynomial_v", kX, 3), v, "V3");
  ExpectNear(Polynomial("chebyshev_polynomial_w", kX, 3), w, "W3");
  ExpectNear(Polynomial("hermite_polynomial_h", kX, 3.7), h, "H3 (degree truncated)");
  ExpectNear(Polynomial("hermite_polynomial_he", kX, 3), he, "He3");
  ExpectNear(Polynomial("laguerre_polynomial_l", kX, 3), l, "L3");
  ExpectNear(Polynomial("legendre_polynomial_p", kX, 3), p, "P3");
  // Shifted: T*_n(x) = T_n(2x - 1).
  std::vector<double> shifted;
  for (double x : kX) {
    const double y = 2 * x - 1;
    shifted.push_back(4 * y * y * y - 3 * y);
  }
  ExpectNear(Polynomial("shifted_chebyshev_polynomial_t", kX, 3), shifted, "T*3");
}

TEST(ReferenceOrthogonalPolynomials, TorchsSpecialValues) {
  const std::vector<double> ends = {1, 0, 0, 0.5, 1};
  // U_n(1) = n + 1, U_n(-1) = (-1)^n (n + 1); V_n(-1) = (-1)^n (2n + 1); W_n(1) = 2n + 1.
  ExpectNear(Polynomial("chebyshev_polynomial_u", {1, -1, 1, -1, 1}, 5), {6, -6, 6, -6, 6}, "U5(+-1)");
  ExpectNear(Polynomial("chebyshev_polynomial_v", {1, -1, 1, -1, 1}, 4), {1, 9, 1, 9, 1}, "V4(+-1)");
  ExpectNear(Polynomial("chebyshev_polynomial_w", {1, -1, 1, -1, 1}, 3), {7, -1, 7, -1, 7}, "W3(+-1)");
  // Shifted kinds test x = 1 and x = 0.
  ExpectNear(Polynomial("shifted_chebyshev_polynomial_u", ends, 3), {4, -4, -4, 0, 4}, "U*3");
  // Negative and non-finite degrees give 0; degree 0 gives 1.
  for (double n : std::vector<double>{-1.0, -2.5, NAN, INFINITY, -INFINITY}) {
    ExpectNear(Polynomial("legendre_polynomial_p", kX, n), {0, 0, 0, 0, 0}, "P_n, n = " + std::to_string(n));
    ExpectNear(Polynomial("hermite_polynomial_h", kX, n), {0, 0, 0, 0, 0}, "H_n, n = " + std::to_string(n));
  }
  ExpectNear(Polynomial("laguerre_polynomial_l", kX, -0.5), {1, 1, 1, 1, 1}, "L_0 (degree -0.5 truncates to 0)");
  // Laguerre is 1 at x = 0; Hermite is NaN past degree 128 in float32.
  ExpectNear(Polynomial("laguerre_polynomial_l", {0, 0, 0, 0, 0}, 7), {1, 1, 1, 1, 1}, "L7(0)");
  const double nan = std::nan("");
  ExpectNear(Polynomial("hermite_polynomial_he", kX, 129), {nan, nan, nan, nan, nan}, "He129");
}

TEST(ReferenceOrthogonalPolynomials, HighDegreeTrigonometricForm) {
  const std::vector<double> x = {-0.9, -0.3, 0.1, 0.6, 0.95};
  std::vector<double> t, u;
  for (double v : x) {
    const double theta = std::acos(v);
    t.push_back(std::cos(20 * theta));
    u.push_back(std::sin(21 * theta) / std::sin(theta));
  }
  ExpectNear(Polynomial("chebyshev_polynomial_t", x, 20), t, "T20");
  ExpectNear(Polynomial("chebyshev_polynomial_u", x, 20), u, "U20");
  // Legendre's recurrence at degree 10 against the explicit polynomial.
  std::vector<double> p10;
  for (double v : x) {
    const double s = v * v;
    p10.push_back((46189 * s * s * s * s * s - 109395 * s * s * s * s + 90090 * s * s * s - 30030 * s * s + 3465 * s -
                   63) / 256);
  }
  ExpectNear(Polynomial("legendre_polynomial_p", x, 10), p10, "P10");
}

TEST(ReferenceSpecial, NdtriAndEntr) {
  ValueMap values{{"a", RefValue::OfTensor(F32({7}, {0, 0.025, 0.5, 0.975, 1, 1e-20, -0.5}))}};
  KernelRun r = RunKernel("aten::special_ndtri.default", {TensorArg("self", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  const std::vector<double> q = ToDoubles(r.results[0].tensor);
  ASSERT_EQ(q.size(), 7u);
  EXPECT_EQ(q[0], -INFINITY);
  EXPECT_NEAR(q[1], -1.959963985, 1e-6);
  EXPECT_EQ(q[2], 0);
  EXPECT_NEAR(q[3], 1.959963985, 1e-6);
  EXPECT_EQ(q[4], INFINITY);
  EXPECT_NEAR(q[5], -9.262340, 1e-5);
  EXPECT_TRUE(std::isnan(q[6]));
  ValueMap entr_values{{"a", RefValue::OfTensor(F32({4}, {0, 0.5, -1, 2}))}};
  r = RunKernel("aten::special_entr.default", {TensorArg("self", "a")}, entr_values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  const std::vector<double> e = ToDoubles(r.results[0].tensor);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0], 0);
  EXPECT_NEAR(e[1], 0.5 * std::log(2.0), 1e-7);
  EXPECT_EQ(e[2], -INFINITY);
  EXPECT_NEAR(e[3], -2 * std::log(2.0), 1e-6);
}

// `overload` on the [n] tensor x, as doubles.
std::vector<double> Unary(const std::string& overload, const std::string& arg, const std::vector<double>& x) {
  ValueMap values{{"a", RefValue::OfTensor(F32({static_cast<int64_t>(x.size())}, x))}};
  KernelRun r = RunKernel(overload, {TensorArg(arg, "a")}, values);
  EXPECT_TRUE(r.status.ok()) << overload << ": " << r.status;
  if (!r.status.ok()) return {};
  return ToDoubles(r.results[0].tensor);
}

TEST(ReferenceBessel, SeriesAndAsymptoticRegions) {
  const std::vector<double> x = {0.5, 2.5, 11.0, 13.0, 40.0};
  // mpmath.besselj / bessely at these points.
  ExpectNear(Unary("aten::special_bessel_j0.default", "self", x),
             {0.938469807240813, -0.048383776468198, -0.171190300407196, 0.206926102377068, 0.00736689058423729},
             "J0");
  ExpectNear(Unary("aten::special_bessel_j1.default", "self", {-0.5, 2.5, 11.0, 13.0, 40.0}),
             {-0.242268457674874, 0.497094102464274, -0.176785298956722, -0.0703180521217784, 0.126038318037585},
             "J1 (odd)");
  ExpectNear(Unary("aten::special_bessel_y0.default", "self", x),
             {-0.444518733506707, 0.498070359615232, -0.16884732389208, -0.0782078645278759, 0.125936417058261},
             "Y0");
  ExpectNear(Unary("aten::special_bessel_y1.default", "self", x),
             {-1.47147239267024, 0.145918137966786, 0.163705537414943, -0.210081408420694, -0.00579350582154963},
             "Y1");
  const double nan = std::nan("");
  ExpectNear(Unary("aten::special_bessel_y0.default", "self", {-1, 0}), {nan, -INFINITY}, "Y0 at 0 and below");
  // Airy Ai across its series, integral and asymptotic regions (mpmath.airyai).
  ExpectNear(Unary("aten::special_airy_ai.default", "x", {-8, -3, -1, 0, 1.5, 3, 10}),
             {-0.052705050356386202, -0.37881429367765806, 0.53556088329235207, 0.35502805388781722,
              0.071749497008105415, 0.0065911393574607192, 1.1047532552898686e-10},
             "Ai");
  ExpectNear(Unary("aten::special_spherical_bessel_j0.default", "x", {0, 0.25, 3, INFINITY}),
             {1, 0.98961583701809, 0.0470400026866224, 0}, "spherical j0");
}

TEST(ReferenceModifiedBessel, FirstAndSecondKind) {
  // mpmath.besseli / besselk at these points.
  ExpectNear(Unary("aten::special_i1.default", "self", {-0.5, 3, 9, 20}),
             {-0.25789430539089631, 3.9533702174026093, 1030.9147225169565, 42454973.385127768}, "I1");
  ExpectNear(Unary("aten::special_i1e.default", "self", {-0.5, 3, 9, 800}),
             {-0.1564208031848717, 0.19682671329730086, 0.12722498393589124, 0.014098125406526997}, "I1e");
  ExpectNear(Unary("aten::special_modified_bessel_k0.default", "self", {0.5, 2, 9, 15}),
             {0.92441907122766587, 0.11389387274953344, 5.0881312956459246e-5, 9.8195364823964346e-8}, "K0");
  ExpectNear(Unary("aten::special_modified_bessel_k1.default", "self", {0.5, 2, 9, 15}),
             {1.6564411200033009, 0.13986588181652243, 5.3637016379451948e-5, 1.0141729369762092e-7}, "K1");
  ExpectNear(Unary("aten::special_scaled_modified_bessel_k0.default", "x", {0.5, 2, 9, 15}),
             {1.5241093857739096, 0.84156821507077151, 0.41229554923141809, 0.32100235350577627}, "exp(x) K0");
  const double nan = std::nan("");
  ExpectNear(Unary("aten::special_modified_bessel_k1.default", "self", {0, -1, INFINITY}), {INFINITY, nan, 0},
             "K1 special values");
}

TEST(ReferenceFloatRepresentation, NextafterAndFrexp) {
  ValueMap values{{"a", RefValue::OfTensor(F32({4}, {1, 0, -2, 3}))}, {"b", RefValue::OfTensor(F32({4}, {2, -1, 0, 3}))}};
  KernelRun r = RunKernel("aten::nextafter.default", {TensorArg("self", "a"), TensorArg("other", "b")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  const std::vector<double> next = ToDoubles(r.results[0].tensor);
  ASSERT_EQ(next.size(), 4u);
  EXPECT_EQ(next[0], 1 + std::ldexp(1.0, -23));   // float32's step above 1
  EXPECT_EQ(next[1], -std::ldexp(1.0, -149));     // the smallest denormal
  EXPECT_EQ(next[2], -2 + std::ldexp(1.0, -23));  // toward zero from a power of two
  EXPECT_EQ(next[3], 3);
  r = RunKernel("aten::frexp.Tensor", {TensorArg("self", "a")}, values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(ToDoubles(r.results[0].tensor), (std::vector<double>{0.5, 0, -0.5, 0.75}));
  EXPECT_EQ(r.results[1].tensor.dtype(), DataType::kInt32);
  EXPECT_EQ(ToDoubles(r.results[1].tensor), (std::vector<double>{1, 0, 2, 2}));
}

}  // namespace
}  // namespace pt2onnx::reference
