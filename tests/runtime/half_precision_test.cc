// The executor's half-precision policy (runtime/kernels/kernel.h): values stay
// float16/bfloat16 between ops, arithmetic accumulates in float32 and rounds
// each result once, data movement keeps the bits.
#include <cmath>
#include <vector>

#include "core/ir/half.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

Tensor BF16(Dims dims, const std::vector<float>& v) {
  std::vector<uint16_t> bits;
  for (float f : v) bits.push_back(ir::FloatToBFloat16(f));
  return Make(DataType::kBFloat16, std::move(dims), bits);
}

Tensor F16(Dims dims, const std::vector<float>& v) {
  std::vector<uint16_t> bits;
  for (float f : v) bits.push_back(ir::FloatToHalf(f));
  return Make(DataType::kFloat16, std::move(dims), bits);
}

std::vector<float> Floats(const Tensor& t) {
  std::vector<float> out;
  for (uint16_t b : Values<uint16_t>(t)) {
    out.push_back(t.dtype() == DataType::kBFloat16 ? ir::BFloat16ToFloat(b) : ir::HalfToFloat(b));
  }
  return out;
}

// 1000 ones summed: a bfloat16 accumulator sticks at 256 (256 + 1 rounds back
// to 256); a float32 one reaches 1000, which bfloat16 holds exactly.
TEST(HalfPrecision, ReductionsAccumulateInFloat32) {
  const Tensor ones = BF16({1000}, std::vector<float>(1000, 1.0f));
  auto sum = RunOp("ReduceSum", {ir::Attribute::Int("keepdims", 0)}, {{ones}});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ((*sum)[0].tensor.dtype(), DataType::kBFloat16);
  EXPECT_EQ(Floats((*sum)[0].tensor), (std::vector<float>{1000}));
}

// The same for a matrix product, with a constant weight (the path an LLM's
// projections take) and with two activations, float16 and bfloat16.
TEST(HalfPrecision, MatMulAccumulatesInFloat32AndRoundsOnce) {
  for (DataType dtype : {DataType::kBFloat16, DataType::kFloat16}) {
    for (bool constant : {true, false}) {
      const int k = 1000;
      std::vector<float> a(2 * k), b(k * 3);
      for (int i = 0; i < 2 * k; ++i) a[i] = (i % 7) * 0.125f - 0.25f;
      for (int i = 0; i < k * 3; ++i) b[i] = (i % 5) * 0.25f - 0.5f;
      auto make = dtype == DataType::kBFloat16 ? BF16 : F16;
      auto out = RunOp("MatMul", {}, {{make({2, k}, a)}, {make({k, 3}, b), constant}});
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ((*out)[0].tensor.dtype(), dtype);
      // The float32 product of the (exactly representable) inputs, rounded once.
      std::vector<float> want;
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
          float acc = 0;
          for (int p = 0; p < k; ++p) acc += a[i * k + p] * b[p * 3 + j];
          want.push_back(dtype == DataType::kBFloat16 ? ir::BFloat16ToFloat(ir::FloatToBFloat16(acc))
                                                      : ir::HalfToFloat(ir::FloatToHalf(acc)));
        }
      }
      EXPECT_EQ(Floats((*out)[0].tensor), want) << DataTypeName(dtype) << (constant ? " constant" : " activation");
    }
  }
}

// Ops without a half kernel compute in float32 and round once: Softmax's
// result is the rounded float32 softmax.
TEST(HalfPrecision, ElementwiseRoundsTheFloat32ResultOnce) {
  const std::vector<float> x = {0.5f, -1.25f, 3.0f, 0.0078125f};
  auto out = RunOp("Softmax", {ir::Attribute::Int("axis", -1)}, {{BF16({4}, x)}});
  ASSERT_TRUE(out.ok()) << out.status();
  float total = 0;
  for (float v : x) total += std::exp(v - 3.0f);
  const std::vector<float> got = Floats((*out)[0].tensor);
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = ir::BFloat16ToFloat(ir::FloatToBFloat16(std::exp(x[i] - 3.0f) / total));
    EXPECT_NEAR(got[i], want, std::fabs(want) * 0x1p-8) << i;  // within one rounding
  }
}

// Data movement keeps the 2-byte values (NaN payloads included).
TEST(HalfPrecision, DataMovementKeepsBits) {
  const Tensor x = Make<uint16_t>(DataType::kBFloat16, {2, 2}, {0x3F80, 0x7FC1, 0x0001, 0xFF80});
  auto out = RunOp("Transpose", {ir::Attribute::Ints("perm", {1, 0})}, {{x}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint16_t>((*out)[0].tensor), (std::vector<uint16_t>{0x3F80, 0x0001, 0x7FC1, 0xFF80}));
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
