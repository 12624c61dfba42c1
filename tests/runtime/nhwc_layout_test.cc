// The accelerated plan's NHWC rewrite (plan/nhwc_layout.h): convolutions with
// their Clip/Relu fused, residual Adds in NHWC, one Transpose in and one out,
// and the same numbers as the portable (unrewritten) plan.
#include <cstring>
#include <random>

#include "gtest/gtest.h"
#include "runtime/plan/nhwc_layout.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Node ScalarConstant(const std::string& name, float v) {
  ir::Tensor t = ir::Tensor::Owned(DataType::kFloat, {}, std::string(reinterpret_cast<const char*>(&v), 4));
  return {name, "Constant", "", {}, {name}, {ir::Attribute::TensorValue("value", t)}, {}};
}

// Input `x` through the accelerated and the portable plan: the same first output, within 1e-4.
void ExpectPlansAgree(const SessionPair& sessions, const ir::Tensor& x) {
  Tensor input = FromIr(x);
  auto ya = sessions.accelerated->Run({{"x", input}});
  auto yb = sessions.portable->Run({{"x", input}});
  ASSERT_TRUE(ya.ok()) << ya.status();
  ASSERT_TRUE(yb.ok()) << yb.status();
  EXPECT_EQ((*ya)[0].tensor.dims(), (*yb)[0].tensor.dims());
  auto va = Values<float>((*ya)[0].tensor), vb = Values<float>((*yb)[0].tensor);
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i) ASSERT_NEAR(va[i], vb[i], 1e-4) << i;
}

// x -> Conv -> Clip(0, 6) = a; a + Conv1x1(a) = s; depthwise Conv(s, stride 2) -> Relu = y;
// ReduceMean(y) = m. Outputs y and m.
ir::Model MobileNetLikeModel() {
  std::mt19937 rng(7);
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  ir::Graph& g = model.graph;
  g.inputs.push_back({"x", DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Symbolic("n"), ir::Dim::Static(3),
                                                                 ir::Dim::Static(9), ir::Dim::Static(9)}, {}});
  g.initializers.push_back({"w1", RandomFloats({8, 3, 3, 3}, rng), {}});
  g.initializers.push_back({"b1", RandomFloats({8}, rng), {}});
  g.initializers.push_back({"w2", RandomFloats({8, 8, 1, 1}, rng), {}});
  g.initializers.push_back({"w3", RandomFloats({8, 1, 3, 3}, rng), {}});
  const ir::Attribute pad1 = ir::Attribute::Ints("pads", {1, 1, 1, 1});
  g.nodes = {
      ScalarConstant("lo", 0), ScalarConstant("hi", 6),
      {"conv1", "Conv", "", {"x", "w1", "b1"}, {"c1"}, {pad1}, {}},
      {"clip", "Clip", "", {"c1", "lo", "hi"}, {"a"}, {}, {}},
      {"conv2", "Conv", "", {"a", "w2"}, {"c2"}, {}, {}},
      {"add", "Add", "", {"a", "c2"}, {"s"}, {}, {}},
      {"conv3", "Conv", "", {"s", "w3"}, {"c3"},
       {pad1, ir::Attribute::Int("group", 8), ir::Attribute::Ints("strides", {2, 2})}, {}},
      {"relu", "Relu", "", {"c3"}, {"y"}, {}, {}},
      {"mean", "ReduceMean", "", {"y"}, {"m"}, {ir::Attribute::Int("keepdims", 0)}, {}},
  };
  g.outputs.push_back({"y", DataType::kFloat, std::nullopt, {}});
  g.outputs.push_back({"m", DataType::kFloat, std::nullopt, {}});
  return model;
}

TEST(NhwcLayout, OneTransposeInOneOutActivationsFused) {
  ir::Graph g = ConvolutionsToNhwc(MobileNetLikeModel().graph);
  int transposes = 0, convs = 0, fused = 0;
  for (const ir::Node& node : g.nodes) {
    EXPECT_NE(node.op_type, "Clip");
    EXPECT_NE(node.op_type, "Relu");
    if (node.op_type == "Transpose") ++transposes;
    if (node.op_type == "Conv") {
      EXPECT_EQ(node.domain, kRuntimeDomain);
      ++convs;
      if (node.FindAttribute("output_min") != nullptr) ++fused;
    }
  }
  EXPECT_EQ(transposes, 2);
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(fused, 2);
}

