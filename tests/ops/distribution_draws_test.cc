// Draws of the random translations (ops/distributions.cc, dropout.cc,
// attention.cc, fractional_pooling.cc) run in pt2onnx's executor: each
// one-node program is converted and run once on a large input, and the
// sample's support, moments and frequencies are checked against torch's
// distribution (bounds about six standard errors wide, so a wrong
// distribution fails and a right one passes with overwhelming probability).
// The values cannot be compared with torch's: another generator.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "core/tensor/tensor.h"
#include "runtime/plan/session.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::testing {
namespace {

struct Feed {
  std::string name;
  DataType dtype;
  std::vector<int64_t> dims;
  std::vector<double> values;
};

pt2onnx::Tensor ToTensor(const Feed& f) {
  pt2onnx::Tensor t = *pt2onnx::Tensor::Allocate(f.dtype, f.dims, nullptr);
  for (size_t i = 0; i < f.values.size(); ++i) {
    if (f.dtype == DataType::kDouble) {
      t.data<double>()[i] = f.values[i];
    } else {
      t.data<float>()[i] = static_cast<float>(f.values[i]);
    }
  }
  return t;
}

// Output `i` as doubles (float, double, int64 or bool outputs).
std::vector<double> AsDoubles(const pt2onnx::Tensor& t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DataType::kDouble: v[i] = t.data<double>()[i]; break;
      case DataType::kInt64: v[i] = static_cast<double>(t.data<int64_t>()[i]); break;
      case DataType::kBool: v[i] = t.data<bool>()[i] ? 1 : 0; break;
      default: v[i] = t.data<float>()[i]; break;
    }
  }
  return v;
}

struct Draws {
  std::vector<std::vector<double>> outputs;
  std::vector<std::vector<int64_t>> dims;
  std::vector<DataType> dtypes;
};

// Converts `program` and runs it once in the executor.
absl::StatusOr<Draws> ConvertAndRun(const ProgramBuilder& program, const std::vector<Feed>& feeds) {
  absl::StatusOr<Converted> converted = ConvertAndCheck(program.Build());
  if (!converted.ok()) return converted.status();
  absl::StatusOr<std::unique_ptr<runtime::Session>> session =
      runtime::Session::Create(converted->model, runtime::SessionOptions{});
  if (!session.ok()) return session.status();
  std::vector<pt2onnx::NamedTensor> inputs;
  for (const Feed& f : feeds) inputs.push_back({f.name, ToTensor(f)});
  absl::StatusOr<std::vector<pt2onnx::NamedTensor>> out = (*session)->Run(inputs);
  if (!out.ok()) return out.status();
  Draws run;
  for (const pt2onnx::NamedTensor& t : *out) {
    run.outputs.push_back(AsDoubles(t.tensor));
    run.dims.push_back(std::vector<int64_t>(t.tensor.dims().begin(), t.tensor.dims().end()));
    run.dtypes.push_back(t.tensor.dtype());
  }
  return run;
}

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
double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

constexpr int64_t kN = 20000;

Feed Zeros(std::string name, int64_t n = kN, DataType dtype = DataType::kFloat) {
  return {std::move(name), dtype, {n}, std::vector<double>(n, 0.0)};
}

// self (zeros of kN) -> overload(self, args) -> y, run once.
Draws Sample(const std::string& overload, std::vector<pt2::NamedArgument> args, DataType dtype = DataType::kFloat) {
  std::vector<pt2::NamedArgument> all = {TensorArg("self", "x")};
  all.insert(all.end(), args.begin(), args.end());
  absl::StatusOr<Draws> run = ConvertAndRun(OneNodeProgram({{"x", dtype, {kN}}}, overload, all, {{"y", dtype, {kN}}}),
                                          {Zeros("x", kN, dtype)});
  EXPECT_TRUE(run.ok()) << overload << ": " << run.status();
  if (!run.ok()) return {};
  EXPECT_EQ(run->dtypes[0], dtype) << overload;
  EXPECT_EQ(run->dims[0], std::vector<int64_t>({kN})) << overload;
  return *run;
}

