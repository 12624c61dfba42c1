// The int8 plan (plan/qdq_int8.h, kernels/xnn_int8.cc): hand-built QDQ graphs
// run with int8 on and off. Off, the executor computes the QDQ graph as ONNX
// defines it (DQ, float op, Q; the float path ONNX Runtime's CPU provider
// takes for these graphs), the reference here. Int8 must give the same
// quantized integers except where a value lies within float rounding of a
// boundary: at most one step anywhere, and nearly every element equal.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/plan/qdq_int8.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Tensor Bytes(DataType dtype, Dims dims, const void* data, size_t size) {
  return ir::Tensor::Owned(dtype, std::move(dims), std::string(static_cast<const char*>(data), size));
}

// Builds x -> Q -> DQ -> ... graphs with int8 weights and scalar parameters.
class QdqGraph {
 public:
  QdqGraph() { model_.opset_imports.push_back({"", 20}); }
  ir::Graph& g() { return model_.graph; }
  ir::Model model() const { return model_; }

  std::string Input(const std::string& name, Dims dims) {
    std::vector<ir::Dim> shape;
    for (int64_t d : dims) shape.push_back(ir::Dim::Static(d));
    g().inputs.push_back({name, DataType::kFloat, shape, {}});
    return name;
  }
  std::string Float(const std::string& name, const std::vector<float>& v, Dims dims) {
    g().initializers.push_back({name, Bytes(DataType::kFloat, dims, v.data(), v.size() * 4), {}});
    return name;
  }
  std::string ZeroPoint(const std::string& name, int8_t v, DataType dtype = DataType::kInt8) {
    g().initializers.push_back({name, Bytes(dtype, {}, &v, 1), {}});
    return name;
  }
  // Q then DQ of `x` with (scale, zero): the DQ output.
  std::string QuantDequant(const std::string& x, float scale, int8_t zero, DataType dtype = DataType::kInt8) {
    const std::string s = Float(x + "_s", {scale}, {}), z = ZeroPoint(x + "_z", zero, dtype);
    Node("QuantizeLinear", {x, s, z}, x + "_q");
    return Node("DequantizeLinear", {x + "_q", s, z}, x + "_dq");
  }
  // DQ of a random int8 weight (values in [-127, 127]) with one scale per
  // index of `axis` (or one scale when axis < 0) and zero points 0.
  std::string Weight(const std::string& name, Dims dims, int64_t axis) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<int8_t> w(n);
    std::uniform_int_distribution<int> dist(-127, 127);
    for (int8_t& v : w) v = static_cast<int8_t>(dist(rng_));
    g().initializers.push_back({name, Bytes(DataType::kInt8, dims, w.data(), w.size()), {}});
    const int64_t channels = axis < 0 ? 1 : dims[axis];
    std::vector<float> scales(channels);
    std::uniform_real_distribution<float> sd(0.002f, 0.01f);
    for (float& s : scales) s = sd(rng_);
    std::vector<int8_t> zeros(channels, 0);
    const Dims sdims = axis < 0 ? Dims{} : Dims{channels};
    Float(name + "_s", scales, sdims);
    g().initializers.push_back({name + "_z", Bytes(DataType::kInt8, sdims, zeros.data(), zeros.size()), {}});
    std::vector<ir::Attribute> attrs;
    if (axis >= 0) attrs.push_back(ir::Attribute::Int("axis", axis));
    return Node("DequantizeLinear", {name, name + "_s", name + "_z"}, name + "_dq", attrs);
  }
  std::string Node(const std::string& op, std::vector<std::string> inputs, const std::string& out,
                   std::vector<ir::Attribute> attrs = {}) {
    g().nodes.push_back({out + "_node", op, "", std::move(inputs), {out}, std::move(attrs), {}});
    return out;
  }
  void Output(const std::string& name) { g().outputs.push_back({name, DataType::kFloat, std::nullopt, {}}); }
  std::mt19937& rng() { return rng_; }

 private:
  ir::Model model_;
  std::mt19937 rng_{5};
};

Tensor RandomInput(Dims dims, std::mt19937& rng) { return FromIr(RandomFloats(std::move(dims), rng)); }

