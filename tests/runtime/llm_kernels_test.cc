// Attention-23/24, RotaryEmbedding-23 and TensorScatter-24 kernels on
// hand-computed cases (the op-zoo fixtures onnx_attention /
// onnx_rotary_embedding converted at --opset 23 check them against torch,
// tests/e2e/test_kv_cache.py the static cache form).
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

TEST(LlmKernels, RotaryEmbeddingRotatesPairsByPosition) {
  // x = (1, 2), cos = 0, sin = 1: (1*0 - 2*1, 1*1 + 2*0) = (-2, 1).
  auto out = RunOp("RotaryEmbedding", {},
                   {{F32({1, 1, 1, 2}, {1, 2})}, {F32({2, 1}, {5, 0})}, {F32({2, 1}, {5, 1})}, {I64({1, 1}, {1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{-2, 1}));
}

TEST(LlmKernels, RotaryEmbeddingRefusesPositionsOutsideTheCache) {
  auto out = RunOp("RotaryEmbedding", {},
                   {{F32({1, 1, 1, 2}, {1, 2})}, {F32({2, 1}, {5, 0})}, {F32({2, 1}, {5, 1})}, {I64({1, 1}, {2})}});
  ASSERT_FALSE(out.ok());
}

TEST(LlmKernels, AttentionAveragesEqualScoresAndMasksCausally) {
  std::vector<Input> in = {{F32({1, 1, 1, 1}, {1})}, {F32({1, 1, 2, 1}, {0, 0})}, {F32({1, 1, 2, 1}, {2, 4})}};
  auto plain = RunOp("Attention", {}, in);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(Values<float>((*plain)[0].tensor), std::vector<float>{3});
  auto causal = RunOp("Attention", {ir::Attribute::Int("is_causal", 1)}, in);
  ASSERT_TRUE(causal.ok()) << causal.status();
  EXPECT_EQ(Values<float>((*causal)[0].tensor), std::vector<float>{2});
}

TEST(LlmKernels, AttentionNonpadLengthHidesTheBufferTail) {
  // Keys 0, 0, 0 (equal scores), values 2, 4, NaN: the first two only.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<Input> in = {{F32({1, 1, 1, 1}, {1})}, {F32({1, 1, 3, 1}, {0, 0, 0})}, {F32({1, 1, 3, 1}, {2, 4, nan})},
                           {Tensor()}, {Tensor()}, {Tensor()}, {I64({1}, {2})}};
  auto out = RunOp("Attention", {}, in, 1, true, 24);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), std::vector<float>{3});
  in[6] = {I64({1}, {4})};
  EXPECT_FALSE(RunOp("Attention", {}, in, 1, true, 24).ok());  // past the keys given
}

TEST(LlmKernels, AttentionMaskShorterThanTheKeysMasksTheRest) {
  // Attention-24: the mask covers keys 0 and 1; key 2 (value 100) is masked.
  std::vector<Input> in = {{F32({1, 1, 1, 1}, {1})}, {F32({1, 1, 3, 1}, {0, 0, 0})}, {F32({1, 1, 3, 1}, {2, 4, 100})},
                           {Make<uint8_t>(DataType::kBool, {1, 1, 1, 2}, {1, 1})}};
  auto out = RunOp("Attention", {}, in, 1, true, 24);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), std::vector<float>{3});
}

TEST(LlmKernels, TensorScatterWritesEachRowAtItsIndex) {
  // Cache [2, 1, 4, 1] of zeros, two new entries per row at 1 and 2.
  std::vector<Input> in = {{F32({2, 1, 4, 1}, std::vector<float>(8, 0))}, {F32({2, 1, 2, 1}, {1, 2, 3, 4})},
                           {I64({2}, {1, 2})}};
  auto out = RunOp("TensorScatter", {ir::Attribute::Int("axis", 2)}, in, 1, true, 24);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{0, 1, 2, 0, 0, 0, 3, 4}));
  // Linear mode refuses to write past the end; circular wraps.
  in[2] = {I64({2}, {1, 3})};
  EXPECT_FALSE(RunOp("TensorScatter", {ir::Attribute::Int("axis", 2)}, in, 1, true, 24).ok());
  auto wrapped = RunOp("TensorScatter", {ir::Attribute::Int("axis", 2), ir::Attribute::String("mode", "circular")},
                       in, 1, true, 24);
  ASSERT_TRUE(wrapped.ok()) << wrapped.status();
  EXPECT_EQ(Values<float>((*wrapped)[0].tensor), (std::vector<float>{0, 1, 2, 0, 4, 0, 0, 3}));
}

TEST(LlmKernels, TensorScatterDefaultsToAxisMinus2AndIndexZero) {
  std::vector<Input> in = {{F32({1, 3, 2}, std::vector<float>(6, 0))}, {F32({1, 1, 2}, {7, 8})}};
  auto out = RunOp("TensorScatter", {}, in, 1, true, 24);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{7, 8, 0, 0, 0, 0}));
  // An update that does not fit the cache's other dims.
  in[1] = {F32({1, 1, 3}, {7, 8, 9})};
  EXPECT_FALSE(RunOp("TensorScatter", {}, in, 1, true, 24).ok());
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
