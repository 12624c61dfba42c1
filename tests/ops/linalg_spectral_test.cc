// Tests for the Jacobi eigendecomposition and SVD translations
// (ops/linalg_spectral.cc, linalg_cond.cc, linalg_matrix_exp.cc on
// linalg_spectral_helpers, and the 'nuc' / ord 2 matrix norms of
// det_cross_norm.cc): batched, empty and wide programs convert with the FX
// dtypes and ranks, and the refusals (full_matrices=True needing a
// completion, matrices above the size limit, integer inputs). Numerics: the
// OpInfo samples (tests/fixtures/opinfo) and the reference kernel tests.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr DataType kF64 = DataType::kDouble;

TEST(LinalgSpectral, ConvertWithInferredDtypesAndRanks) {
  const TensorSpec a{"a", kF32, {2, 4, 4}};
  std::vector<ProgramBuilder> programs = {
      OneNodeProgram({a}, "linalg_eigh.default", {TensorArg("self", "a"), StringArg("UPLO", "U")},
                     {{"w", kF32, {2, 4}}, {"v", kF32, {2, 4, 4}}}),
      OneNodeProgram({{"a", kF64, {5, 5}}}, "linalg_eigvalsh.default", {TensorArg("self", "a")},
                     {{"w", kF64, {5}}}),
      OneNodeProgram({{"a", kF32, {0, 0}}}, "linalg_eigh.default", {TensorArg("self", "a")},
                     {{"w", kF32, {0}}, {"v", kF32, {0, 0}}}),
      OneNodeProgram({{"a", kF32, {2, 3, 5}}}, "linalg_svd.default",
                     {TensorArg("A", "a"), BoolArg("full_matrices", false)},
                     {{"u", kF32, {2, 3, 3}}, {"s", kF32, {2, 3}}, {"vh", kF32, {2, 3, 5}}}),
      OneNodeProgram({{"a", kF32, {0, 3}}}, "linalg_svd.default", {TensorArg("A", "a")},
                     {{"u", kF32, {0, 0}}, {"s", kF32, {0}}, {"vh", kF32, {3, 3}}}),
      OneNodeProgram({{"a", kF32, {6, 4}}}, "svd.default", {TensorArg("self", "a")},
                     {{"u", kF32, {6, 4}}, {"s", kF32, {4}}, {"v", kF32, {4, 4}}}),
      OneNodeProgram({{"a", kF32, {6, 4}}}, "svd.default",
                     {TensorArg("self", "a"), BoolArg("compute_uv", false)},
                     {{"u", kF32, {6, 6}}, {"s", kF32, {4}}, {"v", kF32, {4, 4}}}),
      OneNodeProgram({{"a", kF32, {3, 5, 2}}}, "linalg_svdvals.default", {TensorArg("A", "a")},
                     {{"s", kF32, {3, 2}}}),
      OneNodeProgram({{"a", kF32, {5, 3}}}, "linalg_pinv.atol_rtol_tensor", {TensorArg("self", "a")},
                     {{"p", kF32, {3, 5}}}),
      OneNodeProgram({a, {"t", kF32, {}}}, "linalg_pinv.atol_rtol_tensor",
                     {TensorArg("self", "a"), TensorArg("atol", "t"), BoolArg("hermitian", true)},
                     {{"p", kF32, {2, 4, 4}}}),
      OneNodeProgram({a}, "linalg_pinv.atol_rtol_float",
                     {TensorArg("self", "a"), FloatArg("rtol", 0.5)}, {{"p", kF32, {2, 4, 4}}}),
      OneNodeProgram({a}, "pinverse.default", {TensorArg("self", "a")}, {{"p", kF32, {2, 4, 4}}}),
      OneNodeProgram({{"a", kF32, {3, 0}}}, "linalg_pinv.atol_rtol_tensor",
                     {TensorArg("self", "a")}, {{"p", kF32, {0, 3}}}),
      OneNodeProgram({a}, "linalg_matrix_rank.atol_rtol_tensor", {TensorArg("input", "a")},
                     {{"r", kI64, {2}}}),
      OneNodeProgram({a}, "linalg_matrix_rank.default",
                     {TensorArg("self", "a"), FloatArg("tol", 0.1), BoolArg("hermitian", true)},
                     {{"r", kI64, {2}}}),
      OneNodeProgram({a}, "linalg_cond.default", {TensorArg("self", "a")}, {{"c", kF32, {2}}}),
      OneNodeProgram({a}, "linalg_cond.default", {TensorArg("self", "a"), IntArg("p", 1)},
                     {{"c", kF32, {2}}}),
      OneNodeProgram({a}, "linalg_cond.p_str", {TensorArg("self", "a"), StringArg("p", "nuc")},
                     {{"c", kF32, {2}}}),
      OneNodeProgram({{"a", kF32, {4, 2, 3}}}, "linalg_matrix_norm.str_ord",
                     {TensorArg("self", "a"), StringArg("ord", "nuc"), IntsArg("dim", {0, 2}),
                      BoolArg("keepdim", true)},
                     {{"n", kF32, {1, 2, 1}}}),
      OneNodeProgram({a}, "linalg_matrix_norm.default",
                     {TensorArg("self", "a"), IntArg("ord", -2)}, {{"n", kF32, {2}}}),
      OneNodeProgram({a}, "matrix_exp.default", {TensorArg("self", "a")}, {{"e", kF32, {2, 4, 4}}}),
      OneNodeProgram({a}, "linalg_inv.default", {TensorArg("A", "a")}, {{"y", kF32, {2, 4, 4}}}),
  };
  OutputCheckOptions options;
  options.static_dims_may_be_unknown = true;  // the Jacobi Loops keep only ranks
  for (size_t i = 0; i < programs.size(); ++i) {
    SCOPED_TRACE(i);
    pt2::ExportedProgram program = programs[i].Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, options));
  }
}