// Runs `model` with int8 on and off; checks int8 ran `int8_steps` steps and
// every output is within one step `y_scale` of the reference (nearly all
// equal, for quantized outputs; a float output only differs by rounding).
void ExpectMatchesReference(const ir::Model& model, const std::vector<NamedTensor>& inputs, size_t int8_steps,
                            float y_scale, bool quantized_output = true) {
  SessionOptions off;
  off.int8 = false;
  auto with = Session::Create(model, SessionOptions{});
  auto without = Session::Create(model, off);
  ASSERT_TRUE(with.ok()) << with.status();
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_EQ((*with)->int8_steps(), int8_steps);
  EXPECT_EQ((*without)->int8_steps(), 0u);
  for (int run = 0; run < 2; ++run) {  // the second run reuses the reshaped operators
    auto a = (*with)->Run(inputs);
    auto b = (*without)->Run(inputs);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    for (size_t o = 0; o < a->size(); ++o) {
      const std::vector<float> va = Values<float>((*a)[o].tensor), vb = Values<float>((*b)[o].tensor);
      ASSERT_EQ((*a)[o].tensor.dims(), (*b)[o].tensor.dims());
      size_t differ = 0;
      for (size_t i = 0; i < va.size(); ++i) {
        ASSERT_LE(std::fabs(va[i] - vb[i]), y_scale * 1.001f) << "element " << i;
        differ += va[i] != vb[i];
      }
      // A one-step difference at a rounding boundary feeds the next step of a chain, so a few more
      // elements move (7 of 200 for the two-convolution chain in WebAssembly, whose float kernels
      // sum in another order); a systematic error would move most of them.
      if (quantized_output) {
        EXPECT_LE(differ, va.size() / 20 + 1) << differ << " of " << va.size() << " differ by one step";
      }
    }
  }
}

const ir::Attribute kPad1 = ir::Attribute::Ints("pads", {1, 1, 1, 1});

TEST(QdqInt8, ConvPerChannelReluChainStaysNhwc) {
  // Q(x) -> DQ -> Conv(per-channel W, bias) -> Relu -> Q -> DQ -> Conv(per-tensor W, stride 2) -> Q -> DQ.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 8, 9, 9}), 0.02f, 3);
  std::vector<float> bias(8);
  for (float& b : bias) b = std::uniform_real_distribution<float>(-0.5f, 0.5f)(q.rng());
  const std::string c1 = q.Node("Conv", {x, q.Weight("w1", {8, 8, 3, 3}, 0), q.Float("b1", bias, {8})}, "c1", {kPad1});
  const std::string a = q.QuantDequant(q.Node("Relu", {c1}, "r1"), 0.01f, -128);
  const std::string c2 = q.Node("Conv", {a, q.Weight("w2", {4, 8, 3, 3}, -1)}, "c2",
                                {kPad1, ir::Attribute::Ints("strides", {2, 2})});
  q.Output(q.QuantDequant(c2, 0.015f, 0));
  ir::Graph planned = QdqToInt8(q.g());
  int transposes = 0;
  for (const ir::Node& n : planned.nodes) transposes += n.op_type == "Transpose";
  EXPECT_EQ(transposes, 2);  // into NHWC once, back once for the final DequantizeLinear
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 8, 9, 9}, q.rng())}}, 2, 0.015f);
}

TEST(QdqInt8, DepthwiseConvClipAndMaxPool) {
  // Clip(0, 6) becomes the int8 output range; the MaxPool runs on int8 values (max commutes with Q).
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {1, 6, 10, 10}), 0.03f, -5);
  const std::string c = q.Node("Conv", {x, q.Weight("w", {6, 1, 3, 3}, 0)}, "c",
                               {kPad1, ir::Attribute::Int("group", 6)});
  const std::string clip = q.Node("Clip", {c, q.Float("lo", {0.f}, {}), q.Float("hi", {0.5f}, {})}, "clip");
  const std::string pool = q.Node("MaxPool", {clip}, "pool",
                                  {ir::Attribute::Ints("kernel_shape", {3, 3}), ir::Attribute::Ints("strides", {2, 2}),
                                   kPad1});
  q.Output(q.QuantDequant(pool, 0.004f, -100));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({1, 6, 10, 10}, q.rng())}}, 2, 0.004f);
}

TEST(QdqInt8, MatMulTransposedWeightsWithBiasAdd) {
  // The exporter's Linear: MatMul(DQ(x), Transpose(DQ(W [N, K]))) + b, then Q.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 5, 16}), 0.02f, 1);
  const std::string wt = q.Node("Transpose", {q.Weight("w", {12, 16}, 0)}, "wt", {ir::Attribute::Ints("perm", {1, 0})});
  std::vector<float> bias(12);
  for (float& b : bias) b = std::uniform_real_distribution<float>(-0.3f, 0.3f)(q.rng());
  const std::string y = q.Node("Add", {q.Node("MatMul", {x, wt}, "mm"), q.Float("b", bias, {12})}, "y");
  q.Output(q.QuantDequant(y, 0.01f, -2));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 5, 16}, q.rng())}}, 1, 0.01f);
}

