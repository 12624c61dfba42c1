// Tests for ops/number_theory.cc and ops/triangle_indices.cc: gcd / lcm
// convert to one Loop for every integer dtype (floats refused);
// tril_indices / triu_indices are constants. Values against torch: the
// ops/gcd_lcm and ops/triangle_indices fixtures and the OpInfo samples.
#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(NumberTheory, GcdAndLcmAreOneLoopEach) {
  for (const char* op : {"gcd.default", "lcm.default"}) {
    for (DataType dtype : {DataType::kInt8, DataType::kUint8, DataType::kInt16, kI32, kI64}) {
      pt2::ExportedProgram program =
          OneNodeProgram({{"a", dtype, {3, 1}}, {"b", dtype, {4}}}, op,
                         {TensorArg("self", "a"), TensorArg("other", "b")}, {{"y", dtype, {3, 4}}})
              .Build();
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << op << " " << DataTypeName(dtype) << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << op << " " << DataTypeName(dtype);
      EXPECT_NE(FindNode(got->model, "Loop"), nullptr);
    }
  }
}

TEST(NumberTheory, FloatsRefused) {
  pt2::ExportedProgram program = OneNodeProgram({{"a", kF32, {3}}, {"b", kF32, {3}}}, "gcd.default",
                                                {TensorArg("self", "a"), TensorArg("other", "b")}, {{"y", kF32, {3}}})
                                     .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented, "integers"));
}

TEST(TriangleIndices, ConstantsOfTheRequestedDtype) {
  pt2::ExportedProgram program =
      OneNodeProgram({}, "tril_indices.default", {IntArg("row", 3), IntArg("col", 4), IntArg("offset", 1)},
                     {{"y", kI64, {2, 9}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  pt2::ExportedProgram upper =
      OneNodeProgram({}, "triu_indices.default",
                     {IntArg("row", 3), IntArg("col", 5), IntArg("offset", 2), DtypeArg("dtype", kI32)},
                     {{"y", kI32, {2, 6}}})
          .Build();
  got = ConvertAndCheck(upper);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(upper, *got));
}

}  // namespace
}  // namespace pt2onnx::testing
