// Tests for ops/bit_shift.cc: left and right shifts of every integer width
// convert (checker + shape inference) through the unsigned BitShift, in
// each overload; floats are refused. Numerics (negative values, amounts of
// the width or more): tests/fixtures/ops/bit_shifts.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Shift(std::string overload, DataType dtype) {
  return OneNodeProgram({{"a", dtype, {2, 3}}, {"b", dtype, {3}}}, overload,
                        {TensorArg("self", "a"), TensorArg("other", "b")}, {{"y", dtype, {2, 3}}})
      .Build();
}

TEST(BitShift, EveryIntegerWidthConverts) {
  for (std::string overload : {"bitwise_left_shift.Tensor", "bitwise_right_shift.Tensor",
                               "bitwise_left_shift_.Tensor", "__rshift__.Tensor", "__lshift__.Tensor"}) {
    for (DataType dtype : {DataType::kInt8, DataType::kUint8, DataType::kInt16, kI32, kI64}) {
      pt2::ExportedProgram program = Shift(overload, dtype);
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << overload << " " << DataTypeName(dtype) << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
      EXPECT_NE(FindNode(got->model, "BitShift"), nullptr) << overload;
    }
  }
}

TEST(BitShift, ScalarOverloads) {
  pt2::ExportedProgram tensor_scalar =
      OneNodeProgram({{"a", kI64, {4}}}, "bitwise_right_shift.Tensor_Scalar",
                     {TensorArg("self", "a"), IntArg("other", 3)}, {{"y", kI64, {4}}})
          .Build();
  pt2::ExportedProgram scalar_tensor =
      OneNodeProgram({{"b", kI32, {4}}}, "bitwise_left_shift.Scalar_Tensor",
                     {IntArg("self", 5), TensorArg("other", "b")}, {{"y", kI32, {4}}})
          .Build();
  for (const auto& program : {tensor_scalar, scalar_tensor}) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(BitShift, FloatsAreRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Shift("bitwise_left_shift.Tensor", kF32)),
                        absl::StatusCode::kInvalidArgument, "integers only"));
}

}  // namespace
}  // namespace pt2onnx::testing
