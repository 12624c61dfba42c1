// Reference kernels of the random ops (distributions.cc, dropout.cc in
// training mode, attention dropout) and fractional max pooling: results are
// marked not comparable, have torch's shapes and dtypes, and their draws
// follow torch's distributions (support, moments, frequencies, dropout's
// scaling and alpha dropout's affine correction). Fractional max pooling is
// deterministic given its samples: hand-computed windows.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "tests/reference/kernel_runner.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::reference {
namespace {

using ::pt2onnx::testing::BoolArg;
using ::pt2onnx::testing::FloatArg;
using ::pt2onnx::testing::IntArg;
using ::pt2onnx::testing::IntsArg;
using ::pt2onnx::testing::TensorArg;

constexpr int64_t kN = 20000;

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double Std(const std::vector<double>& v) {
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// overload(self = `self`, args...) -> its first result's values, checked
// to be random-marked and shaped like self.
std::vector<double> Draw(const std::string& overload, std::vector<pt2::NamedArgument> args,
                         const Tensor& self = F32({kN}, std::vector<double>(kN, 0.0))) {
  args.insert(args.begin(), TensorArg("self", "x"));
  KernelRun r = RunKernel(overload, args, {{"x", RefValue::OfTensor(self)}});
  EXPECT_TRUE(r.status.ok()) << overload << ": " << r.status;
  if (!r.status.ok()) return {};
  EXPECT_FALSE(r.results[0].not_comparable.empty()) << overload;
  EXPECT_EQ(r.results[0].tensor.dims(), self.dims()) << overload;
  EXPECT_EQ(r.results[0].tensor.dtype(), self.dtype()) << overload;
  return ToDoubles(r.results[0].tensor);
}

TEST(ReferenceDistributions, SamplersFollowTorchsDistributions) {
  std::vector<double> u = Draw("aten::uniform_.default", {FloatArg("from", -3), FloatArg("to", 5)});
  EXPECT_GE(*std::min_element(u.begin(), u.end()), -3);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 5);
  EXPECT_NEAR(Mean(u), 1, 0.1);
  std::vector<double> n = Draw("aten::normal_.default", {FloatArg("mean", 2), FloatArg("std", 0.5)});
  EXPECT_NEAR(Mean(n), 2, 0.02);
  EXPECT_NEAR(Std(n), 0.5, 0.02);
  std::vector<double> e = Draw("aten::exponential_.default", {FloatArg("lambd", 2)});
  EXPECT_GT(*std::min_element(e.begin(), e.end()), 0);
  EXPECT_NEAR(Mean(e), 0.5, 0.02);
  std::vector<double> g = Draw("aten::geometric_.default", {FloatArg("p", 0.25)});
  EXPECT_GE(*std::min_element(g.begin(), g.end()), 1);
  EXPECT_NEAR(Mean(g), 4, 0.15);
  std::vector<double> c = Draw("aten::cauchy_.default", {FloatArg("median", 1), FloatArg("sigma", 2)});
  EXPECT_NEAR(static_cast<double>(std::count_if(c.begin(), c.end(), [](double x) { return x > -1 && x < 3; })) / kN,
              0.5, 0.025);
  std::vector<double> ln = Draw("aten::log_normal_.default", {FloatArg("mean", -1), FloatArg("std", 0.5)});
  for (double& x : ln) x = std::log(x);
  EXPECT_NEAR(Mean(ln), -1, 0.02);
  std::vector<double> b = Draw("aten::bernoulli.p", {FloatArg("p", 0.3)});
  for (double x : b) ASSERT_TRUE(x == 0 || x == 1);
  EXPECT_NEAR(Mean(b), 0.3, 0.02);
}

TEST(ReferenceDistributions, InPlaceSamplersWriteSelf) {
  Tensor self = F32({4}, {9, 9, 9, 9});
  KernelRun r = RunKernel("aten::uniform_.default", {TensorArg("self", "x"), FloatArg("from", 0), FloatArg("to", 1)},
                          {{"x", RefValue::OfTensor(self)}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  for (double v : ToDoubles(self)) EXPECT_LT(v, 1);
}

TEST(ReferenceDistributions, MultinomialWithoutReplacementPicksDistinctNonZeroCategories) {
  const int64_t rows = 4000;
  std::vector<double> w;
  for (int64_t r = 0; r < rows; ++r) w.insert(w.end(), {0, 1, 3, 0, 4});
  KernelRun r = RunKernel("aten::multinomial.default", {TensorArg("self", "w"), IntArg("num_samples", 3)},
                          {{"w", RefValue::OfTensor(F32({rows, 5}, w))}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.results[0].tensor.dims(), Dims({rows, 3}));
  std::vector<int64_t> y = ToInts(r.results[0].tensor);
  double first_is_four = 0;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<int64_t> picks(y.begin() + 3 * i, y.begin() + 3 * i + 3);
    std::sort(picks.begin(), picks.end());
    ASSERT_EQ(picks, std::vector<int64_t>({1, 2, 4}));
    first_is_four += y[3 * i] == 4 ? 1.0 / rows : 0;
  }
  EXPECT_NEAR(first_is_four, 0.5, 0.04);
}

TEST(ReferenceDistributions, NormalBroadcastsMeanAndStd) {
  KernelRun r = RunKernel("aten::normal.Tensor_Tensor", {TensorArg("mean", "m"), TensorArg("std", "s")},
                          {{"m", RefValue::OfTensor(F32({2, 1}, {-5, 5}))},
                           {"s", RefValue::OfTensor(F32({1, kN / 2}, std::vector<double>(kN / 2, 0.1)))}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.results[0].tensor.dims(), Dims({2, kN / 2}));
  std::vector<double> y = ToDoubles(r.results[0].tensor);
  EXPECT_NEAR(Mean(std::vector<double>(y.begin(), y.begin() + kN / 2)), -5, 0.01);
  EXPECT_NEAR(Std(std::vector<double>(y.begin() + kN / 2, y.end())), 0.1, 0.005);
}

TEST(ReferenceDistributions, TrainingRreluSlopesAreUniform) {
  std::vector<double> x(kN, -2.0);
  std::vector<double> y = Draw("aten::rrelu.default",
                               {FloatArg("lower", 0.1), FloatArg("upper", 0.3), BoolArg("training", true)},
                               F32({kN}, x));
  for (double& v : y) v /= -2.0;
  EXPECT_GE(*std::min_element(y.begin(), y.end()), 0.1 - 1e-6);
  EXPECT_LE(*std::max_element(y.begin(), y.end()), 0.3 + 1e-6);
  EXPECT_NEAR(Mean(y), 0.2, 0.005);
}

KernelRun Dropout(const std::string& overload, double p, const Tensor& x) {
  return RunKernel(overload, {TensorArg("input", "x"), FloatArg("p", p), BoolArg("train", true)},
                   {{"x", RefValue::OfTensor(x)}});
}

TEST(ReferenceDropout, TrainingScalesKeptElementsAndHandlesTheEdges) {
  KernelRun r = Dropout("aten::dropout.default", 0.25, F32({kN}, std::vector<double>(kN, 3.0)));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_FALSE(r.results[0].not_comparable.empty());
  std::vector<double> y = ToDoubles(r.results[0].tensor);
  for (double v : y) ASSERT_TRUE(v == 0 || std::abs(v - 4) < 1e-6) << v;
  EXPECT_NEAR(static_cast<double>(std::count(y.begin(), y.end(), 0.0)) / kN, 0.25, 0.02);

  r = Dropout("aten::dropout.default", 1.0, F32({3}, {1, NAN, -2}));
  ASSERT_TRUE(r.status.ok()) << r.status;
  y = ToDoubles(r.results[0].tensor);
  EXPECT_EQ(y[0], 0);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 0);

  r = Dropout("aten::dropout.default", 0.0, F32({2}, {1, 2}));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.results[0].not_comparable.empty());  // p == 0: the identity
  ExpectValues(r.results[0], {2}, {1, 2});
}

TEST(ReferenceDropout, FeatureAlphaDropoutSharesOneDrawPerMapWithTheAffineCorrection) {
  const double p = 0.5, alpha = 1.7580993408473766;
  const double a = 1 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  KernelRun r = Dropout("aten::feature_alpha_dropout.default", p, F32({50, 40, 3}, std::vector<double>(6000, 1.0)));
  ASSERT_TRUE(r.status.ok()) << r.status;
  std::vector<double> y = ToDoubles(r.results[0].tensor);
  int64_t kept = 0;
  for (int64_t m = 0; m < 2000; ++m) {
    ASSERT_EQ(y[3 * m], y[3 * m + 1]);
    ASSERT_EQ(y[3 * m], y[3 * m + 2]);
    const bool is_kept = std::abs(y[3 * m] - (a + alpha * a * p)) < 1e-6;
    ASSERT_TRUE(is_kept || std::abs(y[3 * m] - alpha * a * (p - 1)) < 1e-6) << y[3 * m];
    kept += is_kept;
  }
  EXPECT_NEAR(kept / 2000.0, 0.5, 0.05);
}

TEST(ReferenceDropout, NativeDropoutMaskMatchesTheOutput) {
  KernelRun r = RunKernel("aten::native_dropout.default",
                          {TensorArg("input", "x"), FloatArg("p", 0.4), BoolArg("train", true)},
                          {{"x", RefValue::OfTensor(F32({kN}, std::vector<double>(kN, -1.0)))}}, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.results[1].tensor.dtype(), DataType::kBool);
  std::vector<double> y = ToDoubles(r.results[0].tensor), mask = ToDoubles(r.results[1].tensor);
  for (int64_t i = 0; i < kN; ++i) ASSERT_NEAR(y[i], -mask[i] / 0.6, 1e-6);
  EXPECT_NEAR(Mean(mask), 0.6, 0.02);
}

TEST(ReferenceAttention, DropoutScalesTheKeptWeights) {
  const int64_t l = 2000, s = 10;
  KernelRun r = RunKernel(
      "aten::scaled_dot_product_attention.default",
      {TensorArg("query", "q"), TensorArg("key", "k"), TensorArg("value", "v"), FloatArg("dropout_p", 0.5)},
      {{"q", RefValue::OfTensor(F32({1, l, 4}, std::vector<double>(l * 4, 0.0)))},
       {"k", RefValue::OfTensor(F32({1, s, 4}, std::vector<double>(s * 4, 0.0)))},
       {"v", RefValue::OfTensor(F32({1, s, 1}, std::vector<double>(s, 1.0)))}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_FALSE(r.results[0].not_comparable.empty());
  std::vector<double> y = ToDoubles(r.results[0].tensor);
  EXPECT_NEAR(Mean(y), 1, 0.03);
  for (double v : y) ASSERT_NEAR(v * 5, std::round(v * 5), 1e-5);  // kept count / 10, times 2
}

TEST(ReferenceFractionalMaxPool, WindowsFollowTheSamples) {
  // As tests/ops/distribution_draws_test.cc: H sample 0.2 -> {0, 3, 5, 8},
  // W sample 0.7 -> {0, 3, 6, 8} on a 10x10 plane x[h, w] = 10 h + w.
  std::vector<double> x(100);
  for (int64_t i = 0; i < 100; ++i) x[i] = static_cast<double>(i);
  KernelRun r = RunKernel("aten::fractional_max_pool2d.default",
                          {TensorArg("self", "x"), IntsArg("kernel_size", {2, 2}), IntsArg("output_size", {4, 4}),
                           TensorArg("random_samples", "r")},
                          {{"x", RefValue::OfTensor(F32({1, 10, 10}, x))},
                           {"r", RefValue::OfTensor(F32({1, 1, 2}, {0.7, 0.2}))}},
                          2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  std::vector<double> want;
  for (int64_t h : {0, 3, 5, 8}) {
    for (int64_t w : {0, 3, 6, 8}) want.push_back(static_cast<double>(10 * (h + 1) + w + 1));
  }
  ExpectValues(r.results[0], {1, 4, 4}, want);
  EXPECT_EQ(ToDoubles(r.results[1].tensor), want);
}

TEST(ReferenceFractionalMaxPool, ThreeDimsTakeTheirSamplesInTHWOrder) {
  // in (5, 6, 7), kernel 2, output 3: alpha 1.5, 2, 2.5. Samples T 0.9 ->
  // {0, 1, 3}, H 0.5 -> {0, 2, 4}, W 0.7 -> {0, 3, 5}.
  std::vector<double> x(5 * 6 * 7);
  for (int64_t t = 0; t < 5; ++t) {
    for (int64_t h = 0; h < 6; ++h) {
      for (int64_t w = 0; w < 7; ++w) x[(t * 6 + h) * 7 + w] = static_cast<double>(100 * t + 10 * h + w);
    }
  }
  KernelRun r = RunKernel("aten::fractional_max_pool3d.default",
                          {TensorArg("self", "x"), IntsArg("kernel_size", {2, 2, 2}), IntsArg("output_size", {3, 3, 3}),
                           TensorArg("random_samples", "r")},
                          {{"x", RefValue::OfTensor(F32({1, 1, 5, 6, 7}, x))},
                           {"r", RefValue::OfTensor(F32({1, 1, 3}, {0.9, 0.5, 0.7}))}},
                          2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  std::vector<double> want;
  for (int64_t t : {0, 1, 3}) {
    for (int64_t h : {0, 2, 4}) {
      for (int64_t w : {0, 3, 5}) want.push_back(static_cast<double>(100 * (t + 1) + 10 * (h + 1) + w + 1));
    }
  }
  ExpectValues(r.results[0], {1, 1, 3, 3, 3}, want);
}

}  // namespace
}  // namespace pt2onnx::reference
