// Reference kernels of the linear solvers (reference/linalg_solvers.cc,
// linalg_lu.cc, linalg_cholesky.cc) against numbers computed by hand /
// numpy in double: LU with a pivot tie (the first largest |value| wins, as
// LAPACK's getrf), inverses, solves (left and right), slogdet, Cholesky and
// its solves, lu_solve with adjoint, and the errors torch raises (singular or
// not positive definite inputs) against the *_ex infos.
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
using ::pt2onnx::testing::IntArg;
using ::pt2onnx::testing::TensorArg;

// Its second LU column ties (4 and 4): row 1 stays the pivot.
const std::vector<double> kA = {2, 1, 1, 4, -6, 0, -2, 7, 2};
const std::vector<double> kB = {1, 2, 0, 1, 3, -1};
const std::vector<double> kSingular = {1, 2, 3, 2, 4, 6, 1, 0, 1};
// L L^T for L = [[2, 0, 0], [1, 3, 0], [-1, 1, 2]].
const std::vector<double> kSpd = {4, 2, -2, 2, 10, 2, -2, 2, 6};

void ExpectInts(const RefValue& v, const Dims& dims, const std::vector<int64_t>& want) {
  ASSERT_EQ(v.kind, RefValue::Kind::kTensor);
  EXPECT_EQ(v.tensor.dims(), dims);
  EXPECT_EQ(v.tensor.dtype(), DataType::kInt32);
  EXPECT_EQ(ToInts(v.tensor), want);
}

TEST(ReferenceLinalgLu, FactorPicksTheFirstLargestPivot) {
  ValueMap values{{"a", RefValue::OfTensor(F32({3, 3}, kA))}};
  KernelRun r = RunKernel("aten::linalg_lu_factor_ex.default", {TensorArg("A", "a")}, values, 3);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 3}, {4, -6, 0, 0.5, 4, 1, -0.5, 1, 1});
  ExpectInts(r.results[1], {3}, {2, 2, 3});
  ExpectInts(r.results[2], {}, {0});
  // A wide matrix: min(m, n) pivots.
  ValueMap wide{{"a", RefValue::OfTensor(F32({2, 3}, {1, 3, 5, 2, 4, 6}))}};
  r = RunKernel("aten::linalg_lu.default", {TensorArg("A", "a")}, wide, 3);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {0, 1, 1, 0});
  ExpectValues(r.results[1], {2, 2}, {1, 0, 0.5, 1});
  ExpectValues(r.results[2], {2, 3}, {2, 4, 6, 0, 1, 2});
}

TEST(ReferenceLinalgLu, SingularMatricesRaiseOrReportInfo) {
  ValueMap values{{"a", RefValue::OfTensor(F32({3, 3}, kSingular))}};
  KernelRun r = RunKernel("aten::linalg_lu_factor.default", {TensorArg("A", "a")}, values, 2);
  EXPECT_FALSE(r.status.ok());
  r = RunKernel("aten::linalg_inv_ex.default", {TensorArg("A", "a")}, values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectInts(r.results[1], {}, {3});
  ValueMap with_b{{"a", RefValue::OfTensor(F32({3, 3}, kSingular))},
                  {"b", RefValue::OfTensor(F32({3, 2}, kB))}};
  r = RunKernel("aten::linalg_solve.default", {TensorArg("A", "a"), TensorArg("B", "b")}, with_b);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(std::string(r.status.message()).find("singular"), std::string::npos) << r.status;
}

TEST(ReferenceLinalgSolve, InverseSolvesAndSlogdet) {
  ValueMap values{{"a", RefValue::OfTensor(F32({3, 3}, kA))},
                  {"b", RefValue::OfTensor(F32({3, 2}, kB))}};
  KernelRun r = RunKernel("aten::linalg_inv_ex.default", {TensorArg("A", "a")}, values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 3}, {0.75, -0.3125, -0.375, 0.5, -0.375, -0.25, -1, 1, 1});
  ExpectInts(r.results[1], {}, {0});
  r = RunKernel("aten::linalg_solve.default", {TensorArg("A", "a"), TensorArg("B", "b")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 2}, {-0.375, 1.5625, -0.25, 0.875, 2, -2});
  r = RunKernel("aten::linalg_slogdet.default", {TensorArg("A", "a")}, values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {-1});
  ExpectValues(r.results[1], {}, {std::log(16.0)});
  r = RunKernel("aten::logdet.default", {TensorArg("self", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(std::isnan(ToDoubles(r.results[0].tensor)[0]));
  r = RunKernel("aten::linalg_matrix_power.default", {TensorArg("self", "a"), IntArg("n", -2)},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 3},
               {0.78125, -0.4921875, -0.578125, 0.4375, -0.265625, -0.34375, -1.25, 0.9375, 1.125});
}

TEST(ReferenceLinalgLu, LuSolveAdjointMatchesTheTransposedSystem) {
  ValueMap values{{"lu", RefValue::OfTensor(F32({3, 3}, {4, -6, 0, 0.5, 4, 1, -0.5, 1, 1}))},
                  {"piv", RefValue::OfTensor(I64({3}, {2, 2, 3}))},
                  {"b", RefValue::OfTensor(F32({3, 2}, kB))}};
  KernelRun r = RunKernel("aten::linalg_lu_solve.default",
                          {TensorArg("LU", "lu"), TensorArg("pivots", "piv"), TensorArg("B", "b"),
                           BoolArg("adjoint", true)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 2}, {-2.25, 3, 2.6875, -2, 2.625, -2});
}

TEST(ReferenceLinalgCholesky, FactorSolveInverseAndFailure) {
  ValueMap values{{"a", RefValue::OfTensor(F32({3, 3}, kSpd))},
                  {"b", RefValue::OfTensor(F32({3, 2}, kB))},
                  {"l", RefValue::OfTensor(F32({3, 3}, {2, 0, 0, 1, 3, 0, -1, 1, 2}))}};
  KernelRun r = RunKernel("aten::linalg_cholesky.default", {TensorArg("self", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 3}, {2, 0, 0, 1, 3, 0, -1, 1, 2});
  r = RunKernel("aten::linalg_cholesky.default",
                {TensorArg("self", "a"), BoolArg("upper", true)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 3}, {2, 1, -1, 0, 3, 1, 0, 0, 2});
  r = RunKernel("aten::cholesky_solve.default", {TensorArg("self", "b"), TensorArg("input2", "l")},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 2},
               {0.888888889, 0.5, -0.361111111, 0, 0.916666667, 0}, 1e-6);
  r = RunKernel("aten::cholesky_inverse.default", {TensorArg("self", "l")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 3},
               {0.388888889, -0.111111111, 0.166666667, -0.111111111, 0.138888889,
                -0.083333333, 0.166666667, -0.083333333, 0.25}, 1e-6);
  ValueMap bad{{"a", RefValue::OfTensor(F32({2, 2}, {1, 2, 2, 1}))}};
  r = RunKernel("aten::linalg_cholesky.default", {TensorArg("self", "a")}, bad);
  EXPECT_FALSE(r.status.ok());
  r = RunKernel("aten::linalg_cholesky_ex.default", {TensorArg("self", "a")}, bad, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectInts(r.results[1], {}, {2});
}

}  // namespace
}  // namespace pt2onnx::reference
