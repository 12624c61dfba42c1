// Tests for ops/data_dependent.cc: nonzero, nonzero_numpy and masked_select convert (their
// sizes are known only at run time), a non-bool mask is refused. Numerics:
// tests/fixtures/ops/{nonzero,masked_select,masked_scatter}.
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

// nonzero_numpy: one 1-D index tensor per dim (a 0-d input counts as 1-D).
TEST(DataDependent, NonzeroNumpy) {
  const std::vector<std::pair<std::vector<int64_t>, int>> rows = {{{3, 4}, 2}, {{}, 1}};
  for (const auto& [shape, columns] : rows) {
    ProgramBuilder p;
    p.Input("x", kF32, shape);
    std::vector<TensorSpec> outs;
    for (int i = 0; i < columns; ++i) outs.push_back({"c" + std::to_string(i), kI64, {5}});
    p.ListNode(Aten("nonzero_numpy.default"), {TensorArg("self", "x")}, outs);
    for (const TensorSpec& o : outs) p.Output(o.name);
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

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
