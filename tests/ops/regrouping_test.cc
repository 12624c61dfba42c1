// Tests for ops/regrouping.cc: take gathers from the flattened tensor,
// sum_to_size reduces the dims a broadcast would add or stretch (int64 for
// integer input), channel_shuffle swaps (groups, C / groups) with a symbolic
// batch; malformed sizes and groups are refused. Numerics:
// tests/fixtures/ops/regrouping.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(Regrouping, TakeAndSumToSize) {
  pt2::ExportedProgram take =
      OneNodeProgram({{"x", kF32, {2, 3}}, {"i", kI64, {2, 2}}}, "take.default",
                     {TensorArg("self", "x"), TensorArg("index", "i")}, {{"y", kF32, {2, 2}}})
          .Build();
  pt2::ExportedProgram sum = OneNodeProgram({{"x", kI32, {2, 3, 4}}}, "sum_to_size.default",
                                            {TensorArg("self", "x"), IntsArg("size", {3, 1})}, {{"y", kI64, {3, 1}}})
                                 .Build();
  for (const auto& program : {take, sum}) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
  pt2::ExportedProgram same = OneNodeProgram({{"x", kF32, {2, 3}}}, "sum_to_size.default",
                                             {TensorArg("self", "x"), IntsArg("size", {2, 3})}, {{"y", kF32, {2, 3}}})
                                  .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(same);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(FindNode(got->model, "ReduceSum"), nullptr);
}

TEST(Regrouping, ChannelShuffleSymbolicBatch) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {2, 6, 3}, {"s0", "", ""}}}, "channel_shuffle.default",
                     {TensorArg("self", "x"), IntArg("groups", 3)}, {{"y", kF32, {2, 6, 3}, {"s0", "", ""}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(Regrouping, Refusals) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {2, 3}}}, "sum_to_size.default",
                                                       {TensorArg("self", "x"), IntsArg("size", {2})},
                                                       {{"y", kF32, {2}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "does not broadcast"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {1, 6, 2}}}, "channel_shuffle.default",
                                                       {TensorArg("self", "x"), IntArg("groups", 4)},
                                                       {{"y", kF32, {1, 6, 2}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "do not split into 4 groups"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {1, 6, 2}}}, "channel_shuffle.default",
                                                       {TensorArg("self", "x"), IntArg("groups", 0)},
                                                       {{"y", kF32, {1, 6, 2}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "groups must be positive"));
}

}  // namespace
}  // namespace pt2onnx::testing
