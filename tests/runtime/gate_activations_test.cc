// runtime/kernels/gate_activations.cc: float32 Sigmoid and Tanh within 3 ulp
// of the exact values over their whole useful range, and their edge values.
#include "runtime/kernels/gate_activations.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace pt2onnx::runtime {
namespace {

// |got - want| in units of the float32 spacing at want.
double Ulps(float got, double want) {
  const float rounded = static_cast<float>(want);
  const double spacing =
      std::nextafter(std::fabs(rounded), std::numeric_limits<float>::infinity()) - std::fabs(rounded);
  return std::fabs(got - want) / spacing;
}

void ExpectWithinUlps(GateActivation activation, double (*exact)(double)) {
  std::vector<float> x;
  for (float v = -100.0f; v <= 100.0f; v += 0.00731f) x.push_back(v);
  for (float v = 1e-30f; v < 1.0f; v *= 1.7f) {
    x.push_back(v);
    x.push_back(-v);
  }
  std::vector<float> got = x;
  ActivateInPlace(activation, got.data(), static_cast<int64_t>(got.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = exact(x[i]);
    if (std::fabs(want) < std::numeric_limits<float>::min()) continue;  // subnormal results
    ASSERT_LE(Ulps(got[i], want), 3.0) << "at " << x[i] << ": " << got[i] << " vs " << want;
  }
}

TEST(GateActivations, SigmoidWithinThreeUlps) {
  ExpectWithinUlps(GateActivation::kSigmoid, [](double v) { return 1 / (1 + std::exp(-v)); });
}

TEST(GateActivations, TanhWithinThreeUlps) {
  ExpectWithinUlps(GateActivation::kTanh, [](double v) { return std::tanh(v); });
}

TEST(GateActivations, EdgeValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> s = {-inf, inf, nan, 0.0f, -200.0f, 200.0f};
  ActivateInPlace(GateActivation::kSigmoid, s.data(), static_cast<int64_t>(s.size()));
  EXPECT_EQ(s[0], 0.0f);
  EXPECT_EQ(s[1], 1.0f);
  EXPECT_TRUE(std::isnan(s[2]));
  EXPECT_EQ(s[3], 0.5f);
  EXPECT_EQ(s[4], 0.0f);
  EXPECT_EQ(s[5], 1.0f);
  std::vector<float> t = {-inf, inf, nan, 0.0f, -1e-30f, 30.0f};
  ActivateInPlace(GateActivation::kTanh, t.data(), static_cast<int64_t>(t.size()));
  EXPECT_EQ(t[0], -1.0f);
  EXPECT_EQ(t[1], 1.0f);
  EXPECT_TRUE(std::isnan(t[2]));
  EXPECT_EQ(t[3], 0.0f);
  EXPECT_EQ(t[4], -1e-30f);
  EXPECT_EQ(t[5], 1.0f);
  std::vector<float> r = {-1.0f, 2.0f};
  ActivateInPlace(GateActivation::kRelu, r.data(), 2);
  EXPECT_EQ(r, (std::vector<float>{0.0f, 2.0f}));
}

}  // namespace
}  // namespace pt2onnx::runtime