TEST(QdqInt8, GemmAndMatMulWithKnWeights) {
  // Gemm(transB = 1, bias C) -> Relu -> Q; then MatMul with W [K, N] scaled per column (axis 1) -> Q.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {4, 20}), 0.02f, 0);
  const std::string g = q.Node("Gemm", {x, q.Weight("w1", {10, 20}, 0), q.Float("c", std::vector<float>(10, 0.1f), {10})},
                               "g", {ir::Attribute::Int("transB", 1)});
  const std::string h = q.QuantDequant(q.Node("Relu", {g}, "h"), 0.01f, -128);
  q.Output(q.QuantDequant(q.Node("MatMul", {h, q.Weight("w2", {10, 7}, 1)}, "m"), 0.005f, 4));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({4, 20}, q.rng())}}, 2, 0.01f);
}

TEST(QdqInt8, UnquantizedOutputsRunInt8WithFloatOutput) {
  // A Conv (padded: the padding is the input's zero point) and a MatMul + bias whose outputs are not
  // quantized: int8 products, float32 results (qd8_f32_qc8w), equal to the float path up to float rounding.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 8, 6, 6}), 0.02f, 7);
  q.Output(q.Node("Conv", {x, q.Weight("w", {4, 8, 3, 3}, 0), q.Float("b", {0.1f, -0.2f, 0.3f, 0.f}, {4})}, "c",
                  {kPad1}));
  const std::string v = q.QuantDequant(q.Input("v", {3, 8}), 0.02f, -3);
  q.Output(q.Node("Add", {q.Node("MatMul", {v, q.Weight("w2", {8, 4}, 1)}, "m"),
                          q.Float("b2", {0.5f, 0.f, -1.f, 2.f}, {4})}, "mb"));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 8, 6, 6}, q.rng())}, {"v", RandomInput({3, 8}, q.rng())}},
                         2, 1e-5f, false);
}

TEST(QdqInt8, FewInputChannelsRunAsIm2colUint8RunsShifted) {
  // A 3-channel convolution (an RGB stem) runs as im2col and an int8 product; uint8 values run in the
  // int8 plan as x - 128 with zero point z - 128, shifted back for the DQ.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {1, 3, 8, 8}), 0.02f, 0);
  q.Output(q.QuantDequant(q.Node("Conv", {x, q.Weight("w", {8, 3, 3, 3}, 0)}, "c", {kPad1}), 0.05f, 0));
  const std::string u = q.QuantDequant(q.Input("u", {3, 8}), 0.02f, 100, DataType::kUint8);
  q.Output(q.QuantDequant(q.Node("MatMul", {u, q.Weight("w2", {8, 4}, 1)}, "m"), 0.01f, 0, DataType::kUint8));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({1, 3, 8, 8}, q.rng())}, {"u", RandomInput({3, 8}, q.rng())}},
                         2, 0.05f);
}

TEST(QdqInt8, Im2colConvolutionWithStridesDilationsUnevenPadsAndBias) {
  // Windows that leave the image on every side, a nonzero input zero point for the padding, two
  // images; then a 1-channel convolution with a float result (no Q after it).
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 3, 11, 9}), 0.02f, 7);
  std::vector<float> bias(6);
  for (float& b : bias) b = std::uniform_real_distribution<float>(-0.5f, 0.5f)(q.rng());
  const std::vector<ir::Attribute> window = {ir::Attribute::Ints("strides", {2, 1}),
                                             ir::Attribute::Ints("dilations", {1, 2}),
                                             ir::Attribute::Ints("pads", {1, 2, 0, 3})};
  q.Output(q.QuantDequant(q.Node("Conv", {x, q.Weight("w", {6, 3, 3, 5}, 0), q.Float("b", bias, {6})}, "c", window),
                          0.04f, -5));
  const std::string g = q.QuantDequant(q.Input("g", {1, 1, 7, 7}), 0.01f, -20);
  q.Output(q.Node("Conv", {g, q.Weight("w1", {4, 1, 3, 3}, -1)}, "c1", {kPad1}));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 3, 11, 9}, q.rng())}, {"g", RandomInput({1, 1, 7, 7}, q.rng())}},
                         2, 0.04f, false);
}

