// Tests for ops/backward.cc (pooling and embedding backward): shapes, and the
// refusals of bad pool arguments. Numerics: tests/fixtures/ops/*_backward.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder AvgBackward(std::vector<int64_t> x, std::vector<int64_t> g,
                           std::vector<int64_t> padding) {
  return OneNodeProgram({{"g", kF32, g}, {"x", kF32, x}}, "avg_pool2d_backward.default",
                        {TensorArg("grad_output", "g"), TensorArg("self", "x"),
                         IntsArg("kernel_size", {3, 3}),
                         IntsArg("stride", {2, 2}), IntsArg("padding",
                                                            padding), BoolArg("ceil_mode", false),
                         BoolArg("count_include_pad", true), NoneArg("divisor_override")},
                        {{"y", kF32, x}});
}

TEST(Backward, ConvertsWithInferredShapes) {
  std::vector<ProgramBuilder> programs = {
      AvgBackward({2, 3, 7, 7}, {2, 3, 4, 4}, {1, 1}),
      OneNodeProgram({{"g", kF32, {2, 4, 5}}, {"i", kI64, {2, 4}}},
                     "embedding_dense_backward.default",
                     {TensorArg("grad_output", "g"), TensorArg("indices", "i"),
                      IntArg("num_weights", 10),
                      IntArg("padding_idx", -1), BoolArg("scale_grad_by_freq", true)},
                     {{"y", kF32, {10, 5}}}),
  };
  for (const ProgramBuilder& p : programs) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

TEST(Backward, Refusals) {
  std::vector<ErrorCase> cases = {
      {"padding_over_half_kernel", AvgBackward({2, 3, 7, 7}, {2, 3, 4, 4}, {2, 2}),
       absl::StatusCode::kInvalidArgument, "padding"},
      {"rank_2_self", AvgBackward({7, 7}, {4, 4}, {1, 1}), absl::StatusCode::kInvalidArgument,
       "(C, H, W) or (N, C, H, W)"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

}  // namespace
}  // namespace pt2onnx::testing
