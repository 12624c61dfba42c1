// Tests for ops/integration.cc (trapezoid, trapz, cumulative_trapezoid) and
// ops/logspace.cc: every overload converts (checker + shape inference) with
// 1-D, full and broadcast sample points, constant spacings, negative dims and
// symbolic sizes; logspace with Scalar and 0-d Tensor bounds, one step and
// int64 results. Refusals: a 0-d y, x of higher rank than y, negative steps.
// Numerics: tests/fixtures/ops/trapezoid and tests/fixtures/ops/logspace.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

using IntegrationTest = OpCaseTest;
TEST_P(IntegrationTest, ConvertsWithInferredShapes) { ExpectConverts(GetParam()); }

std::vector<OpCase> Cases() {
  const std::vector<std::string> with_x = {"Slice", "Slice", "Add", "Slice", "Slice", "Sub", "Mul", "Div"};
  std::vector<std::string> one_d_x = {"Slice", "Slice", "Add", "Unsqueeze", "Slice", "Slice", "Sub", "Mul", "Div"};
  std::vector<std::string> sum_1d = one_d_x;
  sum_1d.push_back("ReduceSum");
  std::vector<std::string> sum_full = with_x;
  sum_full.push_back("ReduceSum");
  std::vector<std::string> cumsum_full = with_x;
  cumsum_full.push_back("CumSum");
  return {
      OneNodeCase("trapezoid_1d_x", {{"y", kF32, {3, 4}}, {"x", kF32, {4}}}, "trapezoid.x",
                  {TensorArg("y", "y"), TensorArg("x", "x"), IntArg("dim", 1)}, {{"r", kF32, {3}}}, sum_1d),
      OneNodeCase("trapz_full_x", {{"y", kF32, {3, 4}}, {"x", kF32, {3, 4}}}, "trapz.x",
                  {TensorArg("y", "y"), TensorArg("x", "x"), IntArg("dim", -2)}, {{"r", kF32, {4}}}, sum_full),
      OneNodeCase("trapezoid_symbolic", {{"y", kF32, {3, 4}, {"s0", ""}}, {"x", kF32, {3, 4}, {"s0", ""}}},
                  "trapezoid.x", {TensorArg("y", "y"), TensorArg("x", "x"), IntArg("dim", -1)},
                  {{"r", kF32, {3}, {"s0"}}}, sum_full),
      OneNodeCase("trapezoid_dx", {{"y", kI64, {3, 4}}}, "trapezoid.dx",
                  {TensorArg("y", "y"), FloatArg("dx", 0.5), IntArg("dim", 0)}, {{"r", kF32, {4}}},
                  // int64 y: torch's y.sum(dim) - (y[0] + y[-1]) * 0.5, times dx
                  {"ReduceSum", "Slice", "Slice", "Add", "Cast", "ReduceSum", "Mul", "Cast", "Sub", "Mul"}),
      OneNodeCase("trapezoid_uint8_x", {{"y", DataType::kUint8, {2, 3}}, {"x", DataType::kUint8, {2, 3}}},
                  "trapezoid.x", {TensorArg("y", "y"), TensorArg("x", "x"), IntArg("dim", -1)},
                  {{"r", kF32, {2}}},
                  // sums, widths and areas in uint8 (wrapping), summed in int64, then / 2
                  {"Slice", "Slice", "Sub", "Slice", "Slice", "Add", "Mul", "Cast", "ReduceSum", "Cast", "Div"}),
      OneNodeCase("cumulative_trapezoid_x", {{"y", kF32, {3, 4}}, {"x", kF32, {3, 4}}}, "cumulative_trapezoid.x",
                  {TensorArg("y", "y"), TensorArg("x", "x"), IntArg("dim", 1)}, {{"r", kF32, {3, 3}}},
                  cumsum_full),
      OneNodeCase("cumulative_trapezoid_dx", {{"y", kF32, {5}}}, "cumulative_trapezoid.dx",
                  {TensorArg("y", "y"), FloatArg("dx", 2.0), IntArg("dim", 0)}, {{"r", kF32, {4}}},
                  {"Slice", "Slice", "Add", "Mul", "Div", "CumSum"}),
      OneNodeCase("logspace", {}, "logspace.default",
                  {FloatArg("start", -1.0), FloatArg("end", 2.0), IntArg("steps", 5), FloatArg("base", 2.0)},
                  {{"r", kF32, {5}}},
                  {"Range", "Sub", "Sub", "Div", "Cast", "Mul", "Add", "Cast", "Mul", "Sub", "Less", "Where",
                   "Cast", "Pow", "Cast"}),
      OneNodeCase("logspace_one_step_int64", {}, "logspace.default",
                  {FloatArg("start", 1.0), FloatArg("end", 2.0), IntArg("steps", 1), DtypeArg("dtype", kI64)},
                  {{"r", kI64, {1}}}, {"Cast", "Cast", "Reshape", "Pow", "Cast"}),
      OneNodeCase("logspace_tensors", {{"a", kF32, {}}, {"b", kF32, {}}}, "logspace.Tensor_Tensor",
                  {TensorArg("start", "a"), TensorArg("end", "b"), IntArg("steps", 4)}, {{"r", kF32, {4}}},
                  {"Range", "Sub", "Sub", "Div", "Cast", "Mul", "Add", "Cast", "Mul", "Sub", "Less", "Where",
                   "Cast", "Pow", "Cast"}),
  };
}

INSTANTIATE_TEST_SUITE_P(Integration, IntegrationTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; });

TEST(Integration, Refusals) {
  EXPECT_TRUE(Rejects({"scalar_y",
                       OneNodeProgram({{"y", kF32, {}}, {"x", kF32, {}}}, "trapezoid.x",
                                      {TensorArg("y", "y"), TensorArg("x", "x")}, {{"r", kF32, {}}}),
                       absl::StatusCode::kInvalidArgument, "at least one dimension"}));
  EXPECT_TRUE(Rejects({"x_rank_above_y",
                       OneNodeProgram({{"y", kF32, {4}}, {"x", kF32, {2, 4}}}, "trapezoid.x",
                                      {TensorArg("y", "y"), TensorArg("x", "x")}, {{"r", kF32, {2}}}),
                       absl::StatusCode::kInvalidArgument, "x has 2 dims"}));
  EXPECT_TRUE(Rejects({"negative_steps",
                       OneNodeProgram({}, "logspace.default",
                                      {FloatArg("start", 0), FloatArg("end", 1), IntArg("steps", -2)},
                                      {{"r", kF32, {0}}}),
                       absl::StatusCode::kInvalidArgument, "non-negative"}));
  EXPECT_TRUE(Rejects({"non_scalar_bound",
                       OneNodeProgram({{"a", kF32, {2}}, {"b", kF32, {}}}, "logspace.Tensor_Tensor",
                                      {TensorArg("start", "a"), TensorArg("end", "b"), IntArg("steps", 3)},
                                      {{"r", kF32, {3}}}),
                       absl::StatusCode::kInvalidArgument, "0-dimensional"}));
}

}  // namespace
}  // namespace pt2onnx::testing
