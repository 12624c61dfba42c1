// Tests for ops/conv_norm_backward.cc: the translations convert, pass the ONNX
// checker and infer the FX shapes; refusals name the argument. Numerics are
// checked end to end against torch (tests/fixtures/ops/convolution_backward,
// native_{layer,group}_norm_backward).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder ConvBackward(bool transposed, std::vector<bool> mask, std::vector<TensorSpec> outs) {
  return OneNodeProgram(
      {{"g", kF32, {2, 4, 3, 3}}, {"x", kF32, {2, 6, 7, 8}}, {"w", kF32, {4, 3, 3, 2}}},
      "convolution_backward.default",
      {TensorArg("grad_output", "g"), TensorArg("input", "x"), TensorArg("weight", "w"),
       IntsArg("bias_sizes", {4}), IntsArg("stride", {2, 3}), IntsArg("padding", {0, 1}),
       IntsArg("dilation", {1, 1}), BoolArg("transposed", transposed), IntsArg("output_padding",
                                                                               {0, 0}),
       IntArg("groups", 2), BoolsArg("output_mask", std::move(mask))},
      std::move(outs));
}

TEST(ConvNormBackward, ConvolutionBackwardInfersShapes) {
  pt2::ExportedProgram program =
      ConvBackward(false, {true, true, true},
                   {{"gi", kF32, {2, 6, 7, 8}}, {"gw", kF32, {4, 3, 3, 2}}, {"gb", kF32, {4}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(ConvNormBackward, TransposedConvolutionInfersShapes) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"g", kF32, {2, 6, 6, 8}}, {"x", kF32, {2, 4, 3, 4}},
                      {"w", kF32, {4, 3, 3, 2}}},
                     "convolution_backward.default",
                     {TensorArg("grad_output", "g"), TensorArg("input", "x"),
                      TensorArg("weight", "w"),
                      IntsArg("bias_sizes", {6}), IntsArg("stride", {2, 2}), IntsArg("padding",
                                                                                     {1, 1}),
                      IntsArg("dilation", {1, 2}), BoolArg("transposed",
                                                           true), IntsArg("output_padding", {1, 1}),
                      IntArg("groups", 2), BoolsArg("output_mask", {true, true, false})},
                     {{"gi", kF32, {2, 4, 3, 4}}, {"gw", kF32, {4, 3, 3, 2}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(ConvNormBackward, MaskedOutputThatIsReadIsInvalid) {
  ProgramBuilder p = ConvBackward(false, {true, false, true},
                                  {{"gi", kF32, {2, 6, 7, 8}}, {"gw", kF32, {4, 3, 3, 2}},
                                   {"gb", kF32, {4}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kInvalidArgument,
                        "output_mask[1]"));
}

TEST(ConvNormBackward, LayerNormBackwardInfersShapes) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"g", kF32, {2, 3, 4}}, {"x", kF32, {2, 3, 4}}, {"m", kF32, {2, 1, 1}},
                      {"r", kF32, {2, 1, 1}}, {"w", kF32, {3, 4}}},
                     "native_layer_norm_backward.default",
                     {TensorArg("grad_out", "g"), TensorArg("input", "x"),
                      IntsArg("normalized_shape", {3, 4}),
                      TensorArg("mean", "m"), TensorArg("rstd", "r"), TensorArg("weight", "w"),
                      NoneArg("bias"), BoolsArg("output_mask", {true, true, false})},
                     {{"gi", kF32, {2, 3, 4}}, {"gw", kF32, {3, 4}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(ConvNormBackward, GroupNormBackwardNeedsPositiveGroups) {
  ProgramBuilder p = OneNodeProgram(
      {{"g", kF32, {2, 4, 5}}, {"x", kF32, {2, 4, 5}}, {"m", kF32, {2, 2}}, {"r", kF32, {2, 2}}},
      "native_group_norm_backward.default",
      {TensorArg("grad_out", "g"), TensorArg("input", "x"), TensorArg("mean", "m"),
       TensorArg("rstd", "r"),
       NoneArg("weight"), IntArg("N", 2), IntArg("C", 4), IntArg("HxW", 5), IntArg("group", 0),
       BoolsArg("output_mask", {true, false, false})},
      {{"gi", kF32, {2, 4, 5}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kInvalidArgument,
                        "group must be positive"));
}

}  // namespace
}  // namespace pt2onnx::testing
