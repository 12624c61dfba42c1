// Tests for ops/embedding_losses.cc: each loss converts under every reduction
// with torch's output shapes (the per-sample losses' (N) or 0-d results for
// none), optional weights, and bad arguments are refused by name. Numerics:
// tests/fixtures/ops/{embedding_losses,margin_losses}.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

std::vector<int64_t> Out(int64_t reduction, std::vector<int64_t> none_shape) {
  return reduction == 0 ? none_shape : std::vector<int64_t>{};
}

void ExpectConverts(const pt2::ExportedProgram& program) {
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << program.graph.nodes[0].target << ": " << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got)) << program.graph.nodes[0].target;
}

TEST(EmbeddingLosses, PairLossesUnderEveryReduction) {
  for (int64_t r : {0, 1, 2}) {
    ExpectConverts(OneNodeProgram({{"a", kF32, {6}}, {"b", kF32, {6}}, {"t", kF32, {6}}}, "margin_ranking_loss.default",
                                  {TensorArg("input1", "a"), TensorArg("input2", "b"), TensorArg("target", "t"),
                                   FloatArg("margin", 0.2), IntArg("reduction", r)},
                                  {{"y", kF32, Out(r, {6})}})
                       .Build());
    ExpectConverts(OneNodeProgram({{"x", kF32, {2, 3}}, {"t", kF32, {2, 3}}}, "hinge_embedding_loss.default",
                                  {TensorArg("self", "x"), TensorArg("target", "t"), FloatArg("margin", 2.0),
                                   IntArg("reduction", r)},
                                  {{"y", kF32, Out(r, {2, 3})}})
                       .Build());
    ExpectConverts(OneNodeProgram({{"a", kF32, {4, 3}}, {"b", kF32, {4, 3}}, {"t", kF32, {4}}},
                                  "cosine_embedding_loss.default",
                                  {TensorArg("input1", "a"), TensorArg("input2", "b"), TensorArg("target", "t"),
                                   IntArg("reduction", r)},
                                  {{"y", kF32, Out(r, {4})}})
                       .Build());
  }
  // A 0-d target with 1-D inputs: one pair.
  ExpectConverts(OneNodeProgram({{"a", kF32, {3}}, {"b", kF32, {3}}, {"t", kF32, {}}}, "cosine_embedding_loss.default",
                                {TensorArg("input1", "a"), TensorArg("input2", "b"), TensorArg("target", "t"),
                                 IntArg("reduction", 0)},
                                {{"y", kF32, {}}})
                     .Build());
}

TEST(EmbeddingLosses, MultiMarginShapes) {
  for (int64_t r : {0, 1, 2}) {
    for (double p : {1.0, 2.0}) {
      ExpectConverts(OneNodeProgram({{"x", kF32, {4, 5}}, {"t", kI64, {4}}, {"w", kF32, {5}}},
                                    "multi_margin_loss.default",
                                    {TensorArg("self", "x"), TensorArg("target", "t"), FloatArg("p", p),
                                     FloatArg("margin", 0.7), TensorArg("weight", "w"), IntArg("reduction", r)},
                                    {{"y", kF32, Out(r, {4})}})
                         .Build());
    }
  }
  // A 1-D input is one sample; with a 0-d target `none` is 0-d too.
  ExpectConverts(OneNodeProgram({{"x", kF32, {5}}, {"t", kI64, {}}}, "multi_margin_loss.default",
                                {TensorArg("self", "x"), TensorArg("target", "t"), IntArg("reduction", 0)},
                                {{"y", kF32, {}}})
                     .Build());
  ExpectConverts(OneNodeProgram({{"x", kF32, {}}, {"t", kI64, {}}}, "multi_margin_loss.default",
                                {TensorArg("self", "x"), TensorArg("target", "t")}, {{"y", kF32, {}}})
                     .Build());
}

TEST(EmbeddingLosses, MultilabelMarginShapes) {
  for (int64_t r : {0, 1, 2}) {
    ExpectConverts(OneNodeProgram({{"x", kF32, {3, 4}, {"s0", ""}}, {"t", kI64, {3, 4}, {"s0", ""}}},
                                  "multilabel_margin_loss.default",
                                  {TensorArg("self", "x"), TensorArg("target", "t"), IntArg("reduction", r)},
                                  {{"y", kF32, Out(r, {3}), r == 0 ? std::vector<std::string>{"s0"}
                                                                   : std::vector<std::string>{}}})
                       .Build());
  }
  ExpectConverts(OneNodeProgram({{"x", kF32, {4}}, {"t", kI64, {4}}}, "multilabel_margin_loss.default",
                                {TensorArg("self", "x"), TensorArg("target", "t"), IntArg("reduction", 0)},
                                {{"y", kF32, {}}})
                     .Build());
}

TEST(EmbeddingLosses, BadArgumentsAreRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {4, 5}}, {"t", kI64, {4}}},
                                                       "multi_margin_loss.default",
                                                       {TensorArg("self", "x"), TensorArg("target", "t"),
                                                        FloatArg("p", 3)},
                                                       {{"y", kF32, {}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "only p == 1 and p == 2"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"a", kF32, {4, 3}}, {"b", kF32, {4, 3}}, {"t", kF32, {}}},
                                                       "cosine_embedding_loss.default",
                                                       {TensorArg("input1", "a"), TensorArg("input2", "b"),
                                                        TensorArg("target", "t")},
                                                       {{"y", kF32, {}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "0-D target expects 1-D inputs"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {2, 3, 4}}, {"t", kI64, {2, 3, 4}}},
                                                       "multilabel_margin_loss.default",
                                                       {TensorArg("self", "x"), TensorArg("target", "t")},
                                                       {{"y", kF32, {}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "expected a 0-D, 1-D or 2-D input"));
}

}  // namespace
}  // namespace pt2onnx::testing
