// Tests for ops/block_products.cc: block_diag of 2-d, 1-d and 0-d blocks
// (promoted), cartesian_prod of two and three vectors and of one (returned
// as is), linalg_vander (N given and defaulted, int32 to int64); other ranks
// and N <= 1 are refused. Numerics: tests/fixtures/ops/block_products.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Listed(const std::string& overload, std::vector<TensorSpec> inputs, TensorSpec out) {
  std::vector<std::string> names;
  for (const TensorSpec& t : inputs) names.push_back(t.name);
  return OneNodeProgram(inputs, overload, {TensorsArg("tensors", names)}, {out}).Build();
}

TEST(BlockProducts, Shapes) {
  const std::vector<pt2::ExportedProgram> programs = {
      Listed("block_diag.default", {{"a", kF32, {2, 3}}, {"b", kI64, {4}}, {"c", kF32, {}}}, {"y", kF32, {4, 8}}),
      Listed("block_diag.default", {{"a", kBool, {2, 2}}}, {"y", kBool, {2, 2}}),
      Listed("cartesian_prod.default", {{"a", kF32, {2}}, {"b", kF32, {3}}}, {"y", kF32, {6, 2}}),
      Listed("cartesian_prod.default", {{"a", kI64, {2}}, {"b", kI64, {3}}, {"c", kI64, {0}}}, {"y", kI64, {0, 3}}),
      Listed("cartesian_prod.default", {{"a", kF32, {4}}}, {"y", kF32, {4}}),
      OneNodeProgram({{"x", kF32, {2, 3}}}, "linalg_vander.default", {TensorArg("x", "x")}, {{"y", kF32, {2, 3, 3}}})
          .Build(),
      OneNodeProgram({{"x", kI32, {}}}, "linalg_vander.default", {TensorArg("x", "x"), IntArg("N", 4)},
                     {{"y", kI64, {1, 4}}})
          .Build(),
  };
  for (const auto& program : programs) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

TEST(BlockProducts, Refusals) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Listed("block_diag.default", {{"a", kF32, {1, 2, 2}}}, {"y", kF32, {2, 2}})),
                        absl::StatusCode::kInvalidArgument, "at most 2"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Listed("cartesian_prod.default", {{"a", kF32, {2, 2}}, {"b", kF32, {2}}},
                                               {"y", kF32, {8, 2}})),
                        absl::StatusCode::kInvalidArgument, "expects 1-d tensors"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3}}}, "linalg_vander.default",
                                                       {TensorArg("x", "x"), IntArg("N", 1)}, {{"y", kF32, {3, 1}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "N must be greater than 1"));
}

}  // namespace
}  // namespace pt2onnx::testing
