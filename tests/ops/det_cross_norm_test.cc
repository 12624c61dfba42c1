// Tests for ops/det_cross_norm.cc: shapes (the 'nuc' and ord 2 norms through
// singular values too), and the refusals of norms over matrices above the SVD's
// size limit, of unknown orders and of determinant bookkeeping outputs. Numerics:
// tests/fixtures/ops/{det,cross,linalg_norms,nonzero_static}.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(DetCrossNorm, ConvertsWithInferredShapes) {
  std::vector<ProgramBuilder> programs = {
      OneNodeProgram({{"a", kF32, {2, 3, 3}}}, "linalg_det.default", {TensorArg("A", "a")},
                     {{"y", kF32, {2}}}),
      OneNodeProgram({{"a", kF32, {2, 3, 4}}}, "linalg_matrix_norm.default",
                     {TensorArg("self", "a"), FloatArg("ord", 1.0)}, {{"y", kF32, {2}}}),
      OneNodeProgram({{"u", kF32, {4, 3}}, {"v", kF32, {1, 3}}}, "linalg_cross.default",
                     {TensorArg("self", "u"), TensorArg("other", "v")}, {{"y", kF32, {4, 3}}}),
      OneNodeProgram({{"a", kF32, {3, 4}}}, "linalg_matrix_norm.default",
                     {TensorArg("self", "a"), FloatArg("ord", 2.0)}, {{"y", kF32, {}}}),
      OneNodeProgram({{"a", kF32, {3, 4}}}, "linalg_matrix_norm.str_ord",
                     {TensorArg("self", "a"), StringArg("ord", "nuc")}, {{"y", kF32, {}}}),
  };
  for (const ProgramBuilder& p : programs) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(DetCrossNorm, Refusals) {
  std::vector<ErrorCase> cases = {
      {"spectral_norm_too_large",
       OneNodeProgram({{"a", kF32, {3, 40}}}, "linalg_matrix_norm.default",
                      {TensorArg("self", "a"), FloatArg("ord", 2.0)}, {{"y", kF32, {}}}),
       absl::StatusCode::kUnimplemented, "singular values"},
      {"unknown_order",
       OneNodeProgram({{"a", kF32, {3, 4}}}, "linalg_matrix_norm.str_ord",
                      {TensorArg("self", "a"), StringArg("ord", "max")}, {{"y", kF32, {}}}),
       absl::StatusCode::kInvalidArgument, "'max'"},
      {"det_lu_read",
       OneNodeProgram({{"a", kF32, {3, 3}}}, "_linalg_det.default", {TensorArg("A", "a")},
                      {{"d", kF32, {}}, {"lu", kF32, {3, 3}}, {"p_unused_2", kI32, {3}}}),
       absl::StatusCode::kUnimplemented, "LU factors"},
      {"cross_needs_3",
       OneNodeProgram({{"u", kF32, {4, 2}}, {"v", kF32, {4, 2}}}, "linalg_cross.default",
                      {TensorArg("self", "u"), TensorArg("other", "v")}, {{"y", kF32, {4, 2}}}),
       absl::StatusCode::kInvalidArgument, "size 3"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

}  // namespace
}  // namespace pt2onnx::testing
