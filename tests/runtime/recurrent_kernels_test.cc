// Kernels of the recurrent family (runtime/kernels/recurrent.cc): LSTM, GRU
// and RNN against the ONNX spec's equations written out per step.
#include <cmath>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Attribute Int(const char* n, int64_t v) { return ir::Attribute::Int(n, v); }
ir::Attribute Str(const char* n, const char* v) { return ir::Attribute::String(n, v); }
Tensor Absent() { return Tensor(); }
double Sig(double v) { return 1 / (1 + std::exp(-v)); }

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "at " << i;
}

TEST(Lstm, GateOrderIofcWithBiasesAndInitialState) {
  // hidden 1, input 1, two steps; gates i, o, f, c.
  const double w[4] = {0.5, -0.5, 0.25, 1.0}, r[4] = {0.1, 0.2, 0.3, 0.4};
  const double wb[4] = {0.1, 0.0, -0.1, 0.2}, rb[4] = {0.0, 0.3, 0.0, -0.1};
  const double x[2] = {1.0, -2.0};
  double h = 0.5, c = -0.25;
  std::vector<double> y;
  for (double xt : x) {
    auto gate = [&](int k) { return w[k] * xt + r[k] * h + wb[k] + rb[k]; };
    double i = Sig(gate(0)), o = Sig(gate(1)), f = Sig(gate(2)), cand = std::tanh(gate(3));
    c = f * c + i * cand;
    h = o * std::tanh(c);
    y.push_back(h);
  }
  auto out = RunOp("LSTM", {Int("hidden_size", 1)},
                   {{F32({2, 1, 1}, {1.0f, -2.0f})}, {F32({1, 4, 1}, {0.5f, -0.5f, 0.25f, 1.0f})},
                    {F32({1, 4, 1}, {0.1f, 0.2f, 0.3f, 0.4f})},
                    {F32({1, 8}, {0.1f, 0.0f, -0.1f, 0.2f, 0.0f, 0.3f, 0.0f, -0.1f})}, {Absent()},
                    {F32({1, 1, 1}, {0.5f})}, {F32({1, 1, 1}, {-0.25f})}},
                   3);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{2, 1, 1, 1}));
  ExpectNear(Values<float>((*out)[0].tensor), y);
  ExpectNear(Values<float>((*out)[1].tensor), {h});
  ExpectNear(Values<float>((*out)[2].tensor), {c});
}

TEST(Gru, ResetBeforeAndAfterTheRecurrentProduct) {
  // hidden 1, one step; gates z, r, h; h0 = 0.8.
  const double x = 0.7, h0 = 0.8;
  const double w[3] = {0.3, -0.6, 0.9}, r[3] = {0.5, 0.4, -0.7}, rb_h = 0.2;
  const double z = Sig(w[0] * x + r[0] * h0), reset = Sig(w[1] * x + r[1] * h0);
  const double after = std::tanh(w[2] * x + reset * (r[2] * h0 + rb_h));  // linear_before_reset=1
  const double before = std::tanh(w[2] * x + r[2] * (reset * h0) + rb_h);  // linear_before_reset=0
  for (int lbr : {1, 0}) {
    auto out = RunOp("GRU", {Int("hidden_size", 1), Int("linear_before_reset", lbr)},
                     {{F32({1, 1, 1}, {0.7f})}, {F32({1, 3, 1}, {0.3f, -0.6f, 0.9f})},
                      {F32({1, 3, 1}, {0.5f, 0.4f, -0.7f})}, {F32({1, 6}, {0, 0, 0, 0, 0, 0.2f})}, {Absent()},
                      {F32({1, 1, 1}, {0.8f})}},
                     2);
    ASSERT_TRUE(out.ok()) << out.status();
    const double n = lbr ? after : before;
    ExpectNear(Values<float>((*out)[1].tensor), {(1 - z) * n + z * h0});
  }
}

