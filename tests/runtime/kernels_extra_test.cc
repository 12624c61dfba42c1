// Kernels of the selection, padding, resampling, sampling, Fourier, random,
// bitwise and trigonometric families, and the opset 24/26 operators pt2onnx
// emits (Swish, CumProd, BitCast), through one-node sessions.
#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Attribute Int(const char* n, int64_t v) { return ir::Attribute::Int(n, v); }
ir::Attribute Str(const char* n, const char* v) { return ir::Attribute::String(n, v); }
ir::Attribute Float(const char* n, float v) { return ir::Attribute::Float(n, v); }
Tensor Absent() { return Tensor(); }

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// MaxPool without Indices pools one dim at a time (max is separable); with
// Indices it visits each window whole. Both give the same values: padding,
// strides, dilations, ceil_mode, 1-D to 3-D, NaN winning.
TEST(MaxPool, SeparablePassesEqualTheWholeWindow) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto ints = [](const char* n, std::vector<int64_t> v) { return ir::Attribute::Ints(n, std::move(v)); };
  struct Case {
    Dims dims;
    std::vector<ir::Attribute> attrs;
  };
  const std::vector<Case> cases = {
      {{2, 3, 7, 6, 5}, {ints("kernel_shape", {3, 2, 3}), ints("strides", {2, 1, 2}), ints("pads", {1, 0, 1, 1, 1, 0})}},
      {{1, 2, 9, 8}, {ints("kernel_shape", {3, 3}), ints("dilations", {2, 1}), ints("pads", {2, 1, 2, 1})}},
      {{1, 2, 8, 8}, {ints("kernel_shape", {2, 3}), ints("strides", {3, 3}), Int("ceil_mode", 1)}},
      {{3, 2, 11}, {ints("kernel_shape", {4}), ints("strides", {2}), ints("pads", {1, 2})}},
  };
  for (const Case& c : cases) {
    Tensor x = *Tensor::Allocate(DataType::kFloat, c.dims, nullptr);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = i % 17 == 5 ? NAN : dist(rng);
    auto separable = RunOp("MaxPool", c.attrs, {{x}}, 1, false);
    auto whole = RunOp("MaxPool", c.attrs, {{x}}, 2, false);
    ASSERT_TRUE(separable.ok()) << separable.status();
    ASSERT_TRUE(whole.ok()) << whole.status();
    ASSERT_EQ((*separable)[0].tensor.dims(), (*whole)[0].tensor.dims());
    auto a = Values<float>((*separable)[0].tensor), b = Values<float>((*whole)[0].tensor);
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(b[i])) {
        EXPECT_TRUE(std::isnan(a[i])) << "at " << i;
      } else {
        EXPECT_EQ(a[i], b[i]) << "at " << i;
      }
    }
  }
}

TEST(TopK, StableTiesAndNanAboveNumbers) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = RunOp("TopK", {Int("axis", 0), Int("largest", 1)}, {{F32({5}, {1, 3, nan, 3, 0})}, {I64({1}, {3})}}, 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[1].tensor), (std::vector<int64_t>{2, 1, 3}));
  auto low = RunOp("TopK", {Int("largest", 0)}, {{F32({2, 3}, {2, 1, 1, 0, 5, 0})}, {I64({1}, {2})}}, 2);
  ASSERT_TRUE(low.ok()) << low.status();
  EXPECT_EQ(Values<float>((*low)[0].tensor), (std::vector<float>{1, 1, 0, 0}));
  EXPECT_EQ(Values<int64_t>((*low)[1].tensor), (std::vector<int64_t>{1, 2, 0, 2}));
  auto bad = RunOp("TopK", {}, {{F32({2}, {1, 2})}, {I64({1}, {3})}}, 2);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "k must be one value in [0, 2]")) << bad.status();
}