TEST(DistributionDraws, UniformStaysInItsRangeWithItsMean) {
  std::vector<double> u = Sample("uniform_.default", {FloatArg("from", -3), FloatArg("to", 5)}).outputs.at(0);
  EXPECT_GE(*std::min_element(u.begin(), u.end()), -3);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 5);
  EXPECT_NEAR(Mean(u), 1, 0.1);
  EXPECT_NEAR(Std(u), 8 / std::sqrt(12.0), 0.06);
}

TEST(DistributionDraws, NormalAndLogNormalMoments) {
  std::vector<double> n = Sample("normal_.default", {FloatArg("mean", 2), FloatArg("std", 0.5)}).outputs.at(0);
  EXPECT_NEAR(Mean(n), 2, 0.02);
  EXPECT_NEAR(Std(n), 0.5, 0.02);
  std::vector<double> ln =
      Sample("log_normal_.default", {FloatArg("mean", -1), FloatArg("std", 0.5)}, DataType::kDouble).outputs.at(0);
  EXPECT_GT(*std::min_element(ln.begin(), ln.end()), 0);
  for (double& x : ln) x = std::log(x);
  EXPECT_NEAR(Mean(ln), -1, 0.02);
  EXPECT_NEAR(Std(ln), 0.5, 0.02);
}

TEST(DistributionDraws, CauchyMedianAndQuartiles) {
  std::vector<double> c = Sample("cauchy_.default", {FloatArg("median", 1), FloatArg("sigma", 2)}).outputs.at(0);
  EXPECT_NEAR(Median(c), 1, 0.15);
  // Half the mass lies within one sigma of the median.
  int64_t inside = std::count_if(c.begin(), c.end(), [](double x) { return x > -1 && x < 3; });
  EXPECT_NEAR(static_cast<double>(inside) / kN, 0.5, 0.025);
}

TEST(DistributionDraws, ExponentialIsPositiveWithMeanOneOverLambda) {
  std::vector<double> e = Sample("exponential_.default", {FloatArg("lambd", 2)}).outputs.at(0);
  EXPECT_GT(*std::min_element(e.begin(), e.end()), 0);
  EXPECT_NEAR(Mean(e), 0.5, 0.02);
  EXPECT_NEAR(Std(e), 0.5, 0.03);
}

TEST(DistributionDraws, GeometricCountsTrialsFromOne) {
  std::vector<double> g = Sample("geometric_.default", {FloatArg("p", 0.25)}).outputs.at(0);
  for (double x : g) ASSERT_TRUE(x >= 1 && x == std::floor(x)) << x;
  EXPECT_NEAR(Mean(g), 4, 0.15);  // 1 / p
  const double ones = static_cast<double>(std::count(g.begin(), g.end(), 1.0)) / kN;
  EXPECT_NEAR(ones, 0.25, 0.02);  // P(X = 1) = p
}

TEST(DistributionDraws, BernoulliFollowsItsProbabilities) {
  // p = 0 and p = 1 are certain; the rest hit with p = 0.3.
  std::vector<double> p(kN, 0.3);
  for (int64_t i = 0; i < 100; ++i) p[i] = 0, p[100 + i] = 1;
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"x", kF32, {kN}}}, "bernoulli.default", {TensorArg("self", "x")}, {{"y", kF32, {kN}}}),
      {{"x", kF32, {kN}, p}});
  ASSERT_TRUE(run.ok()) << run.status();
  const std::vector<double>& b = run->outputs[0];
  for (int64_t i = 0; i < 100; ++i) {
    ASSERT_EQ(b[i], 0);
    ASSERT_EQ(b[100 + i], 1);
  }
  std::vector<double> rest(b.begin() + 200, b.end());
  for (double x : rest) ASSERT_TRUE(x == 0 || x == 1);
  EXPECT_NEAR(Mean(rest), 0.3, 0.02);
  std::vector<double> fixed = Sample("bernoulli.p", {FloatArg("p", 0.8)}, DataType::kDouble).outputs.at(0);
  EXPECT_NEAR(Mean(fixed), 0.8, 0.02);
}

