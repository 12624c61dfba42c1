// Tests for ops/orthogonal_polynomials.cc: every overload (tensor, x_scalar,
// n_scalar) of the twelve polynomials converts (checker + strict shape
// inference) with float32, float64 and int64 operands, broadcasting x
// against n; the recurrence is one Loop whose trip count comes from the
// data; integer results are refused. Numerics against torch: the OpInfo
// samples (tests/fixtures/opinfo/special.*_polynomial_*).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

const std::vector<std::string>& Names() {
  static const std::vector<std::string>* const kNames = new std::vector<std::string>{
      "chebyshev_polynomial_t",         "chebyshev_polynomial_u",         "chebyshev_polynomial_v",
      "chebyshev_polynomial_w",         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
      "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
      "hermite_polynomial_he",          "laguerre_polynomial_l",          "legendre_polynomial_p"};
  return *kNames;
}

void ExpectConvertsWithLoop(const pt2::ExportedProgram& program, const std::string& what) {
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << what << ": " << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got)) << what;
  const ir::Node* loop = FindNode(got->model, "Loop");
  ASSERT_NE(loop, nullptr) << what;
  EXPECT_FALSE(loop->inputs[0].empty()) << what << ": the trip count is the largest degree";
}

TEST(OrthogonalPolynomials, TensorOverloadsBroadcastAndConvert) {
  for (const std::string& name : Names()) {
    for (DataType dtype : {kF32, kF64}) {
      pt2::ExportedProgram program =
          OneNodeProgram({{"x", dtype, {3, 1}}, {"n", dtype, {4}}}, "special_" + name + ".default",
                         {TensorArg("x", "x"), TensorArg("n", "n")}, {{"y", dtype, {3, 4}}})
              .Build();
      ExpectConvertsWithLoop(program, name);
    }
    pt2::ExportedProgram ints =
        OneNodeProgram({{"x", kI64, {5}}, {"n", kI64, {5}}}, "special_" + name + ".default",
                       {TensorArg("x", "x"), TensorArg("n", "n")}, {{"y", kF32, {5}}})
            .Build();
    ExpectConvertsWithLoop(ints, name + " (int64)");
  }
}

TEST(OrthogonalPolynomials, ScalarOverloadsConvert) {
  for (const std::string& name : Names()) {
    pt2::ExportedProgram n_scalar =
        OneNodeProgram({{"x", kF32, {2, 3}}}, "special_" + name + ".n_scalar",
                       {TensorArg("x", "x"), FloatArg("n", 5)}, {{"y", kF32, {2, 3}}})
            .Build();
    ExpectConvertsWithLoop(n_scalar, name + ".n_scalar");
    pt2::ExportedProgram x_scalar =
        OneNodeProgram({{"n", kF32, {4}}}, "special_" + name + ".x_scalar",
                       {FloatArg("x", 0.25), TensorArg("n", "n")}, {{"y", kF32, {4}}})
            .Build();
    ExpectConvertsWithLoop(x_scalar, name + ".x_scalar");
  }
}

TEST(OrthogonalPolynomials, ChebyshevUsesTorchsClosedFormInFloat32Only) {
  auto program = [](DataType dtype) {
    return OneNodeProgram({{"x", dtype, {4}}, {"n", dtype, {4}}}, "special_chebyshev_polynomial_t.default",
                          {TensorArg("x", "x"), TensorArg("n", "n")}, {{"y", dtype, {4}}})
        .Build();
  };
  absl::StatusOr<Converted> f32 = ConvertAndCheck(program(kF32));
  ASSERT_TRUE(f32.ok()) << f32.status();
  EXPECT_NE(FindNode(f32->model, "Acos"), nullptr);
  // ONNX Runtime has no float64 Acos / Cos: float64 keeps to the recurrence.
  absl::StatusOr<Converted> f64 = ConvertAndCheck(program(kF64));
  ASSERT_TRUE(f64.ok()) << f64.status();
  EXPECT_EQ(FindNode(f64->model, "Acos"), nullptr);
}

TEST(OrthogonalPolynomials, IntegerResultRefused) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kI64, {3}}, {"n", kI64, {3}}}, "special_legendre_polynomial_p.default",
                     {TensorArg("x", "x"), TensorArg("n", "n")}, {{"y", kI64, {3}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented, "int64 result"));
}

}  // namespace
}  // namespace pt2onnx::testing
