// Kernels of the recurrent family (runtime/kernels/recurrent.cc): LSTM, GRU
// and RNN against the ONNX spec's equations written out per step.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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

// A larger case against the spec's equations in double, per batch entry and
// step: constant weights (packed at creation) and graph-input weights (per
// run), XNNPACK's products and the portable ones.
struct Case {
  std::string name;
  std::string op;
  std::string direction;
  int64_t layout = 0;
  int64_t linear_before_reset = 0;
  bool bias = true, lens = false, initial = false, peepholes = false;
  std::vector<std::string> activations;  // empty: the defaults
};

double Act(const std::string& name, double v) {
  if (name == "Sigmoid") return Sig(v);
  if (name == "Relu") return v > 0 ? v : 0;
  return std::tanh(v);
}

struct Reference {
  std::vector<double> y, yh, yc;
};

// Shapes: seq T, batch B, input I, hidden H; tensors as ONNX lays them out.
Reference Expected(const Case& c, int64_t T, int64_t B, int64_t I, int64_t H, const std::vector<float>& x,
                   const std::vector<float>& w, const std::vector<float>& r, const std::vector<float>& b,
                   const std::vector<int64_t>& lens, const std::vector<float>& h0, const std::vector<float>& c0,
                   const std::vector<float>& p) {
  const int64_t D = c.direction == "bidirectional" ? 2 : 1;
  const int64_t gates = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1, G = gates * H;
  std::vector<std::string> defaults = c.op == "LSTM"  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                      : c.op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                      : std::vector<std::string>{"Tanh"};
  const size_t per = defaults.size();
  Reference ref;
  ref.y.assign(static_cast<size_t>(T * D * B * H), 0.0);
  ref.yh.assign(static_cast<size_t>(D * B * H), 0.0);
  ref.yc = ref.yh;
  auto x_at = [&](int64_t t, int64_t n, int64_t i) { return x[((c.layout == 0 ? t * B + n : n * T + t) * I) + i]; };
  auto state_at = [&](int64_t d, int64_t n) { return (c.layout == 0 ? d * B + n : n * D + d) * H; };
  auto y_at = [&](int64_t t, int64_t d, int64_t n) {
    return (c.layout == 0 ? (t * D + d) * B + n : (n * T + t) * D + d) * H;
  };
  for (int64_t d = 0; d < D; ++d) {
    auto act = [&](size_t k) {
      return c.activations.empty() ? defaults[k] : c.activations[static_cast<size_t>(d) * per + k];
    };
    const bool backward = c.direction == "reverse" || d == 1;
    for (int64_t n = 0; n < B; ++n) {
      const int64_t len = lens.empty() ? T : lens[n];
      std::vector<double> h(H), cs(H);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = h0.empty() ? 0 : h0[state_at(d, n) + j];
        cs[j] = c0.empty() ? 0 : c0[state_at(d, n) + j];
      }
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = backward ? len - 1 - s : s;
        auto wx = [&](int64_t k) {
          double v = b.empty() ? 0 : b[d * 2 * G + k];
          for (int64_t i = 0; i < I; ++i) v += w[(d * G + k) * I + i] * x_at(t, n, i);
          return v;
        };
        auto rh = [&](int64_t k, const std::vector<double>& v) {
          double acc = b.empty() ? 0 : b[d * 2 * G + G + k];
          for (int64_t i = 0; i < H; ++i) acc += r[(d * G + k) * H + i] * v[i];
          return acc;
        };
        std::vector<double> next(H), next_c(H);
        for (int64_t j = 0; j < H; ++j) {
          if (c.op == "RNN") {
            next[j] = Act(act(0), wx(j) + rh(j, h));
          } else if (c.op == "LSTM") {
            auto peep = [&](int64_t k, double cv) { return p.empty() ? 0.0 : p[d * 3 * H + k * H + j] * cv; };
            const double i = Act(act(0), wx(j) + rh(j, h) + peep(0, cs[j]));
            const double f = Act(act(0), wx(2 * H + j) + rh(2 * H + j, h) + peep(2, cs[j]));
            const double cand = Act(act(1), wx(3 * H + j) + rh(3 * H + j, h));
            next_c[j] = f * cs[j] + i * cand;
            const double o = Act(act(0), wx(H + j) + rh(H + j, h) + peep(1, next_c[j]));
            next[j] = o * Act(act(2), next_c[j]);
          } else {
            const double z = Act(act(0), wx(j) + rh(j, h));
            std::vector<double> reset_h(H);
            for (int64_t i = 0; i < H; ++i) reset_h[i] = Act(act(0), wx(H + i) + rh(H + i, h)) * h[i];
            const double reset = Act(act(0), wx(H + j) + rh(H + j, h));
            const double cand = Act(act(1), wx(2 * H + j) + (c.linear_before_reset ? reset * rh(2 * H + j, h)
                                                                                    : rh(2 * H + j, reset_h)));
            next[j] = (1 - z) * cand + z * h[j];
          }
        }
        h = next;
        if (c.op == "LSTM") cs = next_c;
        for (int64_t j = 0; j < H; ++j) ref.y[y_at(t, d, n) + j] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        ref.yh[state_at(d, n) + j] = h[j];
        ref.yc[state_at(d, n) + j] = cs[j];
      }
    }
  }
  return ref;
}

