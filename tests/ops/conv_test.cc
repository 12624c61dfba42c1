// Tests for ops/conv.cc: each case is a one-node program; it must convert,
// pass the ONNX checker and shape inference, infer the FX output shapes and
// dtypes, emit the expected op types (Constants skipped) and, where given,
// the expected pads. Numerics are checked end to end against torch
// (tests/fixtures/ops/conv*).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::testing {
namespace {

constexpr DataType kF32 = DataType::kFloat;

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types (Constants skipped)
  std::vector<int64_t> pads;     // expected pads of the Conv/ConvTranspose; empty: unchecked
};

std::string Aten(const std::string& op) { return "torch.ops.aten." + op; }

// input x, weight w (and bias b when given) -> one conv node.
Case Conv(std::string name, std::vector<int64_t> x, std::vector<int64_t> w,
          std::vector<int64_t> bias, std::string target, std::vector<pt2::NamedArgument> args,
          std::vector<int64_t> out, std::vector<std::string> ops, std::vector<int64_t> pads = {}) {
  ProgramBuilder b;
  b.Input("x", kF32, x).Input("w", kF32, w);
  args.insert(args.begin(), {TensorArg("input", "x"), TensorArg("weight", "w")});
  if (!bias.empty()) {
    b.Input("b", kF32, bias);
    args.insert(args.begin() + 2, TensorArg("bias", "b"));
  }
  b.Node(Aten(target), args, {{"y", kF32, out}});
  b.Output("y");
  return Case{std::move(name), b, std::move(ops), std::move(pads)};
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
  ASSERT_EQ(got->output_shapes.size(), 1u);
  const pt2::TensorMeta& meta = program.graph.tensor_values.at("y");
  std::vector<int64_t> want;
  for (const pt2::SymInt& s : meta.sizes) want.push_back(s.value);
  EXPECT_EQ(got->output_shapes[0], want)
      << "inferred [" << absl::StrJoin(got->output_shapes[0], ", ") << "]";
  EXPECT_EQ(got->output_dtypes[0], meta.dtype);
  EXPECT_EQ(OpTypes(got->model), c.ops)
      << "got ops [" << absl::StrJoin(OpTypes(got->model), ", ") << "]";
  if (c.pads.empty()) return;
  for (const ir::Node& node : got->model.graph.nodes) {
    if (node.op_type != "Conv" && node.op_type != "ConvTranspose") continue;
    const ir::Attribute* pads = node.FindAttribute("pads");
    ASSERT_NE(pads, nullptr);
    EXPECT_EQ(pads->ints, c.pads);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvOpsTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

TEST(ConvOpsErrorsTest, SamePaddingWithStrideIsRejected) {
  Case c = Conv("same_stride", {1, 2, 6, 6}, {3, 2, 3, 3}, {}, "conv2d.padding",
                {IntsArg("stride", {2, 2}), StringArg("padding", "same")}, {1, 3, 3, 3}, {});
  absl::StatusOr<Converted> got = ConvertAndCheck(c.program.Build());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "requires stride 1")) << got.status();
}

TEST(ConvOpsErrorsTest, UnknownPaddingModeIsRejected) {
  Case c = Conv("bad_mode", {1, 2, 6, 6}, {3, 2, 3, 3}, {}, "conv2d.padding",
                {StringArg("padding", "full")}, {1, 3, 8, 8}, {});
  absl::StatusOr<Converted> got = ConvertAndCheck(c.program.Build());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "'full'")) << got.status();
}

}  // namespace
}  // namespace pt2onnx::testing
