// Attention-23 / RotaryEmbedding-23 kernels on hand-computed cases (the
// op-zoo fixtures onnx_attention / onnx_rotary_embedding converted at
// --opset 23 check them against torch as well).
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

}  // namespace
}  // namespace pt2onnx::runtime::testing
