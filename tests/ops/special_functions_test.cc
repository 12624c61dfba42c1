// Tests for ops/special_functions.cc: i0, special_modified_bessel_i0,
// special_i0e, special_erfcx, special_ndtr, special_ndtri, special_log_ndtr,
// special_entr and special_xlog1py (three overloads) convert (checker + shape inference) with
// float, int64 and symbolic inputs; the series run in float64 and are
// rounded once. Numerics (tails, +-inf, NaN, overflow): the fixture
// tests/fixtures/ops/special_functions.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Unary(const std::string& overload, DataType in, std::vector<std::string> symbolic = {}) {
  return OneNodeProgram({{"a", in, {2, 3}, symbolic}}, overload, {TensorArg("self", "a")},
                        {{"y", kF32, {2, 3}, symbolic}})
      .Build();
}

TEST(TorchSpecial, EveryUnaryOverloadConverts) {
  for (const char* overload : {"i0.default", "special_modified_bessel_i0.default", "special_i0e.default",
                               "special_erfcx.default", "special_ndtr.default", "special_log_ndtr.default",
                               "special_ndtri.default", "special_entr.default"}) {
    for (DataType in : {kF32, kI64}) {
      pt2::ExportedProgram program = Unary(overload, in);
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
      // Special values chosen by Where (float64 series rounded once; entr in the input's precision).
      EXPECT_NE(FindNode(got->model, "Where"), nullptr) << overload;
    }
    pt2::ExportedProgram symbolic = Unary(overload, kF32, {"s0", ""});
    absl::StatusOr<Converted> got = ConvertAndCheck(symbolic);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(symbolic, *got)) << overload;
  }
}

TEST(TorchSpecial, Xlog1pyOverloads) {
  pt2::ExportedProgram tensors =
      OneNodeProgram({{"a", kF32, {2, 3}}, {"b", kF32, {3}}}, "special_xlog1py.default",
                     {TensorArg("self", "a"), TensorArg("other", "b")}, {{"y", kF32, {2, 3}}})
          .Build();
  pt2::ExportedProgram self_scalar =
      OneNodeProgram({{"b", kF32, {4}}}, "special_xlog1py.self_scalar",
                     {FloatArg("self", 2.0), TensorArg("other", "b")}, {{"y", kF32, {4}}})
          .Build();
  pt2::ExportedProgram other_scalar =
      OneNodeProgram({{"a", kI64, {4}}}, "special_xlog1py.other_scalar",
                     {TensorArg("self", "a"), FloatArg("other", 0.5)}, {{"y", kF32, {4}}})
          .Build();
  for (const auto& program : {tensors, self_scalar, other_scalar}) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    EXPECT_NE(FindNode(got->model, "IsNaN"), nullptr);
  }
}

TEST(TorchSpecial, IntegerResultRefused) {
  pt2::ExportedProgram program = OneNodeProgram({{"a", kI64, {3}}}, "special_erfcx.default",
                                                {TensorArg("self", "a")}, {{"y", kI64, {3}}})
                                     .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented, "int64 result"));
}

}  // namespace
}  // namespace pt2onnx::testing
