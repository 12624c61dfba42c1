// Tests for ops/complex_views.cc: polar and view_as_complex write the
// (..., 2) complex layout for readers that understand it, conj negates the
// imaginary part, resolve_* are identities, real inputs pass through, and a
// complex value read by an op without complex support is refused by name.
// Numerics: tests/fixtures/ops/polar_view_as_complex.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr DataType kC64 = DataType::kComplex64;

TEST(ComplexViews, PolarThenViewAsReal) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("r", kF32, {3, 4})
          .Input("theta", kF32, {4})
          .Node(Aten("polar.default"), {TensorArg("abs", "r"), TensorArg("angle", "theta")}, {{"z", kC64, {3, 4}}})
          .Node(Aten("conj.default"), {TensorArg("self", "z")}, {{"c", kC64, {3, 4}}})
          .Node(Aten("resolve_conj.default"), {TensorArg("self", "c")}, {{"d", kC64, {3, 4}}})
          .Node(Aten("view_as_real.default"), {TensorArg("self", "d")}, {{"y", kF32, {3, 4, 2}}})
          .Output("y")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(ComplexViews, ViewAsComplexRoundTrip) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("x", kF32, {3, 2})
          .Node(Aten("view_as_complex.default"), {TensorArg("self", "x")}, {{"z", kC64, {3}}})
          .Node(Aten("view_as_real.default"), {TensorArg("self", "z")}, {{"y", kF32, {3, 2}}})
          .Output("y")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(ComplexViews, RealInputsPassThrough) {
  for (std::string overload : {"resolve_conj.default", "resolve_neg.default", "conj.default", "_conj.default"}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {2, 3}}}, overload, {TensorArg("self", "x")}, {{"y", kF32, {2, 3}}}).Build();
    ASSERT_TRUE(ConvertAndExpect(program, {"Identity"}).has_value()) << overload;
  }
}

TEST(ComplexViews, UnsupportedComplexReaderIsRefused) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("x", kF32, {3, 2})
          .Node(Aten("view_as_complex.default"), {TensorArg("self", "x")}, {{"z", kC64, {3}}})
          .Node(Aten("abs.default"), {TensorArg("self", "z")}, {{"y", kF32, {3}}})
          .Output("y")
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented, "abs"));
}

}  // namespace
}  // namespace pt2onnx::testing