TEST(DistributionDraws, NormalBroadcastsMeanAndStd) {
  // mean [2, 1] = {-5, 5}, std [1, kN / 2] = 0.1 or 1 by column half.
  const int64_t n = kN / 2;
  std::vector<double> std_values(n, 0.1);
  std::fill(std_values.begin() + n / 2, std_values.end(), 1.0);
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"m", kF32, {2, 1}}, {"s", kF32, {1, n}}}, "normal.Tensor_Tensor",
                     {TensorArg("mean", "m"), TensorArg("std", "s")}, {{"y", kF32, {2, n}}}),
      {{"m", kF32, {2, 1}, {-5, 5}}, {"s", kF32, {1, n}, std_values}});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->dims[0], std::vector<int64_t>({2, n}));
  const std::vector<double>& y = run->outputs[0];
  std::vector<double> row0_narrow(y.begin(), y.begin() + n / 2), row1_wide(y.begin() + n + n / 2, y.end());
  EXPECT_NEAR(Mean(row0_narrow), -5, 0.02);
  EXPECT_NEAR(Std(row0_narrow), 0.1, 0.005);
  EXPECT_NEAR(Mean(row1_wide), 5, 0.1);
  EXPECT_NEAR(Std(row1_wide), 1, 0.05);

  absl::StatusOr<Draws> ff = ConvertAndRun(
      OneNodeProgram({}, "normal.float_float",
                     {FloatArg("mean", 0.3), FloatArg("std", 1.6), IntsArg("size", {100, 200})},
                     {{"y", kF32, {100, 200}}}),
      {});
  ASSERT_TRUE(ff.ok()) << ff.status();
  EXPECT_NEAR(Mean(ff->outputs[0]), 0.3, 0.07);
  EXPECT_NEAR(Std(ff->outputs[0]), 1.6, 0.07);
}

TEST(DistributionDraws, MultinomialWithoutReplacementFollowsSequentialDraws) {
  // Rows of weights {0, 1, 3, 0, 4}: three distinct picks among {1, 2, 4};
  // the first is 4 with 4/8, 2 with 3/8, 1 with 1/8.
  const int64_t rows = 8000;
  std::vector<double> w;
  for (int64_t r = 0; r < rows; ++r) w.insert(w.end(), {0, 1, 3, 0, 4});
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"w", kF32, {rows, 5}}}, "multinomial.default",
                     {TensorArg("self", "w"), IntArg("num_samples", 3)}, {{"y", kI64, {rows, 3}}}),
      {{"w", kF32, {rows, 5}, w}});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->dtypes[0], DataType::kInt64);
  const std::vector<double>& y = run->outputs[0];
  double first[5] = {0, 0, 0, 0, 0};
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> picks(y.begin() + 3 * r, y.begin() + 3 * r + 3);
    std::sort(picks.begin(), picks.end());
    ASSERT_EQ(picks, std::vector<double>({1, 2, 4})) << "row " << r;
    first[static_cast<int>(y[3 * r])] += 1.0 / rows;
  }
  EXPECT_NEAR(first[4], 0.5, 0.03);
  EXPECT_NEAR(first[2], 0.375, 0.03);
  EXPECT_NEAR(first[1], 0.125, 0.025);
}

TEST(DistributionDraws, MultinomialWithReplacementFollowsTheWeights) {
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"w", kF32, {3}}}, "multinomial.default",
                     {TensorArg("self", "w"), IntArg("num_samples", kN), BoolArg("replacement", true)},
                     {{"y", kI64, {kN}}}),
      {{"w", kF32, {3}, {1, 0, 3}}});
  ASSERT_TRUE(run.ok()) << run.status();
  const std::vector<double>& y = run->outputs[0];
  EXPECT_EQ(std::count(y.begin(), y.end(), 1.0), 0);
  EXPECT_NEAR(static_cast<double>(std::count(y.begin(), y.end(), 2.0)) / kN, 0.75, 0.02);
  EXPECT_EQ(std::count(y.begin(), y.end(), 0.0) + std::count(y.begin(), y.end(), 2.0), kN);
}

