// Tests for ops/data_dependent.cc: nonzero and masked_select convert (their
// sizes are known only at run time), a non-bool mask is refused. Numerics:
// tests/fixtures/ops/{nonzero,masked_select,masked_scatter}.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(DataDependent, ConvertsWithInferredRanks) {
  std::vector<ProgramBuilder> programs = {
      OneNodeProgram({{"x", kF32, {3, 4}}}, "nonzero.default", {TensorArg("self", "x")},
                     {{"y", kI64, {5, 2}}}),
      OneNodeProgram({{"x", kF32, {}}}, "nonzero.default", {TensorArg("self", "x")},
                     {{"y", kI64, {1, 0}}}),
      OneNodeProgram({{"x", kF32, {3, 4}}, {"m", kBool, {4}}}, "masked_select.default",
                     {TensorArg("self", "x"), TensorArg("mask", "m")}, {{"y", kF32, {5}}}),
  };
  for (const ProgramBuilder& p : programs) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

TEST(DataDependent, FloatMaskIsRefused) {
  ProgramBuilder p = OneNodeProgram({{"x", kF32, {3, 4}}, {"m", kF32, {3, 4}}},
                                    "masked_select.default",
                                    {TensorArg("self", "x"),
                                     TensorArg("mask", "m")}, {{"y", kF32, {5}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kInvalidArgument,
                        "mask must be a bool"));
}

}  // namespace
}  // namespace pt2onnx::testing
