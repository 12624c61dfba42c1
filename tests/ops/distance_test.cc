// Tests for ops/distance.cc: the matrix-product form of cdist is chosen as
// torch chooses it, and a negative p is refused; pairwise_distance, dist,
// cosine_similarity and triplet_margin_loss convert with torch's output
// shapes (keepdim, broadcast operands, a symbolic batch, every reduction).
// Numerics: tests/fixtures/ops/{cdist,pdist,norm_distances}.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder Cdist(int64_t points, double p) {
  return OneNodeProgram({{"a", kF32, {points, 3}}, {"b", kF32, {4, 3}}}, "_cdist_forward.default",
                        {TensorArg("x1", "a"), TensorArg("x2", "b"), FloatArg("p", p),
                         NoneArg("compute_mode")},
                        {{"y", kF32, {points, 4}}});
}

bool HasMatMul(const ir::Model& model) { return FindNode(model, "MatMul") != nullptr; }

TEST(Distance, MatrixFormOnlyAbove25Points) {
  for (auto [points, want] : std::vector<std::pair<int64_t, bool>>{{25, false}, {26, true}}) {
    pt2::ExportedProgram program = Cdist(points, 2).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    EXPECT_EQ(HasMatMul(got->model), want) << points << " points";
  }
}

TEST(Distance, NegativePIsRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Cdist(3, -1).Build()), absl::StatusCode::kInvalidArgument,
                        "p must be a non-negative number"));
}

void ExpectConverts(const pt2::ExportedProgram& program) {
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << program.graph.nodes[0].target << ": " << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got)) << program.graph.nodes[0].target;
}

TEST(Distance, PairwiseDistanceShapes) {
  for (auto [p, keepdim] : std::vector<std::pair<double, bool>>{{2, false}, {1, true}, {0, false}, {3.5, true}}) {
    std::vector<int64_t> out = keepdim ? std::vector<int64_t>{4, 1} : std::vector<int64_t>{4};
    ExpectConverts(OneNodeProgram({{"a", kF32, {4, 3}}, {"b", kF32, {3}}}, "pairwise_distance.default",
                                  {TensorArg("x1", "a"), TensorArg("x2", "b"), FloatArg("p", p),
                                   FloatArg("eps", 1e-6), BoolArg("keepdim", keepdim)},
                                  {{"y", kF32, out}})
                       .Build());
  }
  // Two 0-d operands: the norm of the single difference.
  ExpectConverts(OneNodeProgram({{"a", kF32, {}}, {"b", kF32, {}}}, "pairwise_distance.default",
                                {TensorArg("x1", "a"), TensorArg("x2", "b")}, {{"y", kF32, {}}})
                     .Build());
}

TEST(Distance, DistAndCosineSimilarity) {
  ExpectConverts(OneNodeProgram({{"a", kF32, {2, 3}}, {"b", kF32, {3}}}, "dist.default",
                                {TensorArg("self", "a"), TensorArg("other", "b"), FloatArg("p", 4)},
                                {{"y", kF32, {}}})
                     .Build());
  ExpectConverts(OneNodeProgram({{"a", kF32, {5, 1}}, {"b", kF32, {5, 3}}}, "cosine_similarity.default",
                                {TensorArg("x1", "a"), TensorArg("x2", "b"), IntArg("dim", -1)},
                                {{"y", kF32, {5}}})
                     .Build());
  ExpectConverts(OneNodeProgram({{"a", kF32, {4}, {"s0"}}, {"b", kF32, {4}, {"s0"}}}, "cosine_similarity.default",
                                {TensorArg("x1", "a"), TensorArg("x2", "b"), IntArg("dim", 0)}, {{"y", kF32, {}}})
                     .Build());
}

TEST(Distance, TripletMarginLossReductions) {
  for (int64_t reduction : {0, 1, 2}) {
    for (bool swap : {false, true}) {
      std::vector<int64_t> out = reduction == 0 ? std::vector<int64_t>{4} : std::vector<int64_t>{};
      ExpectConverts(OneNodeProgram({{"a", kF32, {4, 3}}, {"p", kF32, {4, 3}}, {"n", kF32, {4, 3}}},
                                    "triplet_margin_loss.default",
                                    {TensorArg("anchor", "a"), TensorArg("positive", "p"), TensorArg("negative", "n"),
                                     FloatArg("margin", 0.5), BoolArg("swap", swap), IntArg("reduction", reduction)},
                                    {{"y", kF32, out}})
                         .Build());
    }
  }
}

TEST(Distance, BadArgumentsAreRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"a", kI64, {3}}, {"b", kI64, {3}}}, "dist.default",
                                                       {TensorArg("self", "a"), TensorArg("other", "b")},
                                                       {{"y", kI64, {}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "floating point"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"a", kF32, {4, 3}}, {"p", kF32, {3}}, {"n", kF32, {4, 3}}},
                                                       "triplet_margin_loss.default",
                                                       {TensorArg("anchor", "a"), TensorArg("positive", "p"),
                                                        TensorArg("negative", "n")},
                                                       {{"y", kF32, {}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "same rank"));
}

}  // namespace
}  // namespace pt2onnx::testing