TEST(NhwcLayout, MatchesThePortablePlan) {
  ir::Model model = MobileNetLikeModel();
  std::mt19937 rng(11);
  ir::Tensor x = RandomFloats({2, 3, 9, 9}, rng);
  Tensor input = FromIr(x);
  auto sessions = AcceleratedAndPortable(model);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  Session* a = sessions->accelerated.get();
  Session* b = sessions->portable.get();
  EXPECT_EQ(a->accelerated_nodes(), 6u);  // 3 convolutions, the NHWC Add, the Transpose in and out
  for (int run = 0; run < 2; ++run) {  // a second run reuses the reshaped operators
    auto ya = a->Run({{"x", input}});
    auto yb = b->Run({{"x", input}});
    ASSERT_TRUE(ya.ok()) << ya.status();
    ASSERT_TRUE(yb.ok()) << yb.status();
    for (size_t o = 0; o < 2; ++o) {
      EXPECT_EQ((*ya)[o].tensor.dims(), (*yb)[o].tensor.dims());
      auto va = Values<float>((*ya)[o].tensor), vb = Values<float>((*yb)[o].tensor);
      ASSERT_EQ(va.size(), vb.size());
      for (size_t i = 0; i < va.size(); ++i) ASSERT_NEAR(va[i], vb[i], 1e-4) << o << ":" << i;
    }
  }
  EXPECT_EQ(a->outputs()[0].name, "y");
}

// x -> Conv -> Relu = a; Conv(a) = b; Relu(a + b) = r; Clip(r * b, -0.5, 0.5) = y.
TEST(NhwcLayout, ResidualActivationsTakenByTheirAddAndMul) {
  std::mt19937 rng(5);
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  ir::Graph& g = model.graph;
  g.inputs.push_back({"x", DataType::kFloat, std::nullopt, {}});
  g.initializers.push_back({"w1", RandomFloats({6, 3, 3, 3}, rng), {}});
  g.initializers.push_back({"w2", RandomFloats({6, 6, 1, 1}, rng), {}});
  const ir::Attribute pad1 = ir::Attribute::Ints("pads", {1, 1, 1, 1});
  g.nodes = {
      ScalarConstant("lo", -0.5f), ScalarConstant("hi", 0.5f),
      {"conv1", "Conv", "", {"x", "w1"}, {"c1"}, {pad1}, {}},
      {"relu1", "Relu", "", {"c1"}, {"a"}, {}, {}},
      {"conv2", "Conv", "", {"a", "w2"}, {"b"}, {}, {}},
      {"add", "Add", "", {"a", "b"}, {"s"}, {}, {}},
      {"relu2", "Relu", "", {"s"}, {"r"}, {}, {}},
      {"mul", "Mul", "", {"r", "b"}, {"m"}, {}, {}},
      {"clip", "Clip", "", {"m", "lo", "hi"}, {"y"}, {}, {}},
  };
  g.outputs.push_back({"y", DataType::kFloat, std::nullopt, {}});
  int activations = 0, fused = 0;
  for (const ir::Node& node : ConvolutionsToNhwc(g).nodes) {
    if (node.op_type == "Relu" || node.op_type == "Clip") ++activations;
    if ((node.op_type == "Add" || node.op_type == "Mul") && node.domain == kRuntimeDomain) ++fused;
  }
  EXPECT_EQ(activations, 0);
  EXPECT_EQ(fused, 2);
  auto sessions = AcceleratedAndPortable(model);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  for (Dims dims : {Dims{1, 3, 5, 7}, Dims{2, 3, 16, 20}}) {  // the portable and the XNNPACK Add
    ExpectPlansAgree(*sessions, RandomFloats(dims, rng));
  }
}