TEST(DistributionDraws, TrainingRreluScalesNegativesByAUniformSlope) {
  std::vector<double> x(kN);
  for (int64_t i = 0; i < kN; ++i) x[i] = i % 2 == 0 ? 1.5 : -2.0;
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"x", kF32, {kN}}}, "rrelu.default",
                     {TensorArg("self", "x"), FloatArg("lower", 0.1), FloatArg("upper", 0.3), BoolArg("training", true)},
                     {{"y", kF32, {kN}}}),
      {{"x", kF32, {kN}, x}});
  ASSERT_TRUE(run.ok()) << run.status();
  std::vector<double> slopes;
  for (int64_t i = 0; i < kN; ++i) {
    if (i % 2 == 0) {
      ASSERT_EQ(run->outputs[0][i], 1.5);
    } else {
      slopes.push_back(run->outputs[0][i] / -2.0);
    }
  }
  EXPECT_GE(*std::min_element(slopes.begin(), slopes.end()), 0.1 - 1e-6);
  EXPECT_LE(*std::max_element(slopes.begin(), slopes.end()), 0.3 + 1e-6);
  EXPECT_NEAR(Mean(slopes), 0.2, 0.005);
  EXPECT_NEAR(Std(slopes), 0.2 / std::sqrt(12.0), 0.005);
}

Draws RunDropout(const std::string& overload, double p, const std::vector<int64_t>& dims, const std::vector<double>& x) {
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"x", kF32, dims}}, overload,
                     {TensorArg("input", "x"), FloatArg("p", p), BoolArg("train", true)}, {{"y", kF32, dims}}),
      {{"x", kF32, dims, x}});
  EXPECT_TRUE(run.ok()) << overload << ": " << run.status();
  return run.ok() ? *run : Draws{};
}

TEST(DropoutDraws, KeptElementsAreScaledByOneOverKeep) {
  std::vector<double> x(kN, 3.0);
  std::vector<double> y = RunDropout("dropout.default", 0.25, {kN}, x).outputs.at(0);
  int64_t kept = 0;
  for (double v : y) {
    ASSERT_TRUE(v == 0 || std::abs(v - 4.0) < 1e-6) << v;  // 3 / 0.75
    kept += v != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / kN, 0.75, 0.02);
}

TEST(DropoutDraws, ProbabilityOneGivesZerosAndKeepsNaN) {
  std::vector<double> x = {1, -2, NAN, 4};
  std::vector<double> y = RunDropout("dropout.default", 1.0, {4}, x).outputs.at(0);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[3], 0);
}

TEST(DropoutDraws, FeatureDropoutDropsWholeMaps) {
  const int64_t n = 100, c = 40, hw = 6;
  std::vector<double> x(n * c * hw, 1.0);
  std::vector<double> y = RunDropout("feature_dropout.default", 0.5, {n, c, 2, 3}, x).outputs.at(0);
  int64_t kept = 0;
  for (int64_t m = 0; m < n * c; ++m) {
    for (int64_t k = 1; k < hw; ++k) ASSERT_EQ(y[m * hw + k], y[m * hw]) << "map " << m;
    ASSERT_TRUE(y[m * hw] == 0 || y[m * hw] == 2);
    kept += y[m * hw] != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / (n * c), 0.5, 0.04);
}

TEST(DropoutDraws, AlphaDropoutKeepsZeroMeanAndUnitVariance) {
  // Standard normal input (Box-Muller on a fixed grid), p = 0.2: the kept
  // values are a * x + alpha * a * p, the dropped ones alpha * a * (p - 1).
  std::vector<double> x(kN);
  for (int64_t i = 0; i < kN / 2; ++i) {
    const double u = (i + 0.5) / (kN / 2), v = std::fmod(i * 0.618033988749895, 1.0);
    x[2 * i] = std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
    x[2 * i + 1] = std::sqrt(-2 * std::log(u)) * std::sin(2 * M_PI * v);
  }
  const double p = 0.2, alpha = 1.7580993408473766;
  const double a = 1 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  std::vector<double> y = RunDropout("alpha_dropout.default", p, {kN}, x).outputs.at(0);
  int64_t dropped = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const double kept_value = a * x[i] + alpha * a * p, dropped_value = alpha * a * (p - 1);
    const bool is_kept = std::abs(y[i] - kept_value) < 1e-4, is_dropped = std::abs(y[i] - dropped_value) < 1e-4;
    ASSERT_TRUE(is_kept || is_dropped) << i << ": " << y[i];
    dropped += !is_kept;
  }
  EXPECT_NEAR(static_cast<double>(dropped) / kN, p, 0.02);
  EXPECT_NEAR(Mean(y), 0, 0.03);
  EXPECT_NEAR(Std(y), 1, 0.03);
}

