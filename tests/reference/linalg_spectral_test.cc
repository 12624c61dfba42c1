// Reference kernels of the spectral decompositions (reference/linalg_spectral.cc,
// linalg_spectral_uses.cc) against values worked out by hand: eigenvalues
// ascending from either triangle, singular values descending with U S V^T
// rebuilding the matrix, pinv of a rank-deficient matrix, matrix_rank with
// each tolerance overload, cond for 2 / -2 / 1 / 'fro', and matrix_exp of a
// nilpotent and a diagonal matrix.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "reference/ref_tensor.h"
#include "tests/reference/kernel_runner.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::reference {
namespace {

using ::pt2onnx::testing::BoolArg;
using ::pt2onnx::testing::FloatArg;
using ::pt2onnx::testing::IntArg;
using ::pt2onnx::testing::StringArg;
using ::pt2onnx::testing::TensorArg;

TEST(ReferenceLinalgSpectral, EighReadsOneTriangle) {
  // Lower triangle [[2, .], [1, 2]] -> 1, 3; the upper one [[2, 5], [., 2]] -> -3, 7.
  ValueMap values{{"a", RefValue::OfTensor(F32({2, 2}, {2, 5, 1, 2}))}};
  KernelRun r = RunKernel("aten::linalg_eigh.default", {TensorArg("self", "a")}, values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2}, {1, 3});
  const std::vector<double> v = ToDoubles(r.results[1].tensor);
  EXPECT_NEAR(std::fabs(v[0]), std::sqrt(0.5), 1e-6);  // (1, -1) / sqrt(2) up to sign
  EXPECT_NEAR(v[0], -v[2], 1e-6);
  r = RunKernel("aten::linalg_eigvalsh.default", {TensorArg("self", "a"), StringArg("UPLO", "U")},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2}, {-3, 7});
}

TEST(ReferenceLinalgSpectral, SvdRebuildsTheMatrix) {
  // A^T A = [[25, 20], [20, 25]]: sigma = sqrt(45), sqrt(5).
  const std::vector<double> a = {3, 0, 4, 5};
  ValueMap values{{"a", RefValue::OfTensor(F32({2, 2}, a))}};
  KernelRun r = RunKernel("aten::linalg_svd.default", {TensorArg("A", "a")}, values, 3);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[1], {2}, {std::sqrt(45.0), std::sqrt(5.0)});
  const std::vector<double> u = ToDoubles(r.results[0].tensor), s = ToDoubles(r.results[1].tensor),
                            vh = ToDoubles(r.results[2].tensor);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      EXPECT_NEAR(u[i * 2] * s[0] * vh[j] + u[i * 2 + 1] * s[1] * vh[2 + j], a[i * 2 + j], 1e-5);
    }
  }
  // A wide matrix's singular values, and svd's zero-filled bases without compute_uv.
  ValueMap wide{{"a", RefValue::OfTensor(F32({1, 2}, {3, 4}))}};
  r = RunKernel("aten::linalg_svdvals.default", {TensorArg("A", "a")}, wide);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1}, {5});
  r = RunKernel("aten::svd.default", {TensorArg("self", "a"), BoolArg("compute_uv", false)}, wide, 3);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 1}, {0});
  ExpectValues(r.results[2], {2, 2}, {0, 0, 0, 0});
}

TEST(ReferenceLinalgSpectral, PinvAndRankOfARankOneMatrix) {
  // [[1, 2], [2, 4]] = 5 u u^T, u = (1, 2)/sqrt(5): pinv = A / 25.
  ValueMap values{{"a", RefValue::OfTensor(F32({2, 2}, {1, 2, 2, 4}))}};
  KernelRun r = RunKernel("aten::linalg_pinv.atol_rtol_tensor", {TensorArg("self", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {0.04, 0.08, 0.08, 0.16});
  r = RunKernel("aten::linalg_pinv.atol_rtol_tensor",
                {TensorArg("self", "a"), BoolArg("hermitian", true)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {0.04, 0.08, 0.08, 0.16});
  r = RunKernel("aten::linalg_matrix_rank.atol_rtol_tensor", {TensorArg("input", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(ToInts(r.results[0].tensor), std::vector<int64_t>{1});
  // An absolute tolerance above the only singular value: rank 0.
  r = RunKernel("aten::linalg_matrix_rank.default", {TensorArg("self", "a"), FloatArg("tol", 6)},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(ToInts(r.results[0].tensor), std::vector<int64_t>{0});
}

TEST(ReferenceLinalgSpectral, CondForEachOrder) {
  ValueMap values{{"a", RefValue::OfTensor(F32({2, 2}, {1, 0, 0, 4}))}};
  KernelRun r = RunKernel("aten::linalg_cond.default", {TensorArg("self", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {4});
  r = RunKernel("aten::linalg_cond.default", {TensorArg("self", "a"), IntArg("p", -2)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {0.25});
  r = RunKernel("aten::linalg_cond.default", {TensorArg("self", "a"), IntArg("p", 1)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {4});
  r = RunKernel("aten::linalg_cond.p_str", {TensorArg("self", "a"), StringArg("p", "fro")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {std::sqrt(17.0) * std::sqrt(1.0625)});
  // A singular matrix: its 1-norm condition number is inf.
  ValueMap singular{{"a", RefValue::OfTensor(F32({2, 2}, {1, 2, 2, 4}))}};
  r = RunKernel("aten::linalg_cond.default", {TensorArg("self", "a"), IntArg("p", 1)}, singular);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(std::isinf(ToDoubles(r.results[0].tensor)[0]));
}

TEST(ReferenceLinalgSpectral, MatrixExp) {
  ValueMap values{{"a", RefValue::OfTensor(F32({2, 2, 2}, {0, 1, 0, 0, 1, 0, 0, 2}))}};
  KernelRun r = RunKernel("aten::matrix_exp.default", {TensorArg("self", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2, 2}, {1, 1, 0, 1, std::exp(1.0), 0, 0, std::exp(2.0)});
}

}  // namespace
}  // namespace pt2onnx::reference
