// Tests for ops/conv.cc: each case is a one-node program; it must convert,
// pass the ONNX checker and shape inference, infer the FX output shapes and
// dtypes, emit the expected op types (Constants skipped) and, where given,
// the expected pads. Numerics are checked end to end against torch
// (tests/fixtures/ops/conv*).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types (Constants skipped)
  std::vector<int64_t> pads;     // expected pads of the Conv/ConvTranspose; empty: unchecked
};

// input x, weight w (and bias b when given) -> one conv node.
Case Conv(std::string name, std::vector<int64_t> x, std::vector<int64_t> w,
          std::vector<int64_t> bias, std::string target, std::vector<pt2::NamedArgument> args,
          std::vector<int64_t> out, std::vector<std::string> ops, std::vector<int64_t> pads = {}) {
  std::vector<TensorSpec> inputs = {{"x", kF32, x}, {"w", kF32, w}};
  args.insert(args.begin(), {TensorArg("input", "x"), TensorArg("weight", "w")});
  if (!bias.empty()) {
    inputs.push_back({"b", kF32, bias});
    args.insert(args.begin() + 2, TensorArg("bias", "b"));
  }
  return Case{std::move(name), OneNodeProgram(inputs, target, args, {{"y", kF32, out}}),
              std::move(ops), std::move(pads)};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  add(Conv("conv1d", {2, 3, 10}, {4, 3, 3}, {4}, "conv1d.default", {IntsArg("padding", {1})},
           {2, 4, 10}, {"Conv"}, {1, 1}));
  add(Conv("conv1d_stride_no_bias", {2, 3, 10}, {2, 3, 3}, {}, "conv1d.default",
           {IntsArg("stride", {2})}, {2, 2, 4}, {"Conv"}, {0, 0}));
  add(Conv("conv2d", {1, 4, 8, 8}, {6, 4, 3, 3}, {6}, "conv2d.default",
           {IntsArg("stride", {2, 2}), IntsArg("padding", {1, 1})}, {1, 6, 4, 4}, {"Conv"},
           {1, 1, 1, 1}));
  add(Conv("conv2d_single_entry_lists", {1, 4, 8, 8}, {6, 4, 3, 3}, {6}, "conv2d.default",
           {IntsArg("stride", {2}), IntsArg("padding", {1}), IntsArg("dilation", {1})},
           {1, 6, 4, 4}, {"Conv"}, {1, 1, 1, 1}));
  add(Conv("conv2d_groups_dilation", {1, 4, 8, 8}, {8, 1, 3, 3}, {8}, "conv2d.default",
           {IntsArg("padding", {2, 2}), IntsArg("dilation", {2, 2}), IntArg("groups", 4)},
           {1, 8, 8, 8}, {"Conv"}));
  add(Conv("conv2d_unbatched", {4, 8, 8}, {6, 4, 3, 3}, {6}, "conv2d.default", {},
           {6, 6, 6}, {"Unsqueeze", "Conv", "Squeeze"}));
  add(Conv("conv3d", {1, 2, 4, 4, 4}, {3, 2, 3, 3, 3}, {3}, "conv3d.default",
           {IntsArg("padding", {1, 1, 1})}, {1, 3, 4, 4, 4}, {"Conv"}));
  // 'same': dilation*(k-1) in total, the odd element at the end (as torch).
  add(Conv("conv2d_same_even_kernel", {1, 2, 6, 7}, {3, 2, 2, 4}, {}, "conv2d.padding",
           {StringArg("padding", "same"), IntsArg("dilation", {1, 2})}, {1, 3, 6, 7}, {"Conv"},
           {0, 3, 1, 3}));
  add(Conv("conv2d_same_odd_kernel", {1, 2, 6, 7}, {3, 2, 3, 3}, {3}, "conv2d.padding",
           {StringArg("padding", "same")}, {1, 3, 6, 7}, {"Conv"}, {1, 1, 1, 1}));
  add(Conv("conv1d_valid", {1, 2, 6}, {3, 2, 3}, {}, "conv1d.padding",
           {StringArg("padding", "valid")}, {1, 3, 4}, {"Conv"}, {0, 0}));
  const std::vector<pt2::NamedArgument> generic = {
      IntsArg("stride", {1, 1}), IntsArg("padding", {1, 1}), IntsArg("dilation", {1, 1}),
      BoolArg("transposed", false), IntsArg("output_padding", {0, 0}), IntArg("groups", 1)};
  add(Conv("convolution", {1, 4, 8, 8}, {6, 4, 3, 3}, {6}, "convolution.default", generic,
           {1, 6, 8, 8}, {"Conv"}, {1, 1, 1, 1}));
  add(Conv("convolution_transposed", {1, 4, 4, 4}, {4, 3, 3, 3}, {3}, "convolution.default",
           {IntsArg("stride", {2, 2}), IntsArg("padding", {1, 1}), IntsArg("dilation", {1, 1}),
            BoolArg("transposed", true), IntsArg("output_padding", {1, 1}), IntArg("groups", 1)},
           {1, 3, 8, 8}, {"ConvTranspose"}, {1, 1, 1, 1}));
  add(Conv("convolution_1d_single_entry", {1, 2, 6}, {3, 2, 3}, {}, "convolution.default",
           {IntsArg("stride", {1}), IntsArg("padding", {0}), IntsArg("dilation", {1}),
            BoolArg("transposed", false), IntsArg("output_padding", {0}), IntArg("groups", 1)},
           {1, 3, 4}, {"Conv"}));
  add(Conv("conv_transpose1d", {1, 3, 5}, {3, 2, 3}, {2}, "conv_transpose1d.default",
           {IntsArg("stride", {2}), IntsArg("padding", {1})}, {1, 2, 9}, {"ConvTranspose"},
           {1, 1}));
  add(Conv("conv_transpose2d_output_padding", {1, 4, 4, 4}, {4, 3, 3, 3}, {3},
           "conv_transpose2d.input",
           {IntsArg("stride", {2, 2}), IntsArg("padding", {1, 1}),
            IntsArg("output_padding", {1, 1})},
           {1, 3, 8, 8}, {"ConvTranspose"}));
  add(Conv("conv_transpose2d_groups", {1, 4, 4, 4}, {4, 1, 2, 2}, {}, "conv_transpose2d.input",
           {IntArg("groups", 2)}, {1, 2, 5, 5}, {"ConvTranspose"}));
  add(Conv("conv_transpose3d", {1, 2, 3, 3, 3}, {2, 2, 2, 2, 2}, {2}, "conv_transpose3d.input",
           {IntsArg("stride", {2, 2, 2})}, {1, 2, 6, 6, 6}, {"ConvTranspose"}));
  return cases;
}

class ConvOpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(ConvOpsTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  pt2::ExportedProgram program = c.program.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(program.graph.outputs.size(), 1u);  // "y"
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, c.ops));
  if (c.pads.empty()) return;
  for (const ir::Node& node : got->model.graph.nodes) {
    if (node.op_type != "Conv" && node.op_type != "ConvTranspose") continue;
    const ir::Attribute* pads = node.FindAttribute("pads");
    ASSERT_NE(pads, nullptr);
    EXPECT_EQ(pads->ints(), c.pads);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvOpsTest, ::testing::ValuesIn(Cases()), CaseName());

TEST(ConvOpsErrorsTest, SamePaddingWithStrideIsRejected) {
  Case c = Conv("same_stride", {1, 2, 6, 6}, {3, 2, 3, 3}, {}, "conv2d.padding",
                {IntsArg("stride", {2, 2}), StringArg("padding", "same")}, {1, 3, 3, 3}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                        "requires stride 1"));
}

TEST(ConvOpsErrorsTest, UnknownPaddingModeIsRejected) {
  Case c = Conv("bad_mode", {1, 2, 6, 6}, {3, 2, 3, 3}, {}, "conv2d.padding",
                {StringArg("padding", "full")}, {1, 3, 8, 8}, {});
  EXPECT_TRUE(
      HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument, "'full'"));
}

