// Tests for ops/bessel.cc: special_bessel_j0, _j1, _y0, _y1,
// special_spherical_bessel_j0 and special_airy_ai convert (checker + shape inference) with
// float32, float64 and int64 inputs; float32 is computed in float32 as
// torch does (Cos), float64 in float64 (cosines as shifted sines); integer
// results are refused. Numerics against torch: the OpInfo samples
// (tests/fixtures/opinfo/special.bessel_*).
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

TEST(Bessel, EveryOverloadConverts) {
  for (const char* name : {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "spherical_bessel_j0", "airy_ai"}) {
    const std::string overload = std::string("special_") + name + ".default";
    const std::string arg = std::string(name).rfind("bessel", 0) == 0 ? "self" : "x";
    for (DataType in : {kF32, kF64, kI64}) {
      DataType out = in == kF64 ? kF64 : kF32;
      pt2::ExportedProgram program = Unary(overload, arg, in, out);
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
      EXPECT_NE(FindNode(got->model, "Sin"), nullptr) << overload;
      const bool has_cosine = arg == "self" || std::string(name) == "airy_ai";
      EXPECT_EQ(FindNode(got->model, "Cos") != nullptr, out == kF32 && has_cosine) << overload;
    }
  }
}

TEST(Bessel, IntegerResultRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("special_bessel_j0.default", "self", kI64, kI64)),
                        absl::StatusCode::kUnimplemented, "int64 result"));
}

}  // namespace
}  // namespace pt2onnx::testing