TEST(QdqInt8, Im2colConvolutionGathersLargeInputsInBlocks) {
  // 2 x 160 x 160 output pixels of 7 x 7 x 7 taps: 17.6 MB of rows, gathered and multiplied 8 MiB at a
  // time (two blocks and a shorter last one).
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 7, 160, 160}), 0.02f, -9);
  q.Output(q.QuantDequant(q.Node("Conv", {x, q.Weight("w", {4, 7, 7, 7}, 0)}, "c",
                                 {ir::Attribute::Ints("pads", {3, 3, 3, 3})}),
                          0.2f, 3));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 7, 160, 160}, q.rng())}}, 1, 0.2f);
}

TEST(QdqInt8, ResidualAddBetweenConvolutionsStaysNhwc) {
  // conv -> Q -> DQ (a); conv(a) -> Q -> DQ (b); Relu(a + b) -> Q: the Add reads both NHWC values.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 8, 7, 7}), 0.02f, 1);
  const std::string a = q.QuantDequant(q.Node("Conv", {x, q.Weight("w1", {8, 8, 3, 3}, 0)}, "c1", {kPad1}), 0.03f, -4);
  const std::string b = q.QuantDequant(q.Node("Conv", {a, q.Weight("w2", {8, 8, 1, 1}, 0)}, "c2"), 0.02f, 6);
  const std::string sum = q.Node("Relu", {q.Node("Add", {a, b}, "sum")}, "relu");
  q.Output(q.QuantDequant(sum, 0.04f, -128));
  ir::Graph planned = QdqToInt8(q.g());
  int transposes = 0, adds = 0;
  for (const ir::Node& n : planned.nodes) {
    transposes += n.op_type == "Transpose";
    adds += n.op_type == "QAdd";
  }
  EXPECT_EQ(adds, 1);
  EXPECT_EQ(transposes, 2);  // into NHWC once, back once for the final DequantizeLinear
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 8, 7, 7}, q.rng())}}, 3, 0.04f);
}

TEST(QdqInt8, SqueezeExciteMeanActivationAndBroadcastMul) {
  // x * HardSigmoid(mean over H, W of x), each quantized: QMean, QUnary and a broadcasting QMul in NCHW.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 6, 5, 5}), 0.02f, -3);
  const std::string m = q.QuantDequant(q.Node("GlobalAveragePool", {x}, "gap"), 0.01f, 2);
  const std::string s = q.QuantDequant(q.Node("HardSigmoid", {m}, "hs"), 1.0f / 255, -128);
  q.Output(q.QuantDequant(q.Node("Mul", {x, s}, "mul"), 0.015f, 0));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 6, 5, 5}, q.rng())}}, 3, 0.015f);
}

TEST(QdqInt8, ReduceMeanAndActivationsWithUint8AndNaN) {
  // ReduceMean over the last axis (keepdims 0); Log of values <= 0 gives -inf and NaN, quantized to uint8
  // as QuantizeLinear does (NaN -> 0); Tanh from uint8 to int8.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {3, 4, 10}), 0.02f, 10, DataType::kUint8);
  q.Output(q.QuantDequant(q.Node("ReduceMean", {x}, "mean", {ir::Attribute::Ints("axes", {-1}),
                                                              ir::Attribute::Int("keepdims", 0)}),
                          0.01f, 120, DataType::kUint8));
  q.Output(q.QuantDequant(q.Node("Log", {x}, "log"), 0.05f, 200, DataType::kUint8));
  q.Output(q.QuantDequant(q.Node("Tanh", {x}, "tanh"), 1.0f / 128, 0));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({3, 4, 10}, q.rng())}}, 3, 0.05f);
}

