// QuantizeLinear / DequantizeLinear (runtime/kernels/quantize_linear.cc)
// through one-node sessions: ties round half to even, saturation at the
// dtype's ends, per-axis and blocked parameters, the default uint8, errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Attribute Int(const char* n, int64_t v) { return ir::Attribute::Int(n, v); }
Tensor I8(Dims dims, const std::vector<int8_t>& v) { return Make(DataType::kInt8, std::move(dims), v); }
Tensor U8(Dims dims, const std::vector<uint8_t>& v) { return Make(DataType::kUint8, std::move(dims), v); }

TEST(QuantizeLinear, TiesRoundHalfToEvenAndSaturate) {
  // x / 0.5 = -2.5, -1.5, -0.5, 0.5, 1.5, 2.5 -> -2, -2, 0, 0, 2, 2, then + 1; 100 and -100 saturate.
  auto out = RunOp("QuantizeLinear", {},
                   {{F32({8}, {-1.25f, -0.75f, -0.25f, 0.25f, 0.75f, 1.25f, 100.f, -100.f})},
                    {F32({}, {0.5f}), true}, {I8({}, {1}), true}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int8_t>((*out)[0].tensor), (std::vector<int8_t>{-1, -1, 1, 1, 3, 3, 127, -128}));
}

TEST(QuantizeLinear, PerTensorLoopMatchesNearbyintAtTiesRangeEndsAndNaN) {
  // The vectorised per-tensor path: every k / 4 in [-80, 80] with scale 0.5 (ties at every odd k),
  // zero point -7, values past both ends, and NaN (0, as the general path gives).
  std::vector<float> x;
  for (int k = -320; k <= 320; ++k) x.push_back(k / 4.0f);
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  auto out = RunOp("QuantizeLinear", {}, {{F32({static_cast<int64_t>(x.size())}, x)}, {F32({}, {0.5f}), true},
                                          {I8({}, {-7}), true}});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<int8_t> q = Values<int8_t>((*out)[0].tensor);
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const float want = std::min(127.0f, std::max(-128.0f, std::nearbyint(x[i] / 0.5f) - 7.0f));
    ASSERT_EQ(q[i], static_cast<int8_t>(want)) << x[i];
  }
  EXPECT_EQ(q.back(), 0);
}

TEST(QuantizeLinear, DividesByTheScaleAsOnnxSays) {
  // -1.665f / 0.03f is -55.5 in float32 and rounds to -56; torch's -1.665f * float(1 / 0.03) gives -55
  // (tests/reference/kernels_test.cc): the one-ulp difference docs/cli.md describes.
  auto out = RunOp("QuantizeLinear", {}, {{F32({1}, {-1.6649999618530273f})}, {F32({}, {0.03f}), true},
                                          {I8({}, {0}), true}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int8_t>((*out)[0].tensor), (std::vector<int8_t>{-56}));
}

TEST(QuantizeLinear, WithoutZeroPointIsUint8) {
  auto out = RunOp("QuantizeLinear", {}, {{F32({3}, {-1.f, 0.3f, 300.f})}, {F32({}, {1.f}), true}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dtype(), DataType::kUint8);
  EXPECT_EQ(Values<uint8_t>((*out)[0].tensor), (std::vector<uint8_t>{0, 0, 255}));
}

TEST(QuantizeLinear, PerAxis) {
  // axis 1 of a 2x3: scales 1, 0.5, 0.25 and zero points 0, 10, -10.
  auto out = RunOp("QuantizeLinear", {Int("axis", 1)},
                   {{F32({2, 3}, {1.f, 1.f, 1.f, -2.f, -2.f, -2.f})},
                    {F32({3}, {1.f, 0.5f, 0.25f}), true}, {I8({3}, {0, 10, -10}), true}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int8_t>((*out)[0].tensor), (std::vector<int8_t>{1, 12, -6, -2, 6, -18}));
}

TEST(DequantizeLinear, PerTensorPerAxisAndBlocked) {
  auto t = RunOp("DequantizeLinear", {}, {{U8({3}, {0, 128, 255})}, {F32({}, {0.5f}), true}, {U8({}, {128}), true}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Values<float>((*t)[0].tensor), (std::vector<float>{-64.f, 0.f, 63.5f}));
  auto a = RunOp("DequantizeLinear", {Int("axis", 0)},
                 {{I8({2, 2}, {4, -4, 4, -4})}, {F32({2}, {0.5f, 2.f}), true}, {I8({2}, {0, 1}), true}});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(Values<float>((*a)[0].tensor), (std::vector<float>{2.f, -2.f, 6.f, -10.f}));
  // Opset 21: blocks of 2 along axis 1 of a 1x5 (the last block holds one element).
  auto b = RunOp("DequantizeLinear", {Int("axis", 1), Int("block_size", 2)},
                 {{I8({1, 5}, {1, 2, 3, 4, 5})}, {F32({1, 3}, {1.f, 10.f, 100.f}), true}}, 1, true, 21);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(Values<float>((*b)[0].tensor), (std::vector<float>{1.f, 2.f, 30.f, 40.f, 500.f}));
}

TEST(QuantizeLinear, ShapeErrorsNameTheParameters) {
  auto bad = RunOp("QuantizeLinear", {Int("axis", 1)},
                   {{F32({2, 3}, {0, 0, 0, 0, 0, 0})}, {F32({2}, {1.f, 1.f}), true}, {I8({2}, {0, 0}), true}});
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "per-axis scale must be 1-D of x's size 3")) << bad.status();
  auto zp = RunOp("DequantizeLinear", {}, {{I8({2}, {1, 2})}, {F32({}, {1.f}), true}, {U8({}, {0}), true}});
  EXPECT_TRUE(absl::StrContains(zp.status().message(), "zero point uint8 differs from x int8")) << zp.status();
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
