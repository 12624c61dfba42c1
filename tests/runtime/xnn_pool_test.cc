// Pooling in the NHWC plan (kernels/xnn_pool.cc): Conv -> MaxPool / GlobalAveragePool
// stays NHWC (no transpose between them), and every geometry gives the portable
// plan's numbers, both those XNNPACK runs and those it hands to the portable kernel.
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "gtest/gtest.h"
#include "runtime/plan/nhwc_layout.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

// x [N, 3, H, W] -> Conv 1x1 (3 -> 5 channels) -> `pool` -> y.
ir::Model ConvThenPool(const std::string& pool, std::vector<ir::Attribute> attrs) {
  std::mt19937 rng(3);
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  ir::Graph& g = model.graph;
  g.inputs.push_back({"x", DataType::kFloat, std::nullopt, {}});
  g.initializers.push_back({"w", RandomFloats({5, 3, 1, 1}, rng), {}});
  g.nodes = {
      {"conv", "Conv", "", {"x", "w"}, {"c"}, {}, {}},
      {"pool", pool, "", {"c"}, {"y"}, std::move(attrs), {}},
  };
  g.outputs.push_back({"y", DataType::kFloat, std::nullopt, {}});
  return model;
}

// Runs `model` on x [n, 3, h, w] with and without acceleration (twice: the
// second run reuses the operator) and compares; returns the output dims.
Dims ExpectSameAsPortable(const ir::Model& model, int64_t n, int64_t h, int64_t w) {
  std::mt19937 rng(static_cast<unsigned>(h * 131 + w));
  ir::Tensor xs = RandomFloats({n, 3, h, w}, rng);
  Tensor x = FromIr(xs);
  auto sessions = AcceleratedAndPortable(model);
  EXPECT_TRUE(sessions.ok()) << sessions.status();
  if (!sessions.ok()) return {};
  Session* a = sessions->accelerated.get();
  Session* b = sessions->portable.get();
  Dims dims;
  for (int run = 0; run < 2; ++run) {
    auto ya = a->Run({{"x", x}});
    auto yb = b->Run({{"x", x}});
    EXPECT_TRUE(ya.ok()) << ya.status();
    EXPECT_TRUE(yb.ok()) << yb.status();
    if (!ya.ok() || !yb.ok()) return {};
    EXPECT_EQ((*ya)[0].tensor.dims(), (*yb)[0].tensor.dims());
    auto va = Values<float>((*ya)[0].tensor), vb = Values<float>((*yb)[0].tensor);
    EXPECT_EQ(va.size(), vb.size());
    for (size_t i = 0; i < va.size() && i < vb.size(); ++i) {
      if (std::abs(va[i] - vb[i]) > 1e-5f) {
        ADD_FAILURE() << "element " << i << ": " << va[i] << " vs " << vb[i];
        break;
      }
    }
    dims = (*ya)[0].tensor.dims();
  }
  return dims;
}

ir::Attribute Ints(const char* name, std::vector<int64_t> v) { return ir::Attribute::Ints(name, std::move(v)); }

TEST(NhwcPool, MaxPoolStaysNhwc) {
  ir::Graph g = ConvolutionsToNhwc(
      ConvThenPool("MaxPool", {Ints("kernel_shape", {3, 3}), Ints("strides", {2, 2}), Ints("pads", {1, 1, 1, 1})})
          .graph);
  int transposes = 0, pools = 0;
  for (const ir::Node& node : g.nodes) {
    if (node.op_type == "Transpose") ++transposes;
    if (node.op_type == "MaxPool") {
      EXPECT_EQ(node.domain, kRuntimeDomain);
      ++pools;
    }
  }
  EXPECT_EQ(transposes, 2);  // the input's and the output's only
  EXPECT_EQ(pools, 1);
}