TEST(Unique, FlatAndAlongAnAxis) {
  auto out = RunOp("Unique", {Int("sorted", 1)}, {{I64({5}, {2, 1, 2, 3, 1})}}, 4);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0].tensor), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Values<int64_t>((*out)[1].tensor), (std::vector<int64_t>{1, 0, 3}));
  EXPECT_EQ(Values<int64_t>((*out)[2].tensor), (std::vector<int64_t>{1, 0, 1, 2, 0}));
  EXPECT_EQ(Values<int64_t>((*out)[3].tensor), (std::vector<int64_t>{2, 2, 1}));
  auto rows = RunOp("Unique", {Int("sorted", 1), Int("axis", 0)}, {{F32({3, 2}, {1, 2, 0, 5, 1, 2})}}, 4);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].tensor.dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>((*rows)[0].tensor), (std::vector<float>{0, 5, 1, 2}));
  EXPECT_EQ(Values<int64_t>((*rows)[2].tensor), (std::vector<int64_t>{1, 0, 1}));
}

TEST(NonZeroAndCompress, DataDependentSizes) {
  auto nz = RunOp("NonZero", {}, {{F32({2, 2}, {0, 1, 2, 0})}});
  ASSERT_TRUE(nz.ok()) << nz.status();
  EXPECT_EQ((*nz)[0].tensor.dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<int64_t>((*nz)[0].tensor), (std::vector<int64_t>{0, 1, 1, 0}));
  Tensor mask = Make<uint8_t>(DataType::kBool, {2}, {0, 1});
  auto c = RunOp("Compress", {Int("axis", 1)}, {{F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {mask}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)[0].tensor.dims(), (Dims{2, 1}));
  EXPECT_EQ(Values<float>((*c)[0].tensor), (std::vector<float>{2, 5}));
}

TEST(Pad, ModesAxesAndCropping) {
  const Tensor x = F32({1, 3}, {1, 2, 3});
  auto run = [&](const char* mode, std::vector<int64_t> pads) {
    auto out = RunOp("Pad", {Str("mode", mode)}, {{x}, {I64({2}, pads)}, {F32({}, {9})}, {I64({1}, {1})}});
    EXPECT_TRUE(out.ok()) << out.status();
    return Values<float>((*out)[0].tensor);
  };
  EXPECT_EQ(run("constant", {1, 2}), (std::vector<float>{9, 1, 2, 3, 9, 9}));
  EXPECT_EQ(run("reflect", {2, 2}), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(run("edge", {1, 1}), (std::vector<float>{1, 1, 2, 3, 3}));
  EXPECT_EQ(run("wrap", {1, 1}), (std::vector<float>{3, 1, 2, 3, 1}));
  EXPECT_EQ(run("constant", {-1, 1}), (std::vector<float>{2, 3, 9}));
  auto bad = RunOp("Pad", {Str("mode", "mirror")}, {{x}, {I64({4}, {0, 0, 0, 0})}});
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "mode 'mirror'")) << bad.status();
}

