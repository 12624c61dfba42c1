// Tests for ops/windows.cc: every window overload converts to a Range-based
// computation with the output dtype, lengths 0 and 1 included; a negative
// length is refused. Numerics: tests/fixtures/ops/window_functions.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram WindowProgram(std::string overload, int64_t length, DataType dtype,
                                   std::vector<pt2::NamedArgument> extra = {}) {
  std::vector<pt2::NamedArgument> args = {IntArg("window_length", length)};
  for (auto& a : extra) args.push_back(a);
  return ProgramBuilder().Node(Aten(overload), args, {{"w", dtype, {length}}}).Output("w").Build();
}

TEST(Windows, EveryOverloadConverts) {
  std::vector<pt2::ExportedProgram> programs = {
      WindowProgram("hann_window.default", 8, kF32),
      WindowProgram("hann_window.periodic", 8, kF64, {BoolArg("periodic", false)}),
      WindowProgram("hamming_window.periodic_alpha_beta", 9, kF32,
                    {BoolArg("periodic", true), FloatArg("alpha", 0.6), FloatArg("beta", 0.3)}),
      WindowProgram("blackman_window.default", 16, kF16),
      WindowProgram("blackman_window.periodic", 1, kF32, {BoolArg("periodic", false)}),
      WindowProgram("hann_window.default", 0, kF32)};
  for (const auto& program : programs) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << program.graph.nodes[0].target << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << program.graph.nodes[0].target;
  }
}

TEST(Windows, NegativeLengthIsRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(WindowProgram("hann_window.default", -1, kF32)),
                        absl::StatusCode::kInvalidArgument, "negative"));
}

}  // namespace
}  // namespace pt2onnx::testing