TEST(Rnn, BidirectionalReluWithSequenceLengths) {
  // hidden 1, input 1, batch 2 with lengths 2 and 1; W = 1, R = 0.5 (forward), W = -1, R = 1 (reverse).
  auto out = RunOp("RNN", {Int("hidden_size", 1), Str("direction", "bidirectional")},
                   {{F32({2, 2, 1}, {1.0f, -3.0f, 2.0f, 5.0f})}, {F32({2, 1, 1}, {1.0f, -1.0f})},
                    {F32({2, 1, 1}, {0.5f, 1.0f})}, {Absent()}, {I64({2}, {2, 1})}},
                   2);
  ASSERT_TRUE(out.ok()) << out.status();
  // Activations default to Tanh: forward n0: tanh(1), tanh(2 + 0.5 tanh(1)); n1: tanh(-3), then padding.
  const double f00 = std::tanh(1.0), f01 = std::tanh(2.0 + 0.5 * f00), f10 = std::tanh(-3.0);
  // Reverse n0 runs step 1 then 0: tanh(-2), tanh(-1 + tanh(-2)); n1 only step 0: tanh(3).
  const double r01 = std::tanh(-2.0), r00 = std::tanh(-1.0 + r01), r10 = std::tanh(3.0);
  // Y [T=2, D=2, B=2, H=1].
  ExpectNear(Values<float>((*out)[0].tensor), {f00, f10, r00, r10, f01, 0.0, r01, 0.0});
  ExpectNear(Values<float>((*out)[1].tensor), {f01, f10, r00, r10});
  auto relu = RunOp("RNN", {Int("hidden_size", 1), ir::Attribute::Strings("activations", {"Relu"})},
                    {{F32({2, 1, 1}, {-1.0f, 2.0f})}, {F32({1, 1, 1}, {1.0f})}, {F32({1, 1, 1}, {1.0f})}});
  ASSERT_TRUE(relu.ok()) << relu.status();
  ExpectNear(Values<float>((*relu)[0].tensor), {0.0, 2.0});
}

TEST(Recurrent, LayoutOneIsBatchMajor) {
  auto out = RunOp("RNN", {Int("hidden_size", 1), Int("layout", 1)},
                   {{F32({2, 2, 1}, {1.0f, 2.0f, -1.0f, 0.5f})}, {F32({1, 1, 1}, {1.0f})}, {F32({1, 1, 1}, {0.0f})}},
                   2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{2, 2, 1, 1}));
  ExpectNear(Values<float>((*out)[0].tensor), {std::tanh(1.0), std::tanh(2.0), std::tanh(-1.0), std::tanh(0.5)});
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{2, 1, 1}));
}

TEST(Recurrent, Errors) {
  auto clip = RunOp("LSTM", {Int("hidden_size", 1), ir::Attribute::Float("clip", 1.0f)},
                    {{F32({1, 1, 1}, {1})}, {F32({1, 4, 1}, {1, 1, 1, 1})}, {F32({1, 4, 1}, {1, 1, 1, 1})}});
  EXPECT_TRUE(absl::StrContains(clip.status().message(), "clip")) << clip.status();
  auto shape = RunOp("GRU", {Int("hidden_size", 2)},
                     {{F32({1, 1, 1}, {1})}, {F32({1, 3, 1}, {1, 1, 1})}, {F32({1, 6, 2}, std::vector<float>(12, 0))}});
  EXPECT_TRUE(absl::StrContains(shape.status().message(), "W is [1, 3, 1]")) << shape.status();
  auto act = RunOp("RNN", {Int("hidden_size", 1), ir::Attribute::Strings("activations", {"Elu"})},
                   {{F32({1, 1, 1}, {1})}, {F32({1, 1, 1}, {1})}, {F32({1, 1, 1}, {1})}});
  EXPECT_TRUE(absl::StrContains(act.status().message(), "'Elu'")) << act.status();
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