// A ConvNeXt block: depthwise Conv = c; Transpose(c) to channels-last, LayerNormalization, back = n;
// n * gamma (a [1, C, 1, 1] layer scale) + c = r; then a [C, 1, 3] constant (one that needs its data
// reordered, not only its dims) added, a rank-1 [W] bias added, and a 2x2 Conv. Every layout change
// but the first and the last is gone.
TEST(NhwcLayout, ChannelConstantsOfElementwiseOpsTransposedOnce) {
  std::mt19937 rng(3);
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  ir::Graph& g = model.graph;
  g.inputs.push_back({"x", DataType::kFloat, std::nullopt, {}});
  g.initializers.push_back({"w1", RandomFloats({4, 1, 3, 3}, rng), {}});
  g.initializers.push_back({"ln_scale", RandomFloats({4}, rng), {}});
  g.initializers.push_back({"gamma", RandomFloats({1, 4, 1, 1}, rng), {}});
  g.initializers.push_back({"k", RandomFloats({4, 1, 3}, rng), {}});
  g.initializers.push_back({"row_bias", RandomFloats({3}, rng), {}});
  g.initializers.push_back({"w2", RandomFloats({5, 4, 2, 2}, rng), {}});
  const ir::Attribute pad1 = ir::Attribute::Ints("pads", {1, 1, 1, 1});
  g.nodes = {
      {"dw", "Conv", "", {"x", "w1"}, {"c"}, {pad1, ir::Attribute::Int("group", 4)}, {}},
      {"to_last", "Transpose", "", {"c"}, {"t"}, {ir::Attribute::Ints("perm", {0, 2, 3, 1})}, {}},
      {"ln", "LayerNormalization", "", {"t", "ln_scale"}, {"l"}, {ir::Attribute::Int("axis", -1)}, {}},
      {"to_first", "Transpose", "", {"l"}, {"n"}, {ir::Attribute::Ints("perm", {0, 3, 1, 2})}, {}},
      {"scale", "Mul", "", {"n", "gamma"}, {"s"}, {}, {}},
      {"residual", "Add", "", {"s", "c"}, {"r"}, {}, {}},
      {"add_k", "Add", "", {"k", "r"}, {"rk"}, {}, {}},
      {"add_row", "Add", "", {"rk", "row_bias"}, {"rb"}, {}, {}},
      {"down", "Conv", "", {"rb", "w2"}, {"y"}, {ir::Attribute::Ints("strides", {2, 2})}, {}},
  };
  g.outputs.push_back({"y", DataType::kFloat, std::nullopt, {}});
  int transposes = 0, nhwc_binary = 0;
  for (const ir::Node& node : ConvolutionsToNhwc(g).nodes) {
    if (node.op_type == "Transpose") ++transposes;
    if (node.op_type != "Add" && node.op_type != "Mul") continue;
    for (const std::string& in : node.inputs) {
      if (in.find("::nhwc") != std::string::npos) {
        ++nhwc_binary;
        break;
      }
    }
  }
  EXPECT_EQ(transposes, 2);  // the input's and the output's
  EXPECT_EQ(nhwc_binary, 4);
  auto sessions = AcceleratedAndPortable(model);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  for (Dims dims : {Dims{1, 4, 6, 3}, Dims{2, 4, 8, 3}}) {
    ExpectPlansAgree(*sessions, RandomFloats(dims, rng));
  }
}

// Inception-style branches: Conv and Conv -> Concat on channels -> MaxPool = p; p and a third Conv
// of p -> Concat along H (axis -2) = y. Both Concats join NHWC values in NHWC.
TEST(NhwcLayout, ConcatOfNhwcValuesStaysInNhwc) {
  std::mt19937 rng(13);
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  ir::Graph& g = model.graph;
  g.inputs.push_back({"x", DataType::kFloat, std::nullopt, {}});
  g.initializers.push_back({"w1", RandomFloats({3, 2, 1, 1}, rng), {}});
  g.initializers.push_back({"w2", RandomFloats({5, 2, 3, 3}, rng), {}});
  g.initializers.push_back({"w3", RandomFloats({8, 8, 1, 1}, rng), {}});
  const ir::Attribute pad1 = ir::Attribute::Ints("pads", {1, 1, 1, 1});
  g.nodes = {
      {"c1", "Conv", "", {"x", "w1"}, {"a"}, {}, {}},
      {"c2", "Conv", "", {"x", "w2"}, {"b"}, {pad1}, {}},
      {"cat", "Concat", "", {"a", "b"}, {"ab"}, {ir::Attribute::Int("axis", 1)}, {}},
      {"pool", "MaxPool", "", {"ab"}, {"p"}, {ir::Attribute::Ints("kernel_shape", {2, 2}),
                                             ir::Attribute::Ints("strides", {2, 2})}, {}},
      {"c3", "Conv", "", {"p", "w3"}, {"q"}, {}, {}},
      {"cat_h", "Concat", "", {"p", "q"}, {"y"}, {ir::Attribute::Int("axis", -2)}, {}},
  };
  g.outputs.push_back({"y", DataType::kFloat, std::nullopt, {}});
  int transposes = 0, nhwc_concats = 0;
  for (const ir::Node& node : ConvolutionsToNhwc(g).nodes) {
    if (node.op_type == "Transpose") ++transposes;
    if (node.op_type == "Concat" && node.inputs[0].find("::nhwc") != std::string::npos) ++nhwc_concats;
  }
  EXPECT_EQ(transposes, 2);
  EXPECT_EQ(nhwc_concats, 2);
  auto sessions = AcceleratedAndPortable(model);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  for (Dims dims : {Dims{1, 2, 6, 4}, Dims{2, 2, 10, 8}}) {
    ExpectPlansAgree(*sessions, RandomFloats(dims, rng));
  }
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
