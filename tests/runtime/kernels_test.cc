// Kernel tests: odd shapes and attribute combinations, checked against
// values worked out by hand (or against the portable kernels for XNNPACK).
#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {


ir::Attribute Int(const char* n, int64_t v) { return ir::Attribute::Int(n, v); }
ir::Attribute Ints(const char* n, std::vector<int64_t> v) { return ir::Attribute::Ints(n, std::move(v)); }
ir::Attribute Str(const char* n, const char* v) { return ir::Attribute::String(n, v); }

std::vector<float> Iota(int64_t n, float start = 0) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

TEST(Binary, BroadcastsBothWays) {
  auto out = RunOp("Add", {}, {{F32({2, 1}, {10, 20})}, {F32({3}, {1, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{11, 12, 13, 21, 22, 23}));
}

TEST(Binary, ZeroSizeDims) {
  auto out = RunOp("Mul", {}, {{F32({0, 3}, {})}, {F32({1, 3}, {1, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{0, 3}));
}

TEST(Binary, IncompatibleShapesAreAnError) {
  auto out = RunOp("Add", {}, {{F32({2}, {1, 2})}, {F32({3}, {1, 2, 3})}});
  EXPECT_TRUE(absl::StrContains(out.status().message(), "do not broadcast")) << out.status().message();
}

TEST(Binary, IntegerDivisionTruncatesAndRefusesZero) {
  auto out = RunOp("Div", {}, {{I64({2}, {-7, 7})}, {I64({1}, {2})}});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<int64_t>((*out)[0].tensor), (std::vector<int64_t>{-3, 3}));
  auto zero = RunOp("Div", {}, {{I64({1}, {1})}, {I64({1}, {0})}});
  EXPECT_TRUE(absl::StrContains(zero.status().message(), "division by zero")) << zero.status().message();
}

// Integer overflow wraps as in ONNX Runtime (and is no undefined behaviour
// here: hostile constants reach these kernels through constant folding).
TEST(Binary, IntegerOverflowWraps) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto add = RunOp("Add", {}, {{I64({2}, {kMax, kMin})}, {I64({2}, {1, -1})}});
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ(Values<int64_t>((*add)[0].tensor), (std::vector<int64_t>{kMin, kMax}));
  auto sub = RunOp("Sub", {}, {{I64({1}, {kMin})}, {I64({1}, {1})}});
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_EQ(Values<int64_t>((*sub)[0].tensor), (std::vector<int64_t>{kMax}));
  auto mul = RunOp("Mul", {}, {{I64({2}, {kMax, kMin})}, {I64({1}, {2})}});
  ASSERT_TRUE(mul.ok()) << mul.status();
  EXPECT_EQ(Values<int64_t>((*mul)[0].tensor), (std::vector<int64_t>{-2, 0}));
  auto div = RunOp("Div", {}, {{I64({1}, {kMin})}, {I64({1}, {-1})}});
  ASSERT_TRUE(div.ok()) << div.status();
  EXPECT_EQ(Values<int64_t>((*div)[0].tensor), (std::vector<int64_t>{kMin}));
}

// Float to integer out of range or NaN gives x86's "integer indefinite" (what
// ONNX Runtime's static_cast yields there), without undefined behaviour.
TEST(Cast, FloatOutOfRangeToIntegerIsIndefinite) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto to64 = RunOp("Cast", {Int("to", 7)}, {{F32({5}, {-inf, inf, nan, 1e30f, -2.5f})}});
  ASSERT_TRUE(to64.ok()) << to64.status();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Values<int64_t>((*to64)[0].tensor), (std::vector<int64_t>{kMin, kMin, kMin, kMin, -2}));
  auto to32 = RunOp("Cast", {Int("to", 6)}, {{F32({3}, {3e9f, -inf, 7.9f})}});
  ASSERT_TRUE(to32.ok()) << to32.status();
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Values<int32_t>((*to32)[0].tensor), (std::vector<int32_t>{kMin32, kMin32, 7}));
  auto to8 = RunOp("Cast", {Int("to", 3)}, {{F32({2}, {300.0f, nan})}});
  ASSERT_TRUE(to8.ok()) << to8.status();
  EXPECT_EQ(Values<int8_t>((*to8)[0].tensor), (std::vector<int8_t>{44, 0}));
}

TEST(Binary, ModFollowsTheDivisorSignUnlessFmod) {
  auto mod = RunOp("Mod", {}, {{I64({2}, {-7, 7})}, {I64({2}, {3, -3})}});
  EXPECT_EQ(Values<int64_t>((*mod)[0].tensor), (std::vector<int64_t>{2, -2}));
  auto fmod = RunOp("Mod", {Int("fmod", 1)}, {{F32({2}, {-7, 7})}, {F32({2}, {3, -3})}});
  EXPECT_EQ(Values<float>((*fmod)[0].tensor), (std::vector<float>{-1, 1}));
}

TEST(Unary, UnsupportedDtypeNamesTheOp) {
  auto out = RunOp("Sqrt", {}, {{I64({1}, {4})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "Sqrt has no kernel for dtype int64")) << out.status().message();
}

TEST(Softmax, NegativeAxis) {
  auto out = RunOp("Softmax", {Int("axis", -1)}, {{F32({2, 2}, {0, 0, 0, std::log(3.0f)})}});
  ASSERT_TRUE(out.ok());
  auto v = Values<float>((*out)[0].tensor);
  EXPECT_NEAR(v[0], 0.5, 1e-6);
  EXPECT_NEAR(v[3], 0.75, 1e-6);
}

TEST(Reduce, NegativeAxesKeepdimsAndEmptyAxes) {
  auto sum = RunOp("ReduceSum", {Int("keepdims", 0)}, {{F32({2, 3}, Iota(6))}, {I64({1}, {-1})}});
  EXPECT_EQ((*sum)[0].tensor.dims(), (Dims{2}));
  EXPECT_EQ(Values<float>((*sum)[0].tensor), (std::vector<float>{3, 12}));
  auto all = RunOp("ReduceMax", {}, {{F32({2, 3}, Iota(6))}});
  EXPECT_EQ((*all)[0].tensor.dims(), (Dims{1, 1}));
  auto noop = RunOp("ReduceSum", {Int("noop_with_empty_axes", 1)}, {{F32({2}, {1, 2})}, {I64({0}, {})}});
  EXPECT_EQ(Values<float>((*noop)[0].tensor), (std::vector<float>{1, 2}));
}

TEST(Shape, SliceWithNegativeStepAndClampedEnds) {
  auto out = RunOp("Slice", {}, {{F32({5}, Iota(5))}, {I64({1}, {-1})}, {I64({1}, {INT64_MIN})}, {I64({1}, {0})},
                                  {I64({1}, {-2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{4, 2, 0}));
}

TEST(Shape, SizeCountsElementsAsAScalar) {
  auto out = RunOp("Size", {}, {{F32({2, 3}, Iota(6))}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{}));
  EXPECT_EQ(Values<int64_t>((*out)[0].tensor), (std::vector<int64_t>{6}));
  auto empty = RunOp("Size", {}, {{F32({0, 4}, {})}});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(Values<int64_t>((*empty)[0].tensor), (std::vector<int64_t>{0}));
}

TEST(Shape, ConcatNegativeAxisAndTranspose) {
  auto cat = RunOp("Concat", {Int("axis", -1)}, {{F32({2, 1}, {1, 2})}, {F32({2, 2}, {3, 4, 5, 6})}});
  EXPECT_EQ(Values<float>((*cat)[0].tensor), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  auto t = RunOp("Transpose", {Ints("perm", {1, 0})}, {{F32({2, 3}, Iota(6))}});
  EXPECT_EQ(Values<float>((*t)[0].tensor), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(Gather, NegativeIndicesAndOutOfRange) {
  auto out = RunOp("Gather", {Int("axis", 0)}, {{F32({3}, {1, 2, 3})}, {I64({2}, {-1, 0})}});
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{3, 1}));
  auto bad = RunOp("Gather", {}, {{F32({3}, {1, 2, 3})}, {I64({1}, {3})}});
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "index 3 is out of range")) << bad.status().message();
}

TEST(Pool, MaxPoolCeilModeDropsWindowsStartingInPadding) {
  // 1x1x5, k=2, s=2: floor -> 2 outputs, ceil -> 3 (last window [4, 5) is partial).
  auto floor_mode = RunOp("MaxPool", {Ints("kernel_shape", {2}), Ints("strides", {2})}, {{F32({1, 1, 5}, Iota(5))}});
  EXPECT_EQ(Values<float>((*floor_mode)[0].tensor), (std::vector<float>{1, 3}));
  auto ceil_mode = RunOp("MaxPool", {Ints("kernel_shape", {2}), Ints("strides", {2}), Int("ceil_mode", 1)},
                         {{F32({1, 1, 5}, Iota(5))}});
  EXPECT_EQ(Values<float>((*ceil_mode)[0].tensor), (std::vector<float>{1, 3, 4}));
}

TEST(Pool, AveragePoolCountIncludePad) {
  std::vector<ir::Attribute> attrs = {Ints("kernel_shape", {3}), Ints("pads", {1, 1})};
  auto excl = RunOp("AveragePool", attrs, {{F32({1, 1, 3}, {3, 6, 9})}});
  EXPECT_EQ(Values<float>((*excl)[0].tensor), (std::vector<float>{4.5, 6, 7.5}));
  attrs.push_back(Int("count_include_pad", 1));
  auto incl = RunOp("AveragePool", attrs, {{F32({1, 1, 3}, {3, 6, 9})}});
  EXPECT_EQ(Values<float>((*incl)[0].tensor), (std::vector<float>{3, 6, 5}));
}

TEST(Conv, SameUpperPaddingDilationAndGroups) {
  // Two groups of one channel each, 1x3 kernel of ones, dilation 2, SAME_UPPER.
  auto out = RunOp("Conv", {Str("auto_pad", "SAME_UPPER"), Ints("dilations", {2}), Int("group", 2)},
                   {{F32({1, 2, 4}, {1, 2, 3, 4, 10, 20, 30, 40})}, {F32({2, 1, 3}, {1, 1, 1, 1, 1, 1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  // Window span 5, total pad 4 -> 2 each side: y[i] = x[i-2] + x[i] + x[i+2].
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{4, 6, 4, 6, 40, 60, 40, 60}));
}

TEST(ConvTranspose, StridesAndOutputPadding) {
  auto out = RunOp("ConvTranspose", {Ints("strides", {2}), Ints("output_padding", {1})},
                   {{F32({1, 1, 2}, {1, 2})}, {F32({1, 1, 2}, {1, 10})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{1, 10, 2, 20, 0}));
}

// XNNPACK against the portable loops on random shapes, weights pre-packed.
TEST(Xnnpack, ConvAndMatMulMatchPortableKernels) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto random = [&](Dims dims) {
    Tensor t = *Tensor::Allocate(DataType::kFloat, dims, nullptr);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
    return t;
  };
  struct Case {
    const char* op;
    std::vector<ir::Attribute> attrs;
    std::vector<Input> inputs;
  };
  std::vector<Case> cases = {
      {"Conv", {Ints("pads", {1, 0, 2, 1}), Ints("strides", {2, 1}), Ints("dilations", {1, 2})},
       {{random({2, 3, 9, 7})}, {random({4, 3, 3, 2}), true}, {random({4}), true}}},
      {"Conv", {Int("group", 4), Ints("pads", {1, 1, 1, 1})}, {{random({1, 4, 5, 5})}, {random({8, 1, 3, 3}), true}}},
      {"Conv", {Ints("pads", {2, 1})}, {{random({1, 3, 10})}, {random({5, 3, 4}), true}}},
      // 3-D: one XNNPACK 2-D convolution per depth tap (kernels/xnn_conv3d.cc), with depth padding,
      // stride and dilation, groups, bias, and a batch.
      {"Conv", {Ints("pads", {1, 0, 1, 2, 1, 0}), Ints("strides", {2, 1, 2}), Ints("dilations", {2, 1, 1})},
       {{random({2, 3, 7, 6, 5})}, {random({4, 3, 3, 2, 3}), true}, {random({4}), true}}},
      {"Conv", {Int("group", 2), Ints("pads", {1, 1, 1, 1, 1, 1})},
       {{random({1, 4, 4, 5, 5})}, {random({6, 2, 3, 3, 3}), true}}},
      {"Conv", {}, {{random({1, 2, 2, 4, 4})}, {random({3, 2, 1, 1, 1}), true}}},
      {"MatMul", {}, {{random({2, 3, 5})}, {random({5, 4}), true}}},
      {"MatMul", {}, {{random({2, 1, 3, 5})}, {random({3, 5, 6})}}},
      {"Gemm", {Int("transB", 1)}, {{random({3, 5})}, {random({4, 5}), true}, {random({4}), true}}},
  };
  for (const Case& c : cases) {
    auto fast = RunOp(c.op, c.attrs, c.inputs, 1, true);
    auto slow = RunOp(c.op, c.attrs, c.inputs, 1, false);
    ASSERT_TRUE(fast.ok()) << c.op << ": " << fast.status();
    ASSERT_TRUE(slow.ok()) << c.op << ": " << slow.status();
    ASSERT_EQ((*fast)[0].tensor.dims(), (*slow)[0].tensor.dims()) << c.op;
    auto a = Values<float>((*fast)[0].tensor), b = Values<float>((*slow)[0].tensor);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4) << c.op << " element " << i;
  }
}

TEST(Session, MissingKernelListsEveryOp) {
  auto out = RunOp("TfIdfVectorizer", {}, {{F32({1}, {1})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "TfIdfVectorizer (first node 'n')")) << out.status().message();
}

TEST(Session, HalfInputsComputeInFloat32) {
  Tensor h = *Tensor::Allocate(DataType::kFloat16, {2}, nullptr);
  h.data<uint16_t>()[0] = 0x3C00;  // 1.0
  h.data<uint16_t>()[1] = 0x4000;  // 2.0
  auto out = RunOp("Mul", {}, {{h}, {h}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dtype(), DataType::kFloat16);
  EXPECT_EQ(Values<uint16_t>((*out)[0].tensor), (std::vector<uint16_t>{0x3C00, 0x4400}));  // 1.0, 4.0
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