TEST(NhwcPool, MaxPoolGeometries) {
  struct Case {
    std::vector<ir::Attribute> attrs;
    int64_t h, w;
    Dims want;
  };
  const std::vector<Case> cases = {
      // ResNet's stem pool.
      {{Ints("kernel_shape", {3, 3}), Ints("strides", {2, 2}), Ints("pads", {1, 1, 1, 1})}, 12, 12, {2, 5, 6, 6}},
      // Odd sizes, asymmetric pads, different strides per dim.
      {{Ints("kernel_shape", {3, 2}), Ints("strides", {2, 1}), Ints("pads", {0, 1, 2, 0})}, 7, 5, {2, 5, 4, 5}},
      // ceil_mode: the last window overhangs the input.
      {{Ints("kernel_shape", {2, 2}), Ints("strides", {2, 2}), ir::Attribute::Int("ceil_mode", 1)}, 7, 9, {2, 5, 4, 5}},
      {{Ints("kernel_shape", {3, 3}), Ints("strides", {2, 2}), Ints("pads", {1, 1, 1, 1}),
        ir::Attribute::Int("ceil_mode", 1)}, 8, 6, {2, 5, 5, 4}},
      // ceil_mode where the window that would start in the end padding is dropped.
      {{Ints("kernel_shape", {2, 2}), Ints("strides", {2, 2}), Ints("pads", {1, 1, 1, 1}),
        ir::Attribute::Int("ceil_mode", 1)}, 5, 5, {2, 5, 3, 3}},
      // Dilation, without and with padding.
      {{Ints("kernel_shape", {3, 3}), Ints("dilations", {2, 2})}, 9, 10, {2, 5, 5, 6}},
      {{Ints("kernel_shape", {3, 3}), Ints("dilations", {2, 3}), Ints("strides", {2, 1}), Ints("pads", {2, 3, 1, 2})},
       11, 10, {2, 5, 5, 9}},
      {{Ints("kernel_shape", {2, 2}), Ints("dilations", {2, 2}), Ints("pads", {1, 1, 1, 1}),
        ir::Attribute::Int("ceil_mode", 1)}, 7, 8, {2, 5, 7, 8}},
      // Dilated in one dim only (XNNPACK then redirects padded taps the dilated way in both).
      {{Ints("kernel_shape", {3, 3}), Ints("dilations", {2, 1}), Ints("pads", {2, 1, 1, 2}), Ints("strides", {1, 2})},
       9, 8, {2, 5, 8, 5}},
      // auto_pad.
      {{Ints("kernel_shape", {3, 3}), Ints("strides", {2, 2}), ir::Attribute::String("auto_pad", "SAME_UPPER")},
       9, 8, {2, 5, 5, 4}},
      {{Ints("kernel_shape", {2, 3}), ir::Attribute::String("auto_pad", "SAME_LOWER")}, 5, 6, {2, 5, 5, 6}},
      // XNNPACK refuses these: the portable kernel runs them.
      {{Ints("kernel_shape", {2, 2}), Ints("strides", {3, 3})}, 8, 8, {2, 5, 3, 3}},   // stride over the window
      {{Ints("kernel_shape", {1, 1}), Ints("strides", {2, 2})}, 7, 7, {2, 5, 4, 4}},   // 1x1 window
      {{Ints("kernel_shape", {2, 2}), Ints("pads", {0, 0, 3, 3})}, 4, 4, {2, 5, 6, 6}},  // all-padding windows
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(ExpectSameAsPortable(ConvThenPool("MaxPool", cases[i].attrs), 2, cases[i].h, cases[i].w), cases[i].want);
  }
}

TEST(NhwcPool, MaxPoolNewInputSize) {
  ir::Model model = ConvThenPool("MaxPool", {Ints("kernel_shape", {3, 3}), Ints("strides", {2, 2}),
                                             Ints("pads", {1, 1, 1, 1}), ir::Attribute::Int("ceil_mode", 1)});
  SessionOptions options;
  auto session = Session::Create(model, options);
  ASSERT_TRUE(session.ok()) << session.status();
  for (auto [n, h, w] : {std::tuple{1, 8, 8}, {3, 9, 6}, {1, 8, 8}}) {
    Tensor x = *Tensor::Allocate(DataType::kFloat, {n, 3, h, w}, nullptr);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>((i * 37) % 11);
    auto y = (*session)->Run({{"x", x}});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ((*y)[0].tensor.dims(), (Dims{n, 5, h / 2 + 1, w / 2 + 1}));
  }
}

TEST(NhwcPool, GlobalAveragePool) {
  EXPECT_EQ(ExpectSameAsPortable(ConvThenPool("GlobalAveragePool", {}), 3, 7, 5), (Dims{3, 5, 1, 1}));
}

// ReduceMean over H and W with kept dims (MobileNetV2's export) is a GlobalAveragePool;
// over other axes, or dropping them, it stays as written.
TEST(NhwcPool, SpatialReduceMean) {
  for (auto [axes, keepdims, nhwc, want] : {std::tuple{std::vector<int64_t>{-1, -2}, 1, true, Dims{2, 5, 1, 1}},
                                            {std::vector<int64_t>{2, 3}, 1, true, Dims{2, 5, 1, 1}},
                                            {std::vector<int64_t>{2, 3}, 0, false, Dims{2, 5}},
                                            {std::vector<int64_t>{1, 2}, 1, false, Dims{2, 1, 1, 6}}}) {
    ir::Model model = ConvThenPool("ReduceMean", {ir::Attribute::Int("keepdims", keepdims)});
    model.graph.nodes[1].inputs.push_back("axes");
    std::string bytes(reinterpret_cast<const char*>(axes.data()), axes.size() * 8);
    model.graph.initializers.push_back({"axes", ir::Tensor::Owned(DataType::kInt64, {2}, bytes), {}});
    bool rewritten = false;
    for (const ir::Node& node : ConvolutionsToNhwc(model.graph).nodes) {
      rewritten = rewritten || (node.op_type == "GlobalAveragePool" && node.domain == kRuntimeDomain);
    }
    EXPECT_EQ(rewritten, nhwc);
    EXPECT_EQ(ExpectSameAsPortable(model, 2, 4, 6), want);
  }
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
