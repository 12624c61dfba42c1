// Tests for ops/modified_bessel.cc: special_i1 (= special_modified_bessel_i1),
// special_i1e, special_modified_bessel_k0 / _k1 and the scaled K forms
// convert (checker + shape inference) with float32, float64 and int64
// inputs, computed in float64 and rounded once; integer results are refused.
// i0 / i0e: tests/ops/special_functions_test.cc. Numerics against torch: the
// OpInfo samples (tests/fixtures/opinfo/special.*bessel_[ik]*, special.i1*).
#include <string>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Unary(const std::string& overload, const std::string& arg, DataType in, DataType out) {
  return OneNodeProgram({{"a", in, {2, 3}}}, overload, {TensorArg(arg, "a")}, {{"y", out, {2, 3}}}).Build();
}

TEST(ModifiedBessel, EveryOverloadConverts) {
  for (const char* name : {"i1", "i1e", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"}) {
    const std::string overload = std::string("special_") + name + ".default";
    const std::string arg = std::string(name).rfind("scaled", 0) == 0 ? "x" : "self";
    for (DataType in : {kF32, kF64, kI64}) {
      DataType out = in == kF64 ? kF64 : kF32;
      pt2::ExportedProgram program = Unary(overload, arg, in, out);
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
      // The series split by Where; float64 inside, one Cast to float32 out.
      EXPECT_NE(FindNode(got->model, "Where"), nullptr) << overload;
    }
  }
}

TEST(ModifiedBessel, IntegerResultRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("special_modified_bessel_k0.default", "self", kI64, kI64)),
                        absl::StatusCode::kUnimplemented, "int64 result"));
}

}  // namespace
}  // namespace pt2onnx::testing
