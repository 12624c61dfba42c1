// Tests for ops/float_representation.cc: nextafter (float32, float64,
// broadcasting) and frexp.Tensor (mantissa in the input dtype, int32
// exponent) convert (checker + shape inference); float16 is refused (the
// step depends on the mantissa width); hash_tensor converts from opset 26. Bit-exact results against torch: the
// OpInfo samples (tests/fixtures/opinfo/nextafter, frexp).
#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(FloatRepresentation, NextafterConverts) {
  for (DataType dtype : {kF32, kF64}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"a", dtype, {3, 1}}, {"b", dtype, {4}}}, "nextafter.default",
                       {TensorArg("self", "a"), TensorArg("other", "b")}, {{"y", dtype, {3, 4}}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    EXPECT_NE(FindNode(got->model, "Pow"), nullptr);
  }
}

TEST(FloatRepresentation, FrexpConverts) {
  for (DataType dtype : {kF32, kF64}) {
    pt2::ExportedProgram program = OneNodeProgram({{"a", dtype, {2, 3}}}, "frexp.Tensor", {TensorArg("self", "a")},
                                                  {{"mantissa", dtype, {2, 3}}, {"exponent", kI32, {2, 3}}})
                                       .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(FloatRepresentation, HalfRefused) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"a", kF16, {3}}, {"b", kF16, {3}}}, "nextafter.default",
                     {TensorArg("self", "a"), TensorArg("other", "b")}, {{"y", kF16, {3}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented, "mantissa width"));
}

// hash_tensor reads raw bits: BitCast from opset 26, refused below naming it.
// Bit-exact hashes against torch: the ops/hash_tensor fixture.
TEST(FloatRepresentation, HashTensorNeedsOpset26) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"a", kF32, {3}}}, "hash_tensor.default", {TensorArg("self", "a")},
                     {{"h", DataType::kUint64, {}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program, 23), absl::StatusCode::kUnimplemented, "--opset 26"));
  absl::StatusOr<Converted> got = ConvertAndCheck(program, 26);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_NE(FindNode(got->model, "BitCast"), nullptr);
}

}  // namespace
}  // namespace pt2onnx::testing
