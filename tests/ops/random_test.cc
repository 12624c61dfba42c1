// Tests for ops/random.cc: the random ops convert with their FX shapes and
// dtypes; integer dtypes for rand/randn are refused. Range, dtype and
// distribution checks run end to end (tests/fixtures/ops/rand*, randperm).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(Random, ConvertsWithFxShapesAndDtypes) {
  std::vector<ProgramBuilder> programs = {
      OneNodeProgram({}, "rand.default", {IntsArg("size", {3, 4}), DtypeArg("dtype", kF16)},
                     {{"y", kF16, {3, 4}}}),
      OneNodeProgram({{"x", kF64, {2, 5}}}, "randn_like.default", {TensorArg("self", "x")},
                     {{"y", kF64, {2, 5}}}),
      OneNodeProgram({}, "randint.low",
                     {IntArg("low", -3), IntArg("high", 4), IntsArg("size", {6})},
                     {{"y", kI64, {6}}}),
      OneNodeProgram({}, "randperm.default", {IntArg("n", 9)}, {{"y", kI64, {9}}}),
  };
  for (const ProgramBuilder& p : programs) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

TEST(Random, IntegerUniformIsRefused) {
  ProgramBuilder p = OneNodeProgram({}, "rand.default",
                                    {IntsArg("size", {3}), DtypeArg("dtype", kI32)},
                                    {{"y", kI32, {3}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kUnimplemented,
                        "dtype int32"));
}

}  // namespace
}  // namespace pt2onnx::testing