TEST(QdqInt8, AddMulAndActivationsEqualTheQdqGraphExactly) {
  // Scales whose sums land on rounding ties (0.75 a + 0.5 b): the float32 arithmetic rounds them to even
  // as QuantizeLinear does. A broadcasting Mul by a quantized constant; Sigmoid, Log (NaN for x < 0) and
  // Tanh from their tables. Every integer equal (tolerance 0).
  QdqGraph q;
  const std::string a = q.QuantDequant(q.Input("a", {2, 8, 7, 7}), 0.03f, -4);
  const std::string b = q.QuantDequant(q.Input("b", {2, 8, 7, 7}), 0.02f, 6);
  q.Output(q.QuantDequant(q.Node("Relu", {q.Node("Add", {a, b}, "sum")}, "relu"), 0.04f, -128));
  q.Output(q.QuantDequant(q.Node("Mul", {a, q.Weight("k", {8, 1, 1}, -1)}, "mul"), 0.001f, 3));
  const std::string u = q.QuantDequant(q.Input("u", {5, 9}), 0.03f, 90, DataType::kUint8);
  q.Output(q.QuantDequant(q.Node("Sigmoid", {u}, "sig"), 1.0f / 256, -128));
  q.Output(q.QuantDequant(q.Node("Log", {u}, "log"), 0.05f, 200, DataType::kUint8));
  q.Output(q.QuantDequant(q.Node("Tanh", {b}, "tanh"), 1.0f / 128, 0));
  ExpectMatchesReference(q.model(), {{"a", RandomInput({2, 8, 7, 7}, q.rng())}, {"b", RandomInput({2, 8, 7, 7}, q.rng())},
                                     {"u", RandomInput({5, 9}, q.rng())}},
                         5, 0.0f);
}

TEST(QdqInt8, ConcatRequantizesInputsWithOtherParameters) {
  // The first input shares the output's parameters (a copy), the second is requantized, the third is a
  // constant; along axis 1 of NCHW values and axis -1 of 2-D ones.
  QdqGraph q;
  const std::string a = q.QuantDequant(q.Input("a", {2, 3, 4, 4}), 0.02f, 5);
  const std::string b = q.QuantDequant(q.Input("b", {2, 2, 4, 4}), 0.05f, -7);
  q.Output(q.QuantDequant(q.Node("Concat", {a, b}, "cat", {ir::Attribute::Int("axis", 1)}), 0.02f, 5));
  const std::string u = q.QuantDequant(q.Input("u", {3, 4}), 0.02f, 0);
  const std::string c = q.Weight("k", {3, 2}, -1);
  q.Output(q.QuantDequant(q.Node("Concat", {u, c}, "cat2", {ir::Attribute::Int("axis", -1)}), 0.03f, 0));
  ExpectMatchesReference(q.model(), {{"a", RandomInput({2, 3, 4, 4}, q.rng())}, {"b", RandomInput({2, 2, 4, 4}, q.rng())},
                                     {"u", RandomInput({3, 4}, q.rng())}},
                         2, 0.0f);
}

// DQ(a [1, 3, 6, 6]) and DQ(b [1, 5, 6, 6]) concatenated along channels, then two 3x3 MaxPools in a row.
struct ConcatPools {
  std::string a, cat, m1, m2;
  std::vector<NamedTensor> inputs;
};
ConcatPools BuildConcatPools(QdqGraph& q) {
  ConcatPools p;
  p.a = q.QuantDequant(q.Input("a", {1, 3, 6, 6}), 0.02f, 5);
  const std::string b = q.QuantDequant(q.Input("b", {1, 5, 6, 6}), 0.03f, -2);
  p.cat = q.Node("Concat", {p.a, b}, "cat", {ir::Attribute::Int("axis", 1)});
  const ir::Attribute kernel = ir::Attribute::Ints("kernel_shape", {3, 3});
  p.m1 = q.Node("MaxPool", {p.cat}, "m1", {kernel, kPad1});
  p.m2 = q.Node("MaxPool", {p.m1}, "m2", {kernel, kPad1});
  p.inputs = {{"a", RandomInput({1, 3, 6, 6}, q.rng())}, {"b", RandomInput({1, 5, 6, 6}, q.rng())}};
  return p;
}

TEST(QdqInt8, SharedChainConcatFeedsQuantizedMaxPools) {
  // YOLO's SPPF and Inception's pool branches: a Concat read by two Qs of the same parameters and by a
  // MaxPool whose result is read by a Q and another MaxPool. Every Q is absorbed (QConcat, two
  // QMaxPoolNhwc, and a QUnary reading the second Q's value); every integer equal.
  QdqGraph q;
  const ConcatPools g = BuildConcatPools(q);
  q.Output(q.QuantDequant(g.cat, 0.025f, 1));
  q.Output(q.QuantDequant(q.Node("Identity", {g.cat}, "cat_view"), 0.025f, 1));  // not a Q reader
  q.Output(q.QuantDequant(g.m1, 0.025f, 1));
  q.Output(q.QuantDequant(g.m2, 0.025f, 1));
  // The Identity keeps the float Concat; each Q's int8 value is still computed from the int8 inputs
  // (two requantizing tables and a QConcat, cached for the pools' two QMaxPoolNhwc).
  ExpectMatchesReference(q.model(), g.inputs, 5, 0.0f);
  // Without the Identity the Concat's readers are all Qs and MaxPools: one shared chain.
  QdqGraph p;
  const ConcatPools h = BuildConcatPools(p);
  p.Output(p.QuantDequant(h.cat, 0.025f, 1));
  const std::string s = p.Float("s2", {0.025f}, {}), z = p.ZeroPoint("z2", 1);
  p.Node("QuantizeLinear", {h.cat, s, z}, "cat_q2");
  p.Output(p.QuantDequant(p.Node("Relu", {p.Node("DequantizeLinear", {"cat_q2", s, z}, "cat_dq2")}, "r"), 0.01f, -128));
  p.Output(p.QuantDequant(h.m1, 0.025f, 1));
  p.Output(p.QuantDequant(h.m2, 0.025f, 1));
  ExpectMatchesReference(p.model(), h.inputs, 4, 0.0f);
}

