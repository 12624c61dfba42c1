// Einsum through one-node sessions: '...' (right-aligned, broadcast), implicit outputs, diagonals.
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Attribute Eq(const char* equation) { return ir::Attribute::String("equation", equation); }

TEST(Einsum, EllipsisBatchBroadcasts) {
  // a: [2, 1, 1, 2] (batch [2, 1]), b: [3, 2, 1] (batch [3]) -> the batch broadcasts to [2, 3].
  auto out = RunOp("Einsum", {Eq("...ij,...jk->...ik")},
                   {{F32({2, 1, 1, 2}, {1, 2, 3, 4})}, {F32({3, 2, 1}, {1, 1, 2, 0, 0, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{2, 3, 1, 1}));
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{3, 2, 6, 7, 6, 12}));
}

TEST(Einsum, EllipsisOfDifferentRanksAndImplicitOutput) {
  // Implicit output: '...' first, then the letters seen once (none here: j is summed).
  auto out = RunOp("Einsum", {Eq("...j,j")}, {{F32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})},
                                              {F32({3}, {1, 0, -1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{-2, -2, -2, -2}));
  // '...' may be empty.
  auto empty = RunOp("Einsum", {Eq("...i,...i->...")}, {{F32({2}, {1, 2})}, {F32({2}, {3, 4})}});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].tensor.dims(), (Dims{}));
  EXPECT_EQ(Values<float>((*empty)[0].tensor), (std::vector<float>{11}));
}

TEST(Einsum, DiagonalAndTranspose) {
  auto trace = RunOp("Einsum", {Eq("ii->i")}, {{F32({2, 2}, {1, 2, 3, 4})}});
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(Values<float>((*trace)[0].tensor), (std::vector<float>{1, 4}));
  auto t = RunOp("Einsum", {Eq("...ij->...ji")}, {{F32({1, 2, 2}, {1, 2, 3, 4})}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Values<float>((*t)[0].tensor), (std::vector<float>{1, 3, 2, 4}));
}

TEST(Einsum, BadOperandsAreErrors) {
  auto sizes = RunOp("Einsum", {Eq("ij,jk->ik")}, {{F32({1, 2}, {1, 2})}, {F32({3, 1}, {1, 2, 3})}});
  EXPECT_TRUE(absl::StrContains(sizes.status().message(), "letter sizes differ")) << sizes.status();
  auto batch = RunOp("Einsum", {Eq("...i,...i->...")}, {{F32({2, 1}, {1, 2})}, {F32({3, 1}, {1, 2, 3})}});
  EXPECT_TRUE(absl::StrContains(batch.status().message(), "letter sizes differ")) << batch.status();
  auto rank = RunOp("Einsum", {Eq("...ij->...")}, {{F32({2}, {1, 2})}});
  EXPECT_TRUE(absl::StrContains(rank.status().message(), "rank")) << rank.status();
  auto twice = RunOp("Einsum", {Eq("...i...->i")}, {{F32({2}, {1, 2})}});
  EXPECT_FALSE(twice.ok());
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
