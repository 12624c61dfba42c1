// Tests for ops/nan_reductions.cc: nansum, nanmean, aminmax and isreal
// convert (checker + shape inference) over dim lists, keepdim, symbolic dims
// and integer / bool inputs; nanmean of integers is refused. Numerics (NaN
// slices, all-NaN rows, empty slices): tests/fixtures/ops/nan_reductions.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

using NanReductionsTest = OpCaseTest;
TEST_P(NanReductionsTest, ConvertsWithInferredShapes) { ExpectConverts(GetParam()); }

std::vector<OpCase> Cases() {
  // Float aminmax: both reductions, then NaN slices made NaN explicitly.
  const std::vector<std::string> kFloatAminmax = {"ReduceMin", "ReduceMax", "IsNaN", "Cast",
                                                  "ReduceMax", "Cast",      "Where", "Where"};
  return {
      OneNodeCase("nansum_all", {{"x", kF32, {2, 3}}}, "nansum.default", {TensorArg("self", "x")},
                  {{"y", kF32, {}}}, {"IsNaN", "Where", "ReduceSum"}),
      OneNodeCase("nansum_dim_keepdim", {{"x", kF32, {2, 3, 4}}}, "nansum.default",
                  {TensorArg("self", "x"), IntsArg("dim", {0, -1}), BoolArg("keepdim", true)},
                  {{"y", kF32, {1, 3, 1}}}, {"IsNaN", "Where", "ReduceSum"}),
      // Integers hold no NaN: a plain int64 sum.
      OneNodeCase("nansum_int", {{"x", kI32, {2, 3}}}, "nansum.default",
                  {TensorArg("self", "x"), IntsArg("dim", {1})}, {{"y", kI64, {2}}}, {"Cast", "ReduceSum"}),
      OneNodeCase("nansum_symbolic", {{"x", kF32, {2, 3}, {"s0", ""}}}, "nansum.default",
                  {TensorArg("self", "x"), IntsArg("dim", {1})}, {{"y", kF32, {2}, {"s0"}}},
                  {"IsNaN", "Where", "ReduceSum"}),
      OneNodeCase("nanmean_dim", {{"x", kF32, {2, 3}}}, "nanmean.default",
                  {TensorArg("self", "x"), IntsArg("dim", {-1})}, {{"y", kF32, {2}}},
                  {"IsNaN", "Where", "Not", "ReduceSum", "Cast", "ReduceSum", "Div"}),
      OneNodeCase("aminmax_all", {{"x", kF32, {2, 3}}}, "aminmax.default", {TensorArg("self", "x")},
                  {{"lo", kF32, {}}, {"hi", kF32, {}}}, kFloatAminmax),
      OneNodeCase("aminmax_dim_keepdim", {{"x", kF32, {2, 3, 4}}}, "aminmax.default",
                  {TensorArg("self", "x"), IntArg("dim", 1), BoolArg("keepdim", true)},
                  {{"lo", kF32, {2, 1, 4}}, {"hi", kF32, {2, 1, 4}}}, kFloatAminmax),
      OneNodeCase("aminmax_bool", {{"x", kBool, {5}}}, "aminmax.default", {TensorArg("self", "x"), IntArg("dim", 0)},
                  {{"lo", kBool, {}}, {"hi", kBool, {}}}, {"Cast", "ReduceMin", "ReduceMax", "Cast", "Cast"}),
      OneNodeCase("isreal", {{"x", kF32, {2, 3}, {"s0", ""}}}, "isreal.default", {TensorArg("self", "x")},
                  {{"y", kBool, {2, 3}, {"s0", ""}}}, {"Shape", "Expand"}),
  };
}

INSTANTIATE_TEST_SUITE_P(NanReductions, NanReductionsTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; });

TEST(NanReductions, Refusals) {
  EXPECT_TRUE(Rejects({"nanmean_int",
                       OneNodeProgram({{"x", kI64, {3}}}, "nanmean.default", {TensorArg("self", "x")},
                                      {{"y", kI64, {}}}),
                       absl::StatusCode::kInvalidArgument, "floating point"}));
  EXPECT_TRUE(Rejects({"aminmax_dim_out_of_range",
                       OneNodeProgram({{"x", kF32, {3}}}, "aminmax.default",
                                      {TensorArg("self", "x"), IntArg("dim", 2)},
                                      {{"lo", kF32, {}}, {"hi", kF32, {}}}),
                       absl::StatusCode::kInvalidArgument, "dim"}));
}

}  // namespace
}  // namespace pt2onnx::testing