TEST(ConvOpsErrorsTest, ArgumentsOutsideTorchsLimitsAreRejected) {
  struct Bad {
    std::string target;
    std::vector<pt2::NamedArgument> args;
    std::string message;
  };
  const std::vector<Bad> bad = {
      {"conv2d.default", {IntsArg("stride", {0, 1})}, "stride entry 0 is outside [1, "},
      {"conv2d.default", {IntsArg("dilation", {1, -2})}, "dilation entry -2 is outside [1, "},
      {"conv2d.default", {IntsArg("padding", {-1, 0})}, "padding entry -1 is outside [0, "},
      {"conv2d.default", {IntArg("groups", 0)}, "groups entry 0 is outside [1, "},
      {"conv2d.padding",
       {StringArg("padding", "same"), IntsArg("dilation", {int64_t{1} << 62, 1})},
       "dilation entry 4611686018427387904 is outside"},
      {"conv_transpose2d.input",
       {IntsArg("stride", {2, 2}), IntsArg("output_padding", {2, 0})},
       "output_padding 2 should be in [0, 2)"},
  };
  for (const Bad& b : bad) {
    Case c = Conv("bad", {1, 2, 6, 6}, {2, 2, 3, 3}, {}, b.target, b.args, {1, 2, 4, 4}, {});
    EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                          b.message))
        << b.message;
  }
}

TEST(ConvOpsTest, OutputPaddingFromDilationBecomesSmallerEndPadding) {
  Case c = Conv("t", {1, 2, 7}, {2, 3, 3}, {}, "conv_transpose1d.default",
                {IntsArg("padding", {1}), IntsArg("output_padding", {1}), IntsArg("dilation", {2})},
                {1, 3, 10}, {"ConvTranspose"});
  absl::StatusOr<Converted> got = ConvertAndCheck(c.program.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  const ir::Node* node = FindNode(got->model, "ConvTranspose");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->FindAttribute("pads")->ints(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(node->FindAttribute("output_padding")->ints(), (std::vector<int64_t>{0}));
}

TEST(ConvOpsErrorsTest, OutputPaddingBeyondStrideAndPaddingIsRejected) {
  Case c = Conv("t", {1, 2, 7}, {2, 3, 3}, {}, "conv_transpose1d.default",
                {IntsArg("output_padding", {1}), IntsArg("dilation", {2})}, {1, 3, 12}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "output_padding 1 not smaller than the stride 1 and larger than the "
                        "padding 0"));
}

TEST(ConvOpsErrorsTest, WeightOfRankTwoIsRejected) {
  Case c = Conv("rank2_weight", {2, 3}, {4, 3}, {}, "conv1d.default", {}, {2, 4}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                        "weight has rank 2, expected at least 3"));
}

TEST(ConvOpsErrorsTest, SamePaddingWithSymbolicKernelIsRejected) {
  ProgramBuilder program = OneNodeProgram(
      {{"x", kF32, {1, 2, 6}}, {"w", kF32, {3, 2, 3}, {"", "", "k"}}}, "conv1d.padding",
      {TensorArg("input", "x"), TensorArg("weight", "w"), StringArg("padding", "same")},
      {{"y", kF32, {1, 3, 6}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program.Build()), absl::StatusCode::kUnimplemented,
                        "symbolic kernel size"));
}

TEST(ConvOpsErrorsTest, ComplexInputIsRejected) {
  ProgramBuilder program = OneNodeProgram(
      {{"x", DataType::kComplex64, {1, 2, 6}}, {"w", DataType::kComplex64, {3, 2, 3}}},
      "conv1d.default", {TensorArg("input", "x"), TensorArg("weight", "w")},
      {{"y", DataType::kComplex64, {1, 3, 4}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program.Build()), absl::StatusCode::kUnimplemented,
                        "complex convolution"));
}

}  // namespace
}  // namespace pt2onnx::testing
