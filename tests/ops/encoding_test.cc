// Tests for ops/encoding.cc (one_hot, eye) and item/_local_scalar_dense
// (conversion.cc): output dtypes and the error paths. Numerics:
// tests/fixtures/ops/one_hot_eye, item (and their _decomp variants).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram OneHot(DataType dtype, int64_t num_classes) {
  return OneNodeProgram({{"i", dtype, {4}}}, "one_hot.default",
                        {TensorArg("self", "i"), IntArg("num_classes", num_classes)},
                        {{"y", kI64, {4, num_classes < 0 ? 3 : num_classes}}})
      .Build();
}

TEST(OneHot, Int64Rows) {
  pt2::ExportedProgram program = OneHot(kI64, 5);
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Range", "Unsqueeze", "Equal", "Cast"}));
}

TEST(OneHot, Errors) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneHot(kI64, -1)), absl::StatusCode::kUnimplemented,
                        "pass num_classes explicitly"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneHot(kI32, 3)), absl::StatusCode::kInvalidArgument,
                        "index tensors"));
}

TEST(Eye, RectangularBool) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Node(Aten("eye.m"), {IntArg("n", 2), IntArg("m", 3), DtypeArg("dtype", kBool)},
                {{"y", kBool, {2, 3}}})
          .Output("y")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(Eye, NegativeSizeIsInvalid) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Node(Aten("eye.default"), {IntArg("n", -2)}, {{"y", kF32, {0, 0}}})
          .Output("y")
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kInvalidArgument,
                        "n must be greater or equal to 0"));
}

TEST(Item, MoreThanOneElementIsInvalid) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("x", kF32, {2})
          .SymNode(Aten("item.default"), {TensorArg("self", "x")}, "item")
          .Output("item")
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kInvalidArgument,
                        "other than one element"));
}

}  // namespace
}  // namespace pt2onnx::testing
