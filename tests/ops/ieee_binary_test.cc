// Tests for ops/ieee_binary.cc: fmax / fmin (NaN-ignoring, integers as plain
// Max / Min), copysign, hypot, ldexp and float_power convert (checker + shape
// inference) in each overload; what ONNX cannot hold is refused. Numerics
// (NaN on either side, -0.0, 3e30): tests/fixtures/ops/ieee_binary.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Binary(const std::string& overload, DataType in, DataType out,
                            const std::string& other = "other") {
  return OneNodeProgram({{"a", in, {2, 3}}, {"b", in, {3}}}, overload,
                        {TensorArg("self", "a"), TensorArg(other, "b")}, {{"y", out, {2, 3}}})
      .Build();
}

TEST(IeeeBinary, EveryTensorOverloadConverts) {
  for (const char* overload : {"fmax.default", "fmin.default", "copysign.Tensor", "hypot.default", "ldexp.Tensor"}) {
    pt2::ExportedProgram program = Binary(overload, kF32, kF32);
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
  }
  pt2::ExportedProgram power = Binary("float_power.Tensor_Tensor", kF32, DataType::kDouble, "exponent");
  absl::StatusOr<Converted> got = ConvertAndCheck(power);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(power, *got));
  EXPECT_NE(FindNode(got->model, "Pow"), nullptr);
}

// Integers have no NaN: fmax is Max, nothing else.
TEST(IeeeBinary, IntegerFmaxIsMax) {
  absl::StatusOr<Converted> got = ConvertAndCheck(Binary("fmax.default", kI64, kI64));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OpTypesAre(got->model, {"Max"}));
}

TEST(IeeeBinary, ScalarOverloads) {
  pt2::ExportedProgram copysign =
      OneNodeProgram({{"a", kF32, {4}}}, "copysign.Scalar", {TensorArg("self", "a"), FloatArg("other", -2.0)},
                     {{"y", kF32, {4}}})
          .Build();
  pt2::ExportedProgram power =
      OneNodeProgram({{"b", kF32, {4}}}, "float_power.Scalar", {FloatArg("self", 1.5), TensorArg("exponent", "b")},
                     {{"y", DataType::kDouble, {4}}})
          .Build();
  for (const auto& program : {copysign, power}) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(IeeeBinary, Refusals) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Binary("fmax.default", DataType::kBool, DataType::kBool)),
                        absl::StatusCode::kUnimplemented, "bool operands"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Binary("hypot.default", kI64, kI64)), absl::StatusCode::kInvalidArgument,
                        "hypot of integer tensors"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Binary("float_power.Tensor_Tensor", kF32, kF32, "exponent")),
                        absl::StatusCode::kInvalidArgument, "float_power's result is float64"));
}

}  // namespace
}  // namespace pt2onnx::testing