TEST(Det, BatchedMatrices) {
  auto out = RunOp("Det", {}, {{F32({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>((*out)[0].tensor), {-2, -1});
}

TEST(Dft, RealForwardOnesidedAndInverse) {
  // x = [1, 2, 3, 4]: X = [10, -2+2i, -2, -2-2i].
  auto out = RunOp("DFT", {Int("onesided", 1)}, {{F32({1, 4, 1}, {1, 2, 3, 4})}, {Absent()}, {I64({}, {1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{1, 3, 2}));
  ExpectNear(Values<float>((*out)[0].tensor), {10, 0, -2, 2, -2, 0});
  auto back = RunOp("DFT", {Int("inverse", 1)},
                    {{F32({4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})}, {Absent()}, {I64({}, {0})}});
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectNear(Values<float>((*back)[0].tensor), {1, 0, 2, 0, 3, 0, 4, 0});
}

TEST(GridSample, IdentityGridAndZerosPadding) {
  const Tensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  // Corners with align_corners=1 give the input back; a point beyond the edge reads zeros.
  const Tensor grid = F32({1, 1, 3, 2}, {-1, -1, 1, 1, 3, 3});
  auto out = RunOp("GridSample", {Str("mode", "linear"), Int("align_corners", 1)}, {{x}, {grid}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>((*out)[0].tensor), {1, 4, 0});
  auto border = RunOp("GridSample", {Str("mode", "nearest"), Str("padding_mode", "border"), Int("align_corners", 1)},
                      {{x}, {grid}});
  ASSERT_TRUE(border.ok()) << border.status();
  ExpectNear(Values<float>((*border)[0].tensor), {1, 4, 4});
}

TEST(Col2Im, OverlappingBlocksAdd) {
  // One channel, image 1x3, blocks 1x2 with stride 1: columns [a b], [c d] -> [a, b + c, d].
  auto out = RunOp("Col2Im", {}, {{F32({1, 2, 2}, {1, 3, 2, 4})}, {I64({2}, {1, 3})}, {I64({2}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{1, 1, 1, 3}));
  ExpectNear(Values<float>((*out)[0].tensor), {1, 5, 4});
}

TEST(Resize, NearestAndLinearCoordinates) {
  const Tensor x = F32({1, 2}, {0, 1});
  auto nearest = RunOp("Resize", {Str("mode", "nearest"), Str("coordinate_transformation_mode", "asymmetric"),
                                  Str("nearest_mode", "floor")},
                       {{x}, {Absent()}, {F32({2}, {1, 2})}});
  ASSERT_TRUE(nearest.ok()) << nearest.status();
  ExpectNear(Values<float>((*nearest)[0].tensor), {0, 0, 1, 1});
  auto linear = RunOp("Resize", {Str("mode", "linear")}, {{x}, {Absent()}, {Absent()}, {I64({2}, {1, 4})}});
  ASSERT_TRUE(linear.ok()) << linear.status();
  ExpectNear(Values<float>((*linear)[0].tensor), {0, 0.25f, 0.75f, 1});
  auto bad = RunOp("Resize", {Str("coordinate_transformation_mode", "tf_crop_and_resize")}, {{x}});
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "tf_crop_and_resize")) << bad.status();
}

TEST(Random, UniformRangeAndNormalMoments) {
  auto u = RunOp("RandomUniformLike", {Float("low", -2), Float("high", 3)}, {{F32({4000}, {})}});
  ASSERT_TRUE(u.ok()) << u.status();
  double sum = 0;
  for (float v : Values<float>((*u)[0].tensor)) {
    EXPECT_TRUE(v >= -2 && v < 3) << v;
    sum += v;
  }
  EXPECT_NEAR(sum / 4000, 0.5, 0.15);
  auto n = RunOp("RandomNormalLike", {Int("dtype", 11), Float("mean", 1), Float("scale", 2)}, {{F32({4000}, {})}});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ((*n)[0].tensor.dtype(), DataType::kDouble);
  double s = 0, s2 = 0;
  for (double v : Values<double>((*n)[0].tensor)) {
    s += v;
    s2 += v * v;
  }
  EXPECT_NEAR(s / 4000, 1.0, 0.15);
  EXPECT_NEAR(s2 / 4000 - (s / 4000) * (s / 4000), 4.0, 0.5);
}

TEST(Bitwise, IntegersBroadcastAndBoolIsRefused) {
  auto out = RunOp("BitwiseXor", {}, {{I64({2}, {6, 5})}, {I64({1}, {3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0].tensor), (std::vector<int64_t>{5, 6}));
  auto n = RunOp("BitwiseNot", {}, {{I64({1}, {0})}});
  EXPECT_EQ(Values<int64_t>((*n)[0].tensor), (std::vector<int64_t>{-1}));
  auto b = RunOp("BitwiseAnd", {}, {{Make<uint8_t>(DataType::kBool, {1}, {1})}, {Make<uint8_t>(DataType::kBool, {1}, {1})}});
  EXPECT_EQ(b.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(Unary, TrigonometryAndIsInfDirections) {
  auto a = RunOp("Atan", {}, {{F32({2}, {0, 1})}});
  ASSERT_TRUE(a.ok()) << a.status();
  ExpectNear(Values<float>((*a)[0].tensor), {0, 0.78539816f});
  const float inf = std::numeric_limits<float>::infinity();
  auto isinf = RunOp("IsInf", {Int("detect_positive", 0)}, {{F32({3}, {inf, -inf, 1})}});
  ASSERT_TRUE(isinf.ok()) << isinf.status();
  EXPECT_EQ(Values<uint8_t>((*isinf)[0].tensor), (std::vector<uint8_t>{0, 1, 0}));
}

TEST(Session, FoldsAnXnnpackConvOfConstantsWithScratchBuffers) {
  // Every input constant: the accelerated Conv runs once at creation and
  // takes its NHWC scratch buffers from a pool there too.
  auto out = RunOp("Conv", {}, {{F32({1, 1, 2, 2}, {1, 2, 3, 4}), true}, {F32({1, 1, 1, 1}, {2}), true}},
                   1, /*accelerate=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values<float>((*out)[0].tensor), {2, 4, 6, 8});
}

TEST(Reduce, BoolMinIsAllAndMaxIsAny) {
  // Opset 20: ReduceMin/ReduceMax on bool, False < True.
  Tensor flags = Make<uint8_t>(DataType::kBool, {2, 3}, {1, 0, 1, 1, 1, 1});  // bool is one byte
  auto all = RunOp("ReduceMin", {ir::Attribute::Int("keepdims", 1)}, {{flags}, {I64({1}, {-1})}});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ((*all)[0].tensor.dtype(), DataType::kBool);
  EXPECT_EQ((*all)[0].tensor.dims(), (Dims{2, 1}));
  EXPECT_EQ(Values<uint8_t>((*all)[0].tensor), (std::vector<uint8_t>{0, 1}));
  auto any = RunOp("ReduceMax", {ir::Attribute::Int("keepdims", 0)}, {{flags}, {I64({1}, {0})}});
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ(Values<uint8_t>((*any)[0].tensor), (std::vector<uint8_t>{1, 1, 1}));
}


// Exact Gelu (torch's gelu in float64, rounded to float32): the negative
// tail keeps its relative accuracy to a few ulp (0.5 x (1 + erf) cancels
// there: at x = -5.5 it was off by 57%).
TEST(Gelu, NegativeTailWithoutCancellation) {
  const std::vector<float> x = {-7.0f, -5.5f, -4.0f, -2.5f, -0.5f, 0.0f, 0.75f, 3.0f};
  const std::vector<float> want = {-8.95866714e-12f, -1.04442591e-07f, -0.000126684972f, -0.0155241629f,
                                   -0.154268771f,    0.0f,             0.580029488f,     2.99595022f};
  auto out = RunOp("Gelu", {}, {{F32({8}, x)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> got = Values<float>((*out)[0].tensor);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 4e-6f * std::fabs(want[i]) + 1e-30f) << "at x = " << x[i];
  }
}

// The same through XNNPACK (1024 elements and more): its erf gelu cancels in
// the negative tail, where the kernel recomputes the portable kernel's values.
TEST(Gelu, AcceleratedNegativeTailMatchesThePortableKernel) {
  std::vector<float> x;
  for (int i = 0; i < 4096; ++i) x.push_back(-20.0f + 40.0f * static_cast<float>(i) / 4095.0f);
  auto fast = RunOp("Gelu", {}, {{F32({4096}, x)}});
  auto portable = RunOp("Gelu", {}, {{F32({4096}, x)}}, 1, /*accelerate=*/false);
  ASSERT_TRUE(fast.ok() && portable.ok());
  const std::vector<float> got = Values<float>((*fast)[0].tensor), want = Values<float>((*portable)[0].tensor);
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] < -2.0f) {
      EXPECT_EQ(got[i], want[i]) << "at x = " << x[i];
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-5f * std::fabs(want[i]) + 1e-7f) << "at x = " << x[i];
    }
  }
  // x = -5.5: torch's float64 value -1.04442591e-07, to 4e-6 relative.
  std::vector<float> tail(1024, -5.5f);
  auto out = RunOp("Gelu", {}, {{F32({1024}, tail)}});
  ASSERT_TRUE(out.ok());
  EXPECT_NEAR(Values<float>((*out)[0].tensor)[0], -1.04442591e-07f, 4e-6f * 1.04442591e-07f);
}


// The opset 24 and 26 operators pt2onnx emits: Swish (silu), CumProd (cumprod), BitCast (view.dtype).
TEST(Swish, IsSiluAndTakesAlpha) {
  const std::vector<float> x = {-30, -1, 0, 0.5f, 4};
  auto out = RunOp("Swish", {}, {{F32({5}, x)}}, 1, true, 24);
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> want;
  for (float v : x) want.push_back(static_cast<float>(v / (1.0 + std::exp(-static_cast<double>(v)))));
  ExpectNear(Values<float>((*out)[0].tensor), want, 0);
  auto scaled = RunOp("Swish", {Float("alpha", 2)}, {{F32({1}, {1})}}, 1, true, 24);
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  ExpectNear(Values<float>((*scaled)[0].tensor), {static_cast<float>(1 / (1 + std::exp(-2.0)))}, 1e-7f);
}

TEST(CumProd, AlongAnAxisExclusiveReverseAndWrappingIntegers) {
  auto out = RunOp("CumProd", {}, {{F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {I64({}, {1})}}, 1, true, 26);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{1, 2, 6, 4, 20, 120}));
  auto rev = RunOp("CumProd", {Int("exclusive", 1), Int("reverse", 1)},
                   {{F32({3}, {2, 3, 4})}, {I64({}, {0})}}, 1, true, 26);
  ASSERT_TRUE(rev.ok()) << rev.status();
  EXPECT_EQ(Values<float>((*rev)[0].tensor), (std::vector<float>{12, 4, 1}));
  const int64_t big = int64_t{1} << 62;
  auto wrap = RunOp("CumProd", {}, {{I64({2}, {big, 4})}, {I64({}, {0})}}, 1, true, 26);
  ASSERT_TRUE(wrap.ok()) << wrap.status();
  EXPECT_EQ(Values<int64_t>((*wrap)[0].tensor), (std::vector<int64_t>{big, 0}));
}

TEST(BitCast, ReinterpretsTheBytesOfEqualWidths) {
  auto out = RunOp("BitCast", {Int("to", static_cast<int64_t>(DataType::kInt32))},
                   {{F32({2}, {1.0f, -2.0f})}}, 1, true, 26);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dtype(), DataType::kInt32);
  EXPECT_EQ(Values<int32_t>((*out)[0].tensor), (std::vector<int32_t>{0x3f800000, static_cast<int32_t>(0xc0000000)}));
  auto bad = RunOp("BitCast", {Int("to", static_cast<int64_t>(DataType::kInt64))}, {{F32({1}, {1})}}, 1, true, 26);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "the widths differ")) << bad.status();
}

// Tile's block copies against the definition (out[i] = x[i mod x.dims]), for ranks 1-4, repeats of 1
// on inner and outer axes, an int64 input, an empty result and a 0-d input.
TEST(Tile, BlockCopiesEqualTheDefinition) {
  struct Case {
    Dims dims;
    std::vector<int64_t> repeats;
  };
  const Case cases[] = {{{3}, {4}},          {{2, 3}, {3, 1}},       {{2, 3}, {1, 2}},
                        {{2, 1, 3}, {2, 3, 2}}, {{1, 2, 2, 3}, {2, 1, 3, 1}}, {{2, 2}, {0, 3}}};
  for (const Case& c : cases) {
    std::vector<int64_t> values;
    int64_t n = 1;
    for (int64_t d : c.dims) n *= d;
    for (int64_t i = 0; i < n; ++i) values.push_back(i * 7 - 3);
    auto out = RunOp("Tile", {}, {{I64(c.dims, values)}, {I64({static_cast<int64_t>(c.repeats.size())}, c.repeats)}});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& y = (*out)[0].tensor;
    Dims expected_dims;
    for (size_t d = 0; d < c.dims.size(); ++d) expected_dims.push_back(c.dims[d] * c.repeats[d]);
    ASSERT_EQ(y.dims(), expected_dims);
    std::vector<int64_t> got = Values<int64_t>(y), index(c.dims.size(), 0);
    for (size_t i = 0; i < got.size(); ++i) {
      int64_t src = 0;
      for (size_t d = 0; d < c.dims.size(); ++d) src = src * c.dims[d] + index[d] % c.dims[d];
      ASSERT_EQ(got[i], values[src]) << i;
      for (size_t d = index.size(); d-- > 0;) {
        if (++index[d] < expected_dims[d]) break;
        index[d] = 0;
      }
    }
  }
  auto scalar = RunOp("Tile", {}, {{F32({}, {2.5f})}, {I64({0}, {})}});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(Values<float>((*scalar)[0].tensor), (std::vector<float>{2.5f}));
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
