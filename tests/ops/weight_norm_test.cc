// Tests for ops/weight_norm.cc: shapes, dim = -1 (whole-tensor norm) and an
// out-of-range dim. Numerics: tests/fixtures/ops/weight_norm.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder WeightNorm(int64_t dim, std::vector<int64_t> g) {
  return OneNodeProgram({{"v", kF32, {4, 3, 2}}, {"g", kF32, g}}, "_weight_norm.default",
                        {TensorArg("v", "v"), TensorArg("g", "g"),
                         IntArg("dim", dim)}, {{"y", kF32, {4, 3, 2}}});
}

TEST(WeightNorm, ConvertsWithInferredShapes) {
  for (auto [dim, g] : std::vector<std::pair<int64_t, std::vector<int64_t>>>{
           {0, {4, 1, 1}}, {2, {1, 1, 2}}, {-1, {}}}) {
    pt2::ExportedProgram program = WeightNorm(dim, g).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(WeightNorm, DimOutOfRangeIsRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(WeightNorm(3, {1, 1, 1}).Build()),
                        absl::StatusCode::kInvalidArgument,
                        "dim of aten::_weight_norm"));
}

}  // namespace
}  // namespace pt2onnx::testing
