// Tests for ops/weight_norm.cc: shapes, dim = -1 (whole-tensor norm) and an
// out-of-range dim; renorm's p and maxnorm checks. Numerics:
// tests/fixtures/ops/{weight_norm,renorm}.
#include <limits>
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

ProgramBuilder Renorm(double p, int64_t dim, double maxnorm, std::vector<int64_t> shape = {4, 3, 2}) {
  return OneNodeProgram({{"x", kF32, shape}}, "renorm.default",
                        {TensorArg("self", "x"), FloatArg("p", p), IntArg("dim", dim), FloatArg("maxnorm", maxnorm)},
                        {{"y", kF32, shape}});
}

TEST(Renorm, ConvertsForEveryKindOfP) {
  for (double p : {1.0, 2.0, 3.0, std::numeric_limits<double>::infinity()}) {
    pt2::ExportedProgram program = Renorm(p, -1, 0.5).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << p << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << p;
  }
}

TEST(Renorm, BadArgumentsAreRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Renorm(0, 0, 1).Build()), absl::StatusCode::kInvalidArgument,
                        "non-positive-norm"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Renorm(2, 0, -1).Build()), absl::StatusCode::kInvalidArgument,
                        "maxnorm to be >= 0"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Renorm(2, 0, 1, {5}).Build()), absl::StatusCode::kInvalidArgument,
                        "at least 2 dimensions"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Renorm(2, 3, 1).Build()), absl::StatusCode::kInvalidArgument, "dim"));
}

}  // namespace
}  // namespace pt2onnx::testing
