// Tests for ops/special_math.cc: the inverse hyperbolic functions map to their
// ONNX operators, the composites convert (checker + shape inference) for
// float16, float32 and integer inputs with the dtypes torch gives. Numerics:
// tests/fixtures/ops/inverse_hyperbolic, special, zeta_polygamma.
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

pt2::ExportedProgram Unary(std::string overload, DataType in, DataType out) {
  return OneNodeProgram({{"x", in, {2, 3}}}, overload, {TensorArg("self", "x")},
                        {{"y", out, {2, 3}}})
      .Build();
}

TEST(InverseHyperbolic, MapToOnnxOperators) {
  for (auto [overload, op] : std::vector<std::pair<std::string, std::string>>{
           {"acosh.default", "Acosh"}, {"asinh_.default", "Asinh"}, {"atanh.default", "Atanh"}}) {
    pt2::ExportedProgram program = Unary(overload, kF32, kF32);
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
    EXPECT_TRUE(OpTypesAre(got->model, {op})) << overload;
  }
}

TEST(SpecialFunctions, ConvertWithTorchsDtypes) {
  for (std::string overload : {"erfinv.default", "lgamma.default", "digamma_.default"}) {
    for (auto [in, out] : std::vector<std::pair<DataType, DataType>>{
             {kF32, kF32}, {kF16, kF16}, {kI64, kF32}, {kF64, kF64}}) {
      for (int opset : {18, 20}) {
        pt2::ExportedProgram program = Unary(overload, in, out);
        absl::StatusOr<Converted> got = ConvertAndCheck(program, opset);
        ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
        EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
      }
    }
  }
}

TEST(SpecialFunctions, ZetaPolygammaMvlgammaConvert) {
  std::vector<pt2::ExportedProgram> programs = {
      OneNodeProgram({{"x", kF32, {2, 3}}, {"q", kF32, {3}}}, "special_zeta.default",
                     {TensorArg("self", "x"), TensorArg("other", "q")}, {{"y", kF32, {2, 3}}})
          .Build(),
      OneNodeProgram({{"q", kF32, {3}}}, "special_zeta.self_scalar", {FloatArg("self", 2.0), TensorArg("other", "q")},
                     {{"y", kF32, {3}}})
          .Build(),
      OneNodeProgram({{"x", kI64, {3}}}, "special_zeta.other_scalar", {TensorArg("self", "x"), FloatArg("other", 1.5)},
                     {{"y", kF32, {3}}})
          .Build(),
      OneNodeProgram({{"x", kF32, {2, 3}}}, "polygamma.default", {IntArg("n", 2), TensorArg("self", "x")},
                     {{"y", kF32, {2, 3}}})
          .Build(),
      OneNodeProgram({{"x", kF32, {2, 3}}}, "special_polygamma.default", {IntArg("n", 0), TensorArg("self", "x")},
                     {{"y", kF32, {2, 3}}})
          .Build(),
      OneNodeProgram({{"x", kF32, {2, 3}}}, "mvlgamma.default", {TensorArg("self", "x"), IntArg("p", 3)},
                     {{"y", kF32, {2, 3}}})
          .Build(),
  };
  for (const pt2::ExportedProgram& program : programs) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(SpecialFunctions, BadOrdersAreRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3}}}, "polygamma.default",
                                                       {IntArg("n", -1), TensorArg("self", "x")}, {{"y", kF32, {3}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "negative n"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3}}}, "mvlgamma.default",
                                                       {TensorArg("self", "x"), IntArg("p", 0)}, {{"y", kF32, {3}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "greater than or equal to 1"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3}}}, "mvlgamma.default",
                                                       {TensorArg("self", "x"), IntArg("p", 1000000)},
                                                       {{"y", kF32, {3}}})
                                            .Build()),
                        absl::StatusCode::kUnimplemented, "at most 64"));
}

TEST(SpecialFunctions, IntegerResultIsRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("lgamma.default", kI64, kI64)),
                        absl::StatusCode::kUnimplemented, "int64 result"));
}

}  // namespace
}  // namespace pt2onnx::testing