TEST(QdqInt8, QuantizeOfConcatAndMaxPoolsWithOtherParameters) {
  // GoogLeNet as the XNNPACK quantizer leaves it: a Concat read by a Q and by a MaxPool, each Q with
  // parameters of its own, a MaxPool of that MaxPool, and DQ -> MaxPool -> Q with new parameters. Each
  // Q's int8 value is computed from the int8 inputs (requantizing tables, QConcat, int8 max pooling);
  // every integer equal.
  QdqGraph q;
  const ConcatPools g = BuildConcatPools(q);
  const std::string ma = q.Node("MaxPool", {g.a}, "ma",
                                {ir::Attribute::Ints("kernel_shape", {3, 3}), ir::Attribute::Ints("strides", {2, 2})});
  q.Output(q.QuantDequant(g.cat, 0.025f, 1));
  q.Output(q.QuantDequant(g.m1, 0.027f, -3));
  q.Output(q.QuantDequant(g.m2, 0.031f, 0, DataType::kUint8));
  q.Output(q.QuantDequant(ma, 0.015f, 2));
  ExpectMatchesReference(q.model(), g.inputs, 14, 0.0f);
}

TEST(QdqInt8, DynamicQuantizationRunsInt8WithRunTimeParameters) {
  // PT2E dynamic quantization as pt2onnx writes it: the parameters computed at run time (graph inputs
  // here), made scalars by a Reshape to [] (the zero point then Cast to uint8), Q -> DQ -> MatMul with
  // per-channel int8 weights -> float. The int8 step reads the parameters at each run.
  QdqGraph q;
  const std::string x = q.Input("x", {3, 8});
  q.Input("scale_in", {1});
  q.Input("zero_in", {1});
  q.g().initializers.push_back({"scalar_shape", Bytes(DataType::kInt64, {0}, nullptr, 0), {}});
  const std::string s = q.Node("Reshape", {"scale_in", "scalar_shape"}, "s");
  const std::string z = q.Node("Cast", {q.Node("Reshape", {"zero_in", "scalar_shape"}, "z_f")}, "z",
                               {ir::Attribute::Int("to", static_cast<int64_t>(DataType::kUint8))});
  const std::string dq = q.Node("DequantizeLinear", {q.Node("QuantizeLinear", {x, s, z}, "xq"), s, z}, "xdq");
  q.Output(q.Node("MatMul", {dq, q.Weight("w", {8, 5}, 1)}, "y"));
  for (float zero : {128.0f, 3.0f}) {
    Tensor scale = FromIr(RandomFloats({1}, q.rng())), zp = FromIr(RandomFloats({1}, q.rng()));
    scale.data<float>()[0] = 0.013f;
    zp.data<float>()[0] = zero;
    ExpectMatchesReference(q.model(), {{"x", RandomInput({3, 8}, q.rng())}, {"scale_in", scale}, {"zero_in", zp}}, 1,
                           1e-5f, false);
  }
}

TEST(QdqInt8, RequantizationScaleXnnpackRefusesStaysFloat) {
  // x_scale * w_scale / y_scale >= 256 is outside XNNPACK's qs8 range: the float path runs it.
  QdqGraph q;
  const std::string x = q.QuantDequant(q.Input("x", {2, 8}), 100.f, 0);
  q.Output(q.QuantDequant(q.Node("MatMul", {x, q.Weight("w", {8, 3}, -1)}, "m"), 0.0001f, 0));
  ExpectMatchesReference(q.model(), {{"x", RandomInput({2, 8}, q.rng())}}, 0, 0.0f);
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