std::vector<ErrorCase> ErrorCases() {
  return {
      {"full_matrices_needs_completion",
       OneNodeProgram({{"a", kF32, {5, 3}}}, "linalg_svd.default", {TensorArg("A", "a")},
                      {{"u", kF32, {5, 5}}, {"s", kF32, {3}}, {"vh", kF32, {3, 3}}}),
       absl::StatusCode::kUnimplemented, "orthonormal completion"},
      {"eigh_too_large",
       OneNodeProgram({{"a", kF32, {33, 33}}}, "linalg_eigvalsh.default", {TensorArg("self", "a")},
                      {{"w", kF32, {33}}}),
       absl::StatusCode::kUnimplemented, "up to 32x32"},
      {"svdvals_of_ints",
       OneNodeProgram({{"a", kI64, {3, 3}}}, "linalg_svdvals.default", {TensorArg("A", "a")},
                      {{"s", kI64, {3}}}),
       absl::StatusCode::kUnimplemented, "dtype"},
      {"eigh_bad_uplo",
       OneNodeProgram({{"a", kF32, {3, 3}}}, "linalg_eigvalsh.default",
                      {TensorArg("self", "a"), StringArg("UPLO", "X")}, {{"w", kF32, {3}}}),
       absl::StatusCode::kInvalidArgument, "UPLO"},
      {"cond_rectangular_one_norm",
       OneNodeProgram({{"a", kF32, {3, 4}}}, "linalg_cond.default",
                      {TensorArg("self", "a"), IntArg("p", 1)}, {{"c", kF32, {}}}),
       absl::StatusCode::kInvalidArgument, "square"},
      {"matrix_exp_symbolic",
       OneNodeProgram({{"a", kF32, {4, 4}, {"s", "s"}}}, "matrix_exp.default",
                      {TensorArg("self", "a")}, {{"e", kF32, {4, 4}, {"s", "s"}}}),
       absl::StatusCode::kUnimplemented, "symbolic"},
  };
}

using LinalgSpectralErrorsTest = ErrorCaseTest;
TEST_P(LinalgSpectralErrorsTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }
INSTANTIATE_TEST_SUITE_P(Cases, LinalgSpectralErrorsTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

}  // namespace
}  // namespace pt2onnx::testing
