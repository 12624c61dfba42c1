// Tests for the unrolled linear solvers (ops/linalg_solve.cc, linalg_lu.cc,
// linalg_cholesky.cc, linalg_tensor_solve.cc, linalg_householder.cc on
// linalg_unrolled_helpers):
// batched and broadcast programs convert with the FX shapes and dtypes
// inferred, and the refusals (symbolic or too large matrices, LU without
// pivoting). Numerics: the OpInfo samples
// (tests/fixtures/opinfo) and the reference kernel tests.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr DataType kF64 = DataType::kDouble;

TEST(LinalgSolvers, ConvertWithInferredShapes) {
  const TensorSpec a{"a", kF32, {2, 4, 4}};
  std::vector<ProgramBuilder> programs = {
      OneNodeProgram({a}, "linalg_inv_ex.default", {TensorArg("A", "a")},
                     {{"y", kF32, {2, 4, 4}}, {"info", kI32, {2}}}),
      // B broadcasts over A's batch; a vector B of A's shape minus a dim.
      OneNodeProgram({a, {"b", kF32, {4, 3}}}, "linalg_solve.default",
                     {TensorArg("A", "a"), TensorArg("B", "b")}, {{"y", kF32, {2, 4, 3}}}),
      OneNodeProgram({a, {"b", kF32, {2, 4}}}, "linalg_solve_ex.default",
                     {TensorArg("A", "a"), TensorArg("B", "b")},
                     {{"y", kF32, {2, 4}}, {"info", kI32, {2}}}),
      OneNodeProgram({a, {"b", kF32, {2, 3, 4}}}, "linalg_solve.default",
                     {TensorArg("A", "a"), TensorArg("B", "b"), BoolArg("left", false)},
                     {{"y", kF32, {2, 3, 4}}}),
      OneNodeProgram({{"a", kF64, {3, 3}}}, "linalg_slogdet.default", {TensorArg("A", "a")},
                     {{"s", kF64, {}}, {"l", kF64, {}}}),
      OneNodeProgram({a}, "logdet.default", {TensorArg("self", "a")}, {{"y", kF32, {2}}}),
      OneNodeProgram({{"a", kF32, {1, 4, 4}}, {"b", kF32, {3, 4, 2}}},
                     "linalg_solve_triangular.default",
                     {TensorArg("self", "a"), TensorArg("B", "b"), BoolArg("upper", true),
                      BoolArg("left", true), BoolArg("unitriangular", false)},
                     {{"y", kF32, {3, 4, 2}}}),
      OneNodeProgram({{"b", kF32, {2, 4, 1}}, {"a", kF32, {4, 4}}}, "triangular_solve.default",
                     {TensorArg("self", "b"), TensorArg("A", "a"), BoolArg("upper", false),
                      BoolArg("transpose", true), BoolArg("unitriangular", false)},
                     {{"x", kF32, {2, 4, 1}}, {"c", kF32, {2, 4, 4}}}),
      OneNodeProgram({a}, "linalg_matrix_power.default", {TensorArg("self", "a"), IntArg("n", -3)},
                     {{"y", kF32, {2, 4, 4}}}),
      OneNodeProgram({{"x", kF32, {3}}, {"m", kF32, {3, 5}}, {"k", kF32, {5, 2}}, {"z", kF32, {2}}},
                     "linalg_multi_dot.default", {TensorsArg("tensors", {"x", "m", "k", "z"})},
                     {{"y", kF32, {}}}),
      OneNodeProgram({{"a", kF32, {2, 3, 5}}}, "linalg_lu_factor_ex.default",
                     {TensorArg("A", "a")},
                     {{"lu", kF32, {2, 3, 5}}, {"p", kI32, {2, 3}}, {"i", kI32, {2}}}),
      OneNodeProgram({{"a", kF32, {2, 5, 3}}}, "linalg_lu.default", {TensorArg("A", "a")},
                     {{"p", kF32, {2, 5, 5}}, {"l", kF32, {2, 5, 3}}, {"u", kF32, {2, 3, 3}}}),
      OneNodeProgram({{"lu", kF32, {2, 4, 4}}, {"piv", kI32, {2, 4}}}, "lu_unpack.default",
                     {TensorArg("LU_data", "lu"), TensorArg("LU_pivots", "piv")},
                     {{"p", kF32, {2, 4, 4}}, {"l", kF32, {2, 4, 4}}, {"u", kF32, {2, 4, 4}}}),
      OneNodeProgram({{"lu", kF32, {4, 4}}, {"piv", kI32, {4}}, {"b", kF32, {2, 4, 3}}},
                     "linalg_lu_solve.default",
                     {TensorArg("LU", "lu"), TensorArg("pivots", "piv"), TensorArg("B", "b"),
                      BoolArg("adjoint", true)},
                     {{"y", kF32, {2, 4, 3}}}),
      OneNodeProgram({a}, "linalg_cholesky_ex.default",
                     {TensorArg("self", "a"), BoolArg("upper", true)},
                     {{"l", kF32, {2, 4, 4}}, {"info", kI32, {2}}}),
      OneNodeProgram({{"b", kF32, {4, 2}}, a}, "cholesky_solve.default",
                     {TensorArg("self", "b"), TensorArg("input2", "a")}, {{"y", kF32, {2, 4, 2}}}),
      OneNodeProgram({a}, "cholesky_inverse.default", {TensorArg("self", "a")},
                     {{"y", kF32, {2, 4, 4}}}),
      OneNodeProgram({{"a", kF32, {2, 6, 4}}, {"tau", kF32, {2, 3}}},
                     "linalg_householder_product.default",
                     {TensorArg("input", "a"), TensorArg("tau", "tau")}, {{"q", kF32, {2, 6, 4}}}),
      OneNodeProgram({{"a", kF32, {2, 6, 4}}}, "geqrf.default", {TensorArg("self", "a")},
                     {{"a2", kF32, {2, 6, 4}}, {"tau", kF32, {2, 4}}}),
      OneNodeProgram({{"a", kF32, {6, 4}}}, "linalg_qr.default",
                     {TensorArg("A", "a"), StringArg("mode", "complete")},
                     {{"q", kF32, {6, 6}}, {"r", kF32, {6, 4}}}),
      OneNodeProgram({{"a", kF32, {3, 4, 6}}}, "linalg_qr.default", {TensorArg("A", "a")},
                     {{"q", kF32, {3, 4, 4}}, {"r", kF32, {3, 4, 6}}}),
      OneNodeProgram({{"v", kF32, {2, 4, 3}}, {"tau", kF32, {2, 3}}, {"c", kF32, {2, 5, 4}}},
                     "ormqr.default",
                     {TensorArg("self", "v"), TensorArg("input2", "tau"), TensorArg("input3", "c"),
                      BoolArg("left", false)},
                     {{"y", kF32, {2, 5, 4}}}),
      OneNodeProgram({{"a", kF32, {2, 3, 6}}}, "linalg_tensorinv.default",
                     {TensorArg("self", "a"), IntArg("ind", 2)}, {{"y", kF32, {6, 2, 3}}}),
  };
  for (size_t i = 0; i < programs.size(); ++i) {
    SCOPED_TRACE(i);
    pt2::ExportedProgram program = programs[i].Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

std::vector<ErrorCase> ErrorCases() {
  return {
      {"inverse_too_large",
       OneNodeProgram({{"a", kF32, {33, 33}}}, "linalg_inv_ex.default", {TensorArg("A", "a")},
                      {{"y", kF32, {33, 33}}, {"info", kI32, {}}}),
       absl::StatusCode::kUnimplemented, "up to 32x32"},
      {"solve_symbolic_size",
       OneNodeProgram({{"a", kF32, {4, 4}, {"s", "s"}}, {"b", kF32, {4, 1}, {"s", ""}}},
                      "linalg_solve.default", {TensorArg("A", "a"), TensorArg("B", "b")},
                      {{"y", kF32, {4, 1}, {"s", ""}}}),
       absl::StatusCode::kUnimplemented, "static matrix dims"},
      {"lu_without_pivoting",
       OneNodeProgram({{"a", kF32, {3, 3}}}, "linalg_lu_factor.default",
                      {TensorArg("A", "a"), BoolArg("pivot", false)},
                      {{"lu", kF32, {3, 3}}, {"p", kI32, {3}}}),
       absl::StatusCode::kUnimplemented, "without pivoting"},
      {"slogdet_not_square",
       OneNodeProgram({{"a", kF32, {3, 4}}}, "linalg_slogdet.default", {TensorArg("A", "a")},
                      {{"s", kF32, {}}, {"l", kF32, {}}}),
       absl::StatusCode::kInvalidArgument, "square"},
      {"cholesky_of_ints",
       OneNodeProgram({{"a", kI64, {3, 3}}}, "linalg_cholesky.default", {TensorArg("self", "a")},
                      {{"l", kI64, {3, 3}}}),
       absl::StatusCode::kUnimplemented, "dtype"},
      {"multi_dot_3d_operand",
       OneNodeProgram({{"x", kF32, {2, 3, 3}}, {"m", kF32, {3, 3}}}, "linalg_multi_dot.default",
                      {TensorsArg("tensors", {"x", "m"})}, {{"y", kF32, {2, 3, 3}}}),
       absl::StatusCode::kInvalidArgument, "2-D"},
      {"tensorinv_too_large",
       OneNodeProgram({{"a", kF32, {6, 6, 36}}}, "linalg_tensorinv.default",
                      {TensorArg("self", "a"), IntArg("ind", 2)}, {{"y", kF32, {36, 6, 6}}}),
       absl::StatusCode::kUnimplemented, "up to 32x32"},
  };
}

using LinalgSolversErrorsTest = ErrorCaseTest;
TEST_P(LinalgSolversErrorsTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }
INSTANTIATE_TEST_SUITE_P(Cases, LinalgSolversErrorsTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

}  // namespace
}  // namespace pt2onnx::testing