TEST(DropoutDraws, NativeDropoutMaskMatchesTheOutput) {
  std::vector<double> x(kN, -1.0);
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"x", kF32, {kN}}}, "native_dropout.default",
                     {TensorArg("input", "x"), FloatArg("p", 0.4), BoolArg("train", true)},
                     {{"y", kF32, {kN}}, {"mask", kBool, {kN}}}),
      {{"x", kF32, {kN}, x}});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->dtypes[1], DataType::kBool);
  for (int64_t i = 0; i < kN; ++i) {
    ASSERT_NEAR(run->outputs[0][i], run->outputs[1][i] * (-1 / 0.6), 1e-6);
  }
  EXPECT_NEAR(Mean(run->outputs[1]), 0.6, 0.02);
}

TEST(DropoutDraws, AttentionDropoutScalesTheKeptWeights) {
  // Equal scores, v = 1: each output is (kept weights) / (1 - p), mean 1.
  const int64_t l = 2000, s = 10;
  std::vector<double> q(l * 4, 0.0), k(s * 4, 0.0), v(s * 1, 1.0);
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"q", kF32, {1, l, 4}}, {"k", kF32, {1, s, 4}}, {"v", kF32, {1, s, 1}}},
                     "scaled_dot_product_attention.default",
                     {TensorArg("query", "q"), TensorArg("key", "k"), TensorArg("value", "v"), FloatArg("dropout_p", 0.5)},
                     {{"y", kF32, {1, l, 1}}}),
      {{"q", kF32, {1, l, 4}, q}, {"k", kF32, {1, s, 4}, k}, {"v", kF32, {1, s, 1}, v}});
  ASSERT_TRUE(run.ok()) << run.status();
  for (double y : run->outputs[0]) {
    const double kept = y * 0.5 * s;  // kept weights, each 1 / s, scaled by 2
    ASSERT_NEAR(kept, std::round(kept), 1e-4) << y;
  }
  EXPECT_NEAR(Mean(run->outputs[0]), 1, 0.03);
}

TEST(FractionalMaxPoolDraws, WindowsFollowTheSamples) {
  // 10x10 plane x[h, w] = 10 h + w, kernel 2, output 4: alpha = 8/3; the H
  // sample (index 1) 0.2 gives starts {0, 3, 5, 8}, the W sample (index 0)
  // 0.7 gives {0, 3, 6, 8}; each window's maximum is its bottom-right cell.
  std::vector<double> x(100);
  for (int64_t i = 0; i < 100; ++i) x[i] = static_cast<double>(i);
  absl::StatusOr<Draws> run = ConvertAndRun(
      OneNodeProgram({{"x", kF32, {1, 1, 10, 10}}, {"r", kF32, {1, 1, 2}}}, "fractional_max_pool2d.default",
                     {TensorArg("self", "x"), IntsArg("kernel_size", {2, 2}), IntsArg("output_size", {4, 4}),
                      TensorArg("random_samples", "r")},
                     {{"y", kF32, {1, 1, 4, 4}}, {"i", kI64, {1, 1, 4, 4}}}),
      {{"x", kF32, {1, 1, 10, 10}, x}, {"r", kF32, {1, 1, 2}, {0.7, 0.2}}});
  ASSERT_TRUE(run.ok()) << run.status();
  std::vector<double> want;
  for (int64_t h : {0, 3, 5, 8}) {
    for (int64_t w : {0, 3, 6, 8}) want.push_back(static_cast<double>(10 * (h + 1) + w + 1));
  }
  EXPECT_EQ(run->outputs[0], want);
  EXPECT_EQ(run->outputs[1], want);  // the flat index equals the value here
}

}  // namespace
}  // namespace pt2onnx::testing