class RecurrentCase : public ::testing::TestWithParam<Case> {};

TEST_P(RecurrentCase, MatchesTheSpecWithConstantAndInputWeights) {
  const Case& c = GetParam();
  const int64_t T = 6, B = 4, I = 7, H = 19;  // H not a multiple of the vector width
  const int64_t D = c.direction == "bidirectional" ? 2 : 1;
  const int64_t G = (c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1) * H;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-0.6f, 0.6f);
  auto random = [&](int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) e = dist(rng);
    return v;
  };
  const std::vector<float> x = random(T * B * I), w = random(D * G * I), r = random(D * G * H);
  const std::vector<float> b = c.bias ? random(D * 2 * G) : std::vector<float>{};
  const std::vector<int64_t> lens = c.lens ? std::vector<int64_t>{6, 3, 0, 5} : std::vector<int64_t>{};
  const std::vector<float> h0 = c.initial ? random(D * B * H) : std::vector<float>{};
  const std::vector<float> c0 = c.initial && c.op == "LSTM" ? random(D * B * H) : std::vector<float>{};
  const std::vector<float> p = c.peepholes ? random(D * 3 * H) : std::vector<float>{};
  const Reference want = Expected(c, T, B, I, H, x, w, r, b, lens, h0, c0, p);

  std::vector<ir::Attribute> attrs = {Int("hidden_size", H), Str("direction", c.direction.c_str()),
                                      Int("layout", c.layout)};
  if (c.op == "GRU") attrs.push_back(Int("linear_before_reset", c.linear_before_reset));
  if (!c.activations.empty()) attrs.push_back(ir::Attribute::Strings("activations", c.activations));
  const Dims xdims = c.layout == 0 ? Dims{T, B, I} : Dims{B, T, I};
  const Dims state = c.layout == 0 ? Dims{D, B, H} : Dims{B, D, H};
  const int num_outputs = c.op == "LSTM" ? 3 : 2;
  for (bool constant : {true, false}) {
    for (bool accelerate : {true, false}) {
      std::vector<Input> inputs = {{F32(xdims, x)}, {F32({D, G, I}, w), constant}, {F32({D, G, H}, r), constant},
                                   {c.bias ? F32({D, 2 * G}, b) : Absent(), constant},
                                   {c.lens ? I64({B}, lens) : Absent()}, {c.initial ? F32(state, h0) : Absent()}};
      if (c.op == "LSTM") {
        inputs.push_back({c.initial ? F32(state, c0) : Absent()});
        inputs.push_back({c.peepholes ? F32({D, 3 * H}, p) : Absent(), constant});
      }
      auto out = RunOp(c.op, attrs, inputs, num_outputs, accelerate);
      ASSERT_TRUE(out.ok()) << out.status();
      SCOPED_TRACE(absl::StrCat(constant ? "constant" : "input", " weights, ", accelerate ? "XNNPACK" : "portable"));
      const std::vector<float> y = Values<float>((*out)[0].tensor), yh = Values<float>((*out)[1].tensor);
      ASSERT_EQ(y.size(), want.y.size());
      for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], want.y[i], 2e-5) << "Y at " << i;
      for (size_t i = 0; i < yh.size(); ++i) ASSERT_NEAR(yh[i], want.yh[i], 2e-5) << "Y_h at " << i;
      if (c.op == "LSTM") {
        const std::vector<float> yc = Values<float>((*out)[2].tensor);
        for (size_t i = 0; i < yc.size(); ++i) ASSERT_NEAR(yc[i], want.yc[i], 2e-5) << "Y_c at " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cells, RecurrentCase,
    ::testing::Values(
        Case{"LstmBidirectionalPeepholesLengths", "LSTM", "bidirectional", 0, 0, true, true, true, true},
        Case{"LstmForwardLayout1NoBias", "LSTM", "forward", 1, 0, false, false, false, false},
        Case{"LstmReverseLayout1Lengths", "LSTM", "reverse", 1, 0, true, true, true, false,
             {"Sigmoid", "Relu", "Tanh"}},
        Case{"GruResetBeforeReverseLayout1Lengths", "GRU", "reverse", 1, 0, true, true, true},
        Case{"GruResetAfterBidirectional", "GRU", "bidirectional", 0, 1, true, false, true},
        Case{"GruResetBeforeBidirectionalLengths", "GRU", "bidirectional", 0, 0, true, true, false},
        Case{"RnnBidirectionalMixedActivations", "RNN", "bidirectional", 0, 0, true, true, true, false,
             {"Relu", "Sigmoid"}},
        Case{"RnnForwardNoBias", "RNN", "forward", 1, 0, false, false, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(Recurrent, Errors) {
  auto clip = RunOp("LSTM", {Int("hidden_size", 1), ir::Attribute::Float("clip", 1.0f)},
                    {{F32({1, 1, 1}, {1})}, {F32({1, 4, 1}, {1, 1, 1, 1})}, {F32({1, 4, 1}, {1, 1, 1, 1})}});
  EXPECT_TRUE(absl::StrContains(clip.status().message(), "clip")) << clip.status();
  auto shape = RunOp("GRU", {Int("hidden_size", 2)},
                     {{F32({1, 1, 1}, {1})}, {F32({1, 3, 1}, {1, 1, 1})}, {F32({1, 6, 2}, std::vector<float>(12, 0))}});
  EXPECT_TRUE(absl::StrContains(shape.status().message(), "W is [1, 3, 1]")) << shape.status();
  // Constant weights are checked when the kernel is created, X's input size when it runs.
  auto packed = RunOp("GRU", {Int("hidden_size", 1)},
                      {{F32({1, 1, 2}, {1, 1})}, {F32({1, 3, 1}, {1, 1, 1}), true}, {F32({1, 3, 1}, {1, 1, 1}), true}});
  EXPECT_TRUE(absl::StrContains(packed.status().message(), "W is [1, 3, 1]; expected [1, 3, 2]")) << packed.status();
  auto packed_r = RunOp("GRU", {Int("hidden_size", 1)},
                        {{F32({1, 1, 1}, {1})}, {F32({1, 3, 1}, {1, 1, 1}), true}, {F32({1, 3, 2}, {1, 1, 1, 1, 1, 1}), true}});
  EXPECT_TRUE(absl::StrContains(packed_r.status().message(), "R is [1, 3, 2]")) << packed_r.status();
  auto act = RunOp("RNN", {Int("hidden_size", 1), ir::Attribute::Strings("activations", {"Elu"})},
                   {{F32({1, 1, 1}, {1})}, {F32({1, 1, 1}, {1})}, {F32({1, 1, 1}, {1})}});
  EXPECT_TRUE(absl::StrContains(act.status().message(), "'Elu'")) << act.status();
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
