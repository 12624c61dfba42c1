// Session-level behaviour: Conv -> BatchNormalization folding, constant
// folding of weight transposes, and the input checks.
#include <random>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Tensor IrFloats(Dims dims, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return ir::Tensor::Owned(DataType::kFloat, dims, std::string(reinterpret_cast<const char*>(v.data()), n * 4));
}

// x -> Conv(W) -> BatchNormalization -> Transpose(W2)ᵀ-MatMul chain.
ir::Model ConvBatchNormModel() {
  std::mt19937 rng(3);
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  ir::Graph& g = model.graph;
  g.inputs.push_back({"x", DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Symbolic("n"), ir::Dim::Static(3),
                                                                 ir::Dim::Static(6), ir::Dim::Static(6)}, {}});
  g.initializers.push_back({"w", IrFloats({4, 3, 3, 3}, rng, -1, 1), {}});
  g.initializers.push_back({"gamma", IrFloats({4}, rng, 0.5, 2), {}});
  g.initializers.push_back({"beta", IrFloats({4}, rng, -1, 1), {}});
  g.initializers.push_back({"mean", IrFloats({4}, rng, -1, 1), {}});
  g.initializers.push_back({"var", IrFloats({4}, rng, 0.5, 2), {}});
  g.initializers.push_back({"w2", IrFloats({5, 6}, rng, -1, 1), {}});
  ir::Node conv{"conv", "Conv", "", {"x", "w"}, {"c"}, {ir::Attribute::Ints("pads", {1, 1, 1, 1})}, {}};
  ir::Node bn{"bn", "BatchNormalization", "", {"c", "gamma", "beta", "mean", "var"}, {"b"}, {}, {}};
  ir::Node tr{"tr", "Transpose", "", {"w2"}, {"w2t"}, {}, {}};
  ir::Node mm{"mm", "MatMul", "", {"b", "w2t"}, {"y"}, {}, {}};
  g.nodes = {conv, bn, tr, mm};
  g.outputs.push_back({"y", DataType::kFloat, std::nullopt, {}});
  return model;
}

TEST(Session, FoldedConvBatchNormMatchesTheReference) {
  ir::Model model = ConvBatchNormModel();
  std::mt19937 rng(5);
  ir::Tensor x = IrFloats({2, 3, 6, 6}, rng, -1, 1);
  Tensor input = FromIr(x);
  auto sessions = AcceleratedAndPortable(model);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  Session* a = sessions->accelerated.get();
  Session* b = sessions->portable.get();
  // The folded Conv (in NHWC, with a Transpose in and out) and the MatMul with a folded Transpose.
  EXPECT_EQ(a->accelerated_nodes(), 4u);
  auto ya = a->Run({{"x", input}});
  auto yb = b->Run({{"x", input}});
  ASSERT_TRUE(ya.ok()) << ya.status();
  ASSERT_TRUE(yb.ok()) << yb.status();
  auto va = Values<float>((*ya)[0].tensor), vb = Values<float>((*yb)[0].tensor);
  ASSERT_EQ(va.size(), 2u * 4 * 6 * 5);
  for (size_t i = 0; i < va.size(); ++i) ASSERT_NEAR(va[i], vb[i], 1e-4) << i;
}

TEST(Session, InputChecksNameTheInput) {
  auto session = Session::Create(ConvBatchNormModel(), SessionOptions());
  ASSERT_TRUE(session.ok());
  auto wrong_dim = (*session)->Run({{"x", F32({1, 3, 5, 6}, std::vector<float>(90))}});
  EXPECT_TRUE(absl::StrContains(wrong_dim.status().message(), "input 'x' dim 2 must be 6")) << wrong_dim.status();
  auto missing = (*session)->Run({});
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "missing input 'x'")) << missing.status();
}

// One weight read three ways: a MatMul whose product gets a bias (fused into
// one fully connected step, weights packed), a plain MatMul (packed again) and
// a Mul that reads it at run time, so the session must keep it.
ir::Model SharedWeightModel() {
  std::mt19937 rng(7);
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  ir::Graph& g = model.graph;
  g.inputs.push_back({"x", DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Static(2), ir::Dim::Static(8)}, {}});
  g.inputs.push_back({"s", DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Static(1)}, {}});
  g.initializers.push_back({"w", IrFloats({8, 5}, rng, -1, 1), {}});
  g.initializers.push_back({"b", IrFloats({5}, rng, -1, 1), {}});
  g.nodes = {{"mm1", "MatMul", "", {"x", "w"}, {"p"}, {}, {}},
             {"add", "Add", "", {"p", "b"}, {"y1"}, {}, {}},
             {"mm2", "MatMul", "", {"x", "w"}, {"y2"}, {}, {}},
             {"mul", "Mul", "", {"w", "s"}, {"z"}, {}, {}}};
  for (const char* name : {"y1", "y2", "z"}) g.outputs.push_back({name, DataType::kFloat, std::nullopt, {}});
  return model;
}

TEST(Session, TakingTheModelKeepsWeightsStillReadAtRunTime) {
  std::mt19937 rng(9);
  ir::Tensor x = IrFloats({2, 8}, rng, -1, 1);
  Tensor input = FromIr(x);
  const Tensor scale = F32({1}, {1.5f});
  SessionOptions slow;
  slow.accelerate = false;
  const ir::Model reference_model = SharedWeightModel();
  auto reference = Session::Create(reference_model, slow);
  auto taken = Session::Create(SharedWeightModel(), SessionOptions());
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_TRUE(taken.ok()) << taken.status();
  auto want = (*reference)->Run({{"x", input}, {"s", scale}});
  ASSERT_TRUE(want.ok()) << want.status();
  for (int run = 0; run < 2; ++run) {
    auto got = (*taken)->Run({{"x", input}, {"s", scale}});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), 3u);
    for (size_t o = 0; o < 3; ++o) {
      auto a = Values<float>((*got)[o].tensor), b = Values<float>((*want)[o].tensor);
      ASSERT_EQ(a.size(), b.size()) << o;
      for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5) << o << " " << i;
    }
  }
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
