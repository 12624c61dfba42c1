// Tests for ops/embedding_bag.cc: conversion with inferred shapes, and the
// refusals (auxiliary outputs read, bad mode, per_sample_weights outside
// mode sum, padding_idx out of range). Numerics: tests/fixtures/ops/
// embedding_bag*.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder Bag(std::vector<pt2::NamedArgument> extra, std::vector<TensorSpec> outs,
                   std::string overload = "embedding_bag.padding_idx") {
  std::vector<pt2::NamedArgument> args = {TensorArg("weight", "w"), TensorArg("indices", "i"),
                                          TensorArg("offsets", "o"), BoolArg("scale_grad_by_freq",
                                                                             false),
                                          BoolArg("sparse", false), NoneArg("per_sample_weights"),
                                          BoolArg("include_last_offset", false)};
  args.insert(args.end(), extra.begin(), extra.end());
  return OneNodeProgram({{"w", kF32, {10, 3}}, {"i", kI64, {7}}, {"o", kI64, {3}},
                         {"p", kF32, {7}}}, overload,
                        std::move(args), std::move(outs));
}

std::vector<TensorSpec> PooledOnly() {
  return {{"y", kF32, {3, 3}}, {"y_unused_1", kI64, {7}}, {"y_unused_2", kI64, {3}},
          {"y_unused_3", kI64, {3}}};
}

TEST(EmbeddingBag, ConvertsWithInferredShapes) {
  for (int64_t mode : {0, 1, 2}) {
    pt2::ExportedProgram program = Bag({IntArg("mode", mode), IntArg("padding_idx", -1)},
                                       PooledOnly()).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got,
                                    {.static_dims_may_be_unknown = true})) << "mode " << mode;
  }
}

TEST(EmbeddingBag, Refusals) {
  std::vector<ErrorCase> cases = {
      {"aux_output_read",
       Bag({IntArg("mode", 0)}, {{"y", kF32, {3, 3}}, {"bag_of", kI64, {7}}}),
       absl::StatusCode::kUnimplemented, "reading output 1"},
      {"bad_mode", Bag({IntArg("mode", 3)}, PooledOnly()), absl::StatusCode::kInvalidArgument,
       "mode must be 0 (sum), 1 (mean) or 2 (max)"},
      {"padding_idx_out_of_range",
       Bag({IntArg("mode", 0), IntArg("padding_idx", 10)}, PooledOnly()),
       absl::StatusCode::kInvalidArgument, "padding_idx"},
  };
  ProgramBuilder weighted_mean = OneNodeProgram(
      {{"w", kF32, {10, 3}}, {"i", kI64, {7}}, {"o", kI64, {3}},
       {"p", kF32, {7}}}, "_embedding_bag.default",
      {TensorArg("weight", "w"), TensorArg("indices", "i"), TensorArg("offsets", "o"),
       IntArg("mode", 1),
       TensorArg("per_sample_weights", "p")},
      PooledOnly());
  cases.push_back({"weights_need_sum", weighted_mean, absl::StatusCode::kInvalidArgument,
                   "per_sample_weights"});
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

}  // namespace
}  // namespace pt2onnx::testing
