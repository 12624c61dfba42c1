// Tests for ops/distance.cc: the matrix-product form of cdist is chosen as
// torch chooses it, and a negative p is refused. Numerics:
// tests/fixtures/ops/{cdist,pdist}*.
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

}  // namespace
}  // namespace pt2onnx::testing
