// Tests for ops/pooling.cc: each case is a one-node program; it must convert,
// pass the ONNX checker and shape inference, infer the FX output shapes and
// dtypes, and emit the expected op types (Constants skipped). Pool cases
// also pin the emitted pads/ceil_mode where the ceil_mode rewrite matters.
// Numerics are checked end to end against torch (tests/fixtures/ops/
// {max,avg,adaptive_avg}_pool*).
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
  int opset = 20;
  // Expected attributes of the first pooling node (empty: unchecked).
  std::vector<int64_t> pads;
  int64_t ceil_mode = -1;
};

pt2::NamedArgument FloatsArg(std::string arg, std::vector<double> v) {
  pt2::NamedArgument named;
  named.name = std::move(arg);
  named.arg.kind = pt2::Argument::Kind::kFloats;
  named.arg.floats = std::move(v);
  return named;
}

// x -> one node -> its outputs (outputs named "*_unused_*" are not returned).
Case Unary(std::string name, TensorSpec in, std::string target,
           std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
           std::vector<std::string> ops, std::string self = "self") {
  args.insert(args.begin(), TensorArg(self, in.name));
  return Case{std::move(name), OneNodeProgram({in}, target, std::move(args), std::move(outs)),
              std::move(ops)};
}

Case WithPool(Case c, std::vector<int64_t> pads, int64_t ceil_mode) {
  c.pads = std::move(pads);
  c.ceil_mode = ceil_mode;
  return c;
}

Case AtOpset(Case c, int opset) {
  c.opset = opset;
  return c;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const TensorSpec x77{"x", kF32, {1, 2, 7, 7}};
  const TensorSpec x55{"x", kF32, {1, 2, 5, 5}};

  // max pools
  add(WithPool(Unary("max_pool2d", x77, "max_pool2d.default", {IntsArg("kernel_size", {2, 2})},
                     {{"y", kF32, {1, 2, 3, 3}}}, {"MaxPool"}),
               {0, 0, 0, 0}, 0));
  // ceil_mode that adds no window: plain floor mode.
  add(WithPool(Unary("max_pool2d_ceil_same", x77, "max_pool2d.default",
                     {IntsArg("kernel_size", {3, 3}), IntsArg("stride", {2, 2}),
                      IntsArg("padding", {1, 1}), BoolArg("ceil_mode", true)},
                     {{"y", kF32, {1, 2, 4, 4}}}, {"MaxPool"}),
               {1, 1, 1, 1}, 0));
  // ceil_mode adding a window: floor mode with one more cell of end padding.
  add(WithPool(Unary("max_pool2d_ceil_extra", {"x", kF32, {1, 2, 6, 6}}, "max_pool2d.default",
                     {IntsArg("kernel_size", {3, 3}), IntsArg("stride", {2, 2}),
                      IntsArg("padding", {1, 1}), BoolArg("ceil_mode", true)},
                     {{"y", kF32, {1, 2, 4, 4}}}, {"MaxPool"}),
               {1, 1, 2, 2}, 0));
  // torch drops a last window starting in the right padding: 5 -> 2, not 3.
  add(WithPool(Unary("max_pool2d_ceil_dropped_window", x55, "max_pool2d.default",
                     {IntsArg("kernel_size", {3, 3}), IntsArg("stride", {3, 3}),
                      IntsArg("padding", {1, 1}), BoolArg("ceil_mode", true)},
                     {{"y", kF32, {1, 2, 2, 2}}}, {"MaxPool"}),
               {1, 1, 1, 1}, 0));
  add(WithPool(Unary("max_pool2d_ceil_odd", x55, "max_pool2d.default",
                     {IntsArg("kernel_size", {2, 2}), BoolArg("ceil_mode", true)},
                     {{"y", kF32, {1, 2, 3, 3}}}, {"MaxPool"}),
               {0, 0, 1, 1}, 0));
  add(Unary("max_pool1d", {"x", kF32, {2, 3, 9}}, "max_pool1d.default",
            {IntsArg("kernel_size", {3}), IntsArg("stride", {2}), IntsArg("padding", {1})},
            {{"y", kF32, {2, 3, 5}}}, {"MaxPool"}));
  add(Unary("max_pool2d_unbatched", {"x", kF32, {2, 7, 7}}, "max_pool2d.default",
            {IntsArg("kernel_size", {2, 2})}, {{"y", kF32, {2, 3, 3}}},
            {"Unsqueeze", "MaxPool", "Squeeze"}));
  add(Unary("max_pool2d_dilation", x77, "max_pool2d.default",
            {IntsArg("kernel_size", {2, 2}), IntsArg("stride", {1, 1}), IntsArg("padding", {0, 0}),
             IntsArg("dilation", {2, 2})},
            {{"y", kF32, {1, 2, 5, 5}}}, {"MaxPool"}));
  add(Unary("max_pool3d", {"x", kF32, {1, 2, 4, 4, 4}}, "max_pool3d.default",
            {IntsArg("kernel_size", {2, 2, 2})}, {{"y", kF32, {1, 2, 2, 2, 2}}}, {"MaxPool"}));
  add(Unary("max_pool2d_with_indices", {"x", kF32, {2, 2, 4, 4}},
            "max_pool2d_with_indices.default",
            {IntsArg("kernel_size", {2, 2}), IntsArg("stride", {2, 2})},
            {{"y", kF32, {2, 2, 2, 2}}, {"i", kI64, {2, 2, 2, 2}}}, {"MaxPool", "Mod"}));
  add(Unary("max_pool2d_with_indices_unused", {"x", kF32, {2, 2, 4, 4}},
            "max_pool2d_with_indices.default", {IntsArg("kernel_size", {2, 2})},
            {{"y", kF32, {2, 2, 2, 2}}, {"mp_unused_1", kI64, {2, 2, 2, 2}}}, {"MaxPool"}));
  add(Unary("max_pool2d_with_indices_symbolic", {"x", kF32, {2, 2, 4, 4}, {"s0", "", "s1", ""}},
            "max_pool2d_with_indices.default", {IntsArg("kernel_size", {2, 2})},
            {{"y", kF32, {2, 2, 2, 2}, {"s0", "", "s2", ""}},
             {"i", kI64, {2, 2, 2, 2}, {"s0", "", "s2", ""}}},
            {"MaxPool", "Shape", "ReduceProd", "Mod"}));

  // avg pools
  add(Unary("avg_pool2d", x77, "avg_pool2d.default",
            {IntsArg("kernel_size", {3, 3}), IntsArg("stride", {2, 2}), IntsArg("padding", {1, 1})},
            {{"y", kF32, {1, 2, 4, 4}}}, {"AveragePool"}));
  add(Unary("avg_pool1d", {"x", kF32, {2, 3, 9}}, "avg_pool1d.default",
            {IntsArg("kernel_size", {3}), IntsArg("stride", {2}), IntsArg("padding", {1})},
            {{"y", kF32, {2, 3, 5}}}, {"AveragePool"}));
  // Uncounted padding: extra end padding is exact, so floor mode.
  add(WithPool(Unary("avg_pool2d_ceil_no_count_pad", x55, "avg_pool2d.default",
                     {IntsArg("kernel_size", {2, 2}), BoolArg("ceil_mode", true),
                      BoolArg("count_include_pad", false)},
                     {{"y", kF32, {1, 2, 3, 3}}}, {"AveragePool"}),
               {0, 0, 1, 1}, 0));
  // Counted padding: torch's clipped divisor needs ONNX's own ceil mode.
  add(WithPool(Unary("avg_pool2d_ceil_count_pad", x55, "avg_pool2d.default",
                     {IntsArg("kernel_size", {2, 2}), BoolArg("ceil_mode", true)},
                     {{"y", kF32, {1, 2, 3, 3}}}, {"AveragePool"}),
               {0, 0, 0, 0}, 1));
  add(Unary("avg_pool2d_divisor_override", {"x", kF32, {1, 2, 6, 6}}, "avg_pool2d.default",
            {IntsArg("kernel_size", {2, 2}), IntsArg("stride", {2, 2}), IntsArg("padding", {0, 0}),
             BoolArg("ceil_mode", false), BoolArg("count_include_pad", true),
             IntArg("divisor_override", 3)},
            {{"y", kF32, {1, 2, 3, 3}}}, {"Pad", "Mul", "AveragePool"}));
  // divisor_override replaces the count: uncounted padding and ceil_mode
  // windows (folded into end padding) convert too.
  add(Unary("avg_pool2d_divisor_override_ceil", {"x", kF32, {1, 3, 9, 9}}, "avg_pool2d.default",
            {IntsArg("kernel_size", {4, 4}), IntsArg("stride", {2, 3}), IntsArg("padding", {1, 1}),
             BoolArg("ceil_mode", true), BoolArg("count_include_pad", false),
             IntArg("divisor_override", 2)},
            {{"y", kF32, {1, 3, 5, 4}}}, {"Pad", "Mul", "AveragePool"}));
  add(Unary("avg_pool3d", {"x", kF32, {1, 2, 4, 4, 4}}, "avg_pool3d.default",
            {IntsArg("kernel_size", {2, 2, 2})}, {{"y", kF32, {1, 2, 2, 2, 2}}}, {"AveragePool"}));

  // adaptive pools
  add(Unary("adaptive_avg_pool2d_global", {"x", kF32, {1, 3, 4, 6}}, "adaptive_avg_pool2d.default",
            {IntsArg("output_size", {1, 1})}, {{"y", kF32, {1, 3, 1, 1}}}, {"GlobalAveragePool"}));
  add(Unary("adaptive_avg_pool2d_global_symbolic",
            {"x", kF32, {2, 3, 4, 6}, {"s0", "", "s1", "s2"}},
            "adaptive_avg_pool2d.default", {IntsArg("output_size", {1, 1})},
            {{"y", kF32, {2, 3, 1, 1}, {"s0", "", "", ""}}}, {"GlobalAveragePool"}));
  add(Unary("adaptive_avg_pool2d_divisible", {"x", kF32, {1, 3, 4, 6}},
            "_adaptive_avg_pool2d.default", {IntsArg("output_size", {2, 3})},
            {{"y", kF32, {1, 3, 2, 3}}}, {"AveragePool"}));
  add(Unary("adaptive_avg_pool1d", {"x", kF32, {2, 3, 6}}, "adaptive_avg_pool1d.default",
            {IntsArg("output_size", {3})}, {{"y", kF32, {2, 3, 3}}}, {"AveragePool"}));
  add(Unary("adaptive_avg_pool2d_unbatched", {"x", kF32, {3, 4, 6}}, "adaptive_avg_pool2d.default",
            {IntsArg("output_size", {1, 1})}, {{"y", kF32, {3, 1, 1}}},
            {"Unsqueeze", "GlobalAveragePool", "Squeeze"}));
  add(Unary("adaptive_max_pool2d", {"x", kF32, {1, 3, 4, 6}}, "adaptive_max_pool2d.default",
            {IntsArg("output_size", {2, 2})},
            {{"y", kF32, {1, 3, 2, 2}}, {"am_unused_1", kI64, {1, 3, 2, 2}}}, {"MaxPool"}));
  add(Unary("adaptive_max_pool2d_indices", {"x", kF32, {1, 3, 4, 6}},
            "adaptive_max_pool2d.default", {IntsArg("output_size", {1, 1})},
            {{"y", kF32, {1, 3, 1, 1}}, {"i", kI64, {1, 3, 1, 1}}}, {"MaxPool", "Mod"}));

  // upsample -> Resize
  const TensorSpec x34{"x", kF32, {1, 2, 3, 4}};
  add(Unary("upsample_nearest2d_vec_scales", x34, "upsample_nearest2d.vec",
            {NoneArg("output_size"), FloatsArg("scale_factors", {2.0, 2.0})},
            {{"y", kF32, {1, 2, 6, 8}}}, {"Resize"}, "input"));
  add(Unary("upsample_nearest2d_vec_size", x34, "upsample_nearest2d.vec",
            {IntsArg("output_size", {5, 7}), NoneArg("scale_factors")},
            {{"y", kF32, {1, 2, 5, 7}}}, {"Resize"}, "input"));
  add(Unary("upsample_nearest2d", x34, "upsample_nearest2d.default",
            {IntsArg("output_size", {6, 8})}, {{"y", kF32, {1, 2, 6, 8}}}, {"Resize"}));
  add(Unary("upsample_bilinear2d_align_corners", x34, "upsample_bilinear2d.default",
            {IntsArg("output_size", {6, 8}), BoolArg("align_corners", true)},
            {{"y", kF32, {1, 2, 6, 8}}}, {"Resize"}));
  add(Unary("upsample_bilinear2d_vec", x34, "upsample_bilinear2d.vec",
            {NoneArg("output_size"), BoolArg("align_corners", false),
             FloatsArg("scale_factors", {2.0, 1.5})},
            {{"y", kF32, {1, 2, 6, 6}}}, {"Resize"}, "input"));
  add(Unary("upsample_bicubic2d", x34, "upsample_bicubic2d.default",
            {IntsArg("output_size", {6, 8}), BoolArg("align_corners", false)},
            {{"y", kF32, {1, 2, 6, 8}}}, {"Resize"}));
  add(Unary("upsample_nearest_exact1d", {"x", kF32, {1, 2, 3}}, "_upsample_nearest_exact1d.default",
            {IntsArg("output_size", {5})}, {{"y", kF32, {1, 2, 5}}}, {"Resize"}));
  add(Unary("upsample_trilinear3d_vec", {"x", kF32, {1, 1, 2, 2, 2}}, "upsample_trilinear3d.vec",
            {NoneArg("output_size"), BoolArg("align_corners", false),
             FloatsArg("scale_factors", {2.0, 2.0, 2.0})},
            {{"y", kF32, {1, 1, 4, 4, 4}}}, {"Resize"}, "input"));

  // padding -> Pad
  const TensorSpec x23{"x", kF32, {1, 2, 3, 4}};
  add(Unary("constant_pad_nd", x23, "constant_pad_nd.default",
            {IntsArg("pad", {1, 2, 0, 1}), FloatArg("value", 0.5)}, {{"y", kF32, {1, 2, 4, 7}}},
            {"Pad"}));
  add(Unary("constant_pad_nd_crop", x23, "constant_pad_nd.default", {IntsArg("pad", {-1, -1})},
            {{"y", kF32, {1, 2, 3, 2}}}, {"Pad"}));
  add(Unary("constant_pad_nd_int64", {"x", kI64, {3, 4}}, "constant_pad_nd.default",
            {IntsArg("pad", {1, 1}), IntArg("value", 7)}, {{"y", kI64, {3, 6}}}, {"Pad"}));
  add(Unary("pad_reflect", x23, "pad.default",
            {IntsArg("pad", {1, 1, 2, 2}), StringArg("mode", "reflect")},
            {{"y", kF32, {1, 2, 7, 6}}}, {"Pad"}));
  add(Unary("pad_replicate", x23, "pad.default",
            {IntsArg("pad", {1, 0}), StringArg("mode", "replicate")}, {{"y", kF32, {1, 2, 3, 5}}},
            {"Pad"}));
  // A crop that removes the whole dim still repeats its edge in torch: gathers.
  add(Unary("pad_replicate_crop", x23, "pad.default",
            {IntsArg("pad", {-4, 5}), StringArg("mode", "replicate")}, {{"y", kF32, {1, 2, 3, 5}}},
            {"Gather"}));
  add(AtOpset(Unary("pad_circular", x23, "pad.default",
                    {IntsArg("pad", {1, 1}), StringArg("mode", "circular")},
                    {{"y", kF32, {1, 2, 3, 6}}}, {"Pad"}),
              19));
  // An empty input pads to the empty result itself (ONNX Runtime's wrap mode fails on it).
  add(Unary("pad_circular_empty", {"x", kF32, {0, 3, 3}}, "pad.default",
            {IntsArg("pad", {1, 2}), StringArg("mode", "circular")}, {{"y", kF32, {0, 3, 6}}}, {}));
  add(Unary("reflection_pad2d", x23, "reflection_pad2d.default", {IntsArg("padding", {1, 1, 1, 1})},
            {{"y", kF32, {1, 2, 5, 6}}}, {"Pad"}));
  add(Unary("replication_pad1d", {"x", kF32, {2, 3}}, "replication_pad1d.default",
            {IntsArg("padding", {2, 1})}, {{"y", kF32, {2, 6}}}, {"Pad"}));
  add(Unary("constant_pad_nd_symbolic", x23, "constant_pad_nd.default",
            {SymIntsArg("pad", {"1", "2"})}, {{"y", kF32, {1, 2, 3, 7}}}, {"Pad"}));
  // ceil_mode whose extra window needs end padding >= the kernel: ceil_mode
  // stays on the node (ONNX shape inference drops the window from opset 22).
  add(WithPool(AtOpset(Unary("max_pool3d_ceil_window_in_padding", {"x", kF32, {1, 2, 8, 5, 4}},
                             "max_pool3d.default",
                             {IntsArg("kernel_size", {2, 3, 3}), IntsArg("stride", {3, 2, 3}),
                              IntsArg("padding", {1, 0, 1}), IntsArg("dilation", {1, 1, 2}),
                              BoolArg("ceil_mode", true)},
                             {{"y", kF32, {1, 2, 3, 2, 2}}}, {"MaxPool"}),
                       22),
               {1, 0, 1, 1, 0, 1}, 1));
  // Uneven adaptive pools: windows gathered dim by dim.
  const std::vector<std::string> gather_windows = {
      "Range", "Mul",   "Div",       "Add", "Mul", "Add", "Div", "Unsqueeze",
      "Unsqueeze", "Range", "Unsqueeze", "Add", "Sub", "Min", "Gather"};
  std::vector<std::string> uneven_avg = gather_windows;  // H: W trails it
  for (const char* op : {"Less", "Unsqueeze", "Where", "ReduceSum", "Sub", "Cast", "Unsqueeze",
                         "Div"}) {
    uneven_avg.push_back(op);
  }
  uneven_avg.insert(uneven_avg.end(), gather_windows.begin(), gather_windows.end());
  for (const char* op : {"Less", "Where", "ReduceSum", "Sub", "Cast", "Div"}) {
    uneven_avg.push_back(op);  // W: the last dim
  }
  std::vector<std::string> uneven_max = gather_windows;
  // ReduceMax, then NaN restored where a window holds one.
  for (const char* op : {"ReduceMax", "IsNaN", "Cast", "ReduceMax", "Greater", "Where"}) uneven_max.push_back(op);
  add(Unary("adaptive_avg_pool2d_uneven", x55, "adaptive_avg_pool2d.default",
            {IntsArg("output_size", {3, 2})}, {{"y", kF32, {1, 2, 3, 2}}}, uneven_avg));
  add(Unary("adaptive_max_pool1d_uneven", {"x", kF32, {2, 3, 10}}, "adaptive_max_pool1d.default",
            {IntsArg("output_size", {4})},
            {{"y", kF32, {2, 3, 4}}, {"i_unused_1", kI64, {2, 3, 4}}}, uneven_max));
  return cases;
}

class PoolingOpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(PoolingOpsTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  pt2::ExportedProgram program = c.program.Build();
  std::optional<Converted> got = ConvertAndExpect(program, c.ops, {c.opset});
  if (!got || c.ceil_mode < 0) return;
  for (const ir::Node& node : got->model.graph.nodes) {
    if (node.op_type != "MaxPool" && node.op_type != "AveragePool") continue;
    const ir::Attribute* pads = node.FindAttribute("pads");
    const ir::Attribute* ceil_mode = node.FindAttribute("ceil_mode");
    ASSERT_NE(pads, nullptr);
    ASSERT_NE(ceil_mode, nullptr);
    EXPECT_EQ(pads->ints(), c.pads);
    EXPECT_EQ(ceil_mode->i(), c.ceil_mode);
    break;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PoolingOpsTest, ::testing::ValuesIn(Cases()), CaseName());

std::vector<ErrorCase> ErrorCases() {
  const TensorSpec x{"x", kF32, {1, 2, 5, 5}};
  return {
      // Amounts from a hostile file: refused before any sum could overflow.
      {"pad_replicate_crop_out_of_range",
       Unary("p", x, "pad.default", {IntsArg("pad", {INT64_MIN, 5}), StringArg("mode", "replicate")},
             {{"y", kF32, {1, 2, 5, 5}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "is out of range"},
      {"adaptive_output_size_zero",
       Unary("a", x, "adaptive_avg_pool2d.default", {IntsArg("output_size", {0, 3})},
             {{"y", kF32, {1, 2, 0, 3}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "adaptive pooling from size 5 to 0"},
      {"adaptive_symbolic",
       Unary("a", {"x", kF32, {1, 2, 4, 4}, {"", "", "s0", "s1"}}, "adaptive_avg_pool2d.default",
             {IntsArg("output_size", {2, 2})}, {{"y", kF32, {1, 2, 2, 2}}}, {}).program,
       absl::StatusCode::kUnimplemented, "static input sizes"},
      {"adaptive_output_size_empty",
       Unary("a", x, "adaptive_max_pool2d.default", {IntsArg("output_size", {})},
             {{"y", kF32, {1, 2, 1, 1}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "output_size is empty"},
      {"max_pool_wrong_rank",
       Unary("a", {"x", kF32, {5, 5}}, "max_pool2d.default", {IntsArg("kernel_size", {2, 2})},
             {{"y", kF32, {2, 2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "self has rank 2, expected 3 or 4"},
      {"upsample_antialias_align_corners",
       Unary("a", x, "_upsample_bilinear2d_aa.vec",
             {IntsArg("output_size", {3, 3}), BoolArg("align_corners", true),
              NoneArg("scale_factors")},
             {{"y", kF32, {1, 2, 3, 3}}}, {}, "input").program,
       absl::StatusCode::kUnimplemented, "antialias=True with align_corners=True"},
      {"upsample_scales_not_output_size",
       Unary("a", x, "upsample_nearest2d.default",
             {IntsArg("output_size", {8, 8}), FloatArg("scales_h", 1.5), FloatArg("scales_w", 1.5)},
             {{"y", kF32, {1, 2, 8, 8}}}, {}).program,
       absl::StatusCode::kUnimplemented, "output_size 8 is not floor(5 * scale 1.5)"},
      {"upsample_wrong_rank",
       Unary("a", {"x", kF32, {2, 5, 5}}, "upsample_bilinear2d.default",
             {IntsArg("output_size", {8, 8}), BoolArg("align_corners", false)},
             {{"y", kF32, {2, 8, 8}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "input has rank 3, expected 4"},
      {"upsample_vec_scale_count",
       Unary("a", x, "upsample_nearest2d.vec",
             {NoneArg("output_size"), FloatsArg("scale_factors", {2.0})},
             {{"y", kF32, {1, 2, 10, 10}}}, {}, "input").program,
       absl::StatusCode::kInvalidArgument, "expected 2 scale factors, got 1"},
      {"upsample_bicubic_scale_keeps_sizes",
       Unary("a", {"x", kF32, {1, 2, 7, 13}}, "upsample_bicubic2d.vec",
             {NoneArg("output_size"), BoolArg("align_corners", false),
              FloatsArg("scale_factors", {1.05, 1.05})},
             {{"y", kF32, {1, 2, 7, 13}}}, {}, "input").program,
       absl::StatusCode::kUnimplemented, "leave every size unchanged: torch's cubic kernel"},
      {"upsample_nearest_exact_symbolic_scale_near_one",
       Unary("a", {"x", kF32, {1, 2, 7, 13}, {"", "", "h", "w"}}, "_upsample_nearest_exact2d.vec",
             {NoneArg("output_size"), FloatsArg("scale_factors", {1.5, 1.5})},
             {{"y", kF32, {1, 2, 10, 19}, {"", "", "h2", "w2"}}}, {}, "input").program,
       absl::StatusCode::kUnimplemented, "may leave every size unchanged"},
      {"upsample_antialias_width_to_one",
       Unary("a", {"x", kF32, {1, 2, 20, 3}}, "_upsample_bilinear2d_aa.vec",
             {NoneArg("output_size"), BoolArg("align_corners", false),
              FloatsArg("scale_factors", {0.3, 0.34})},
             {{"y", kF32, {1, 2, 6, 1}}}, {}, "input").program,
       absl::StatusCode::kUnimplemented, "while the width shrinks to 1"},
      {"pad_odd_count",
       Unary("a", x, "constant_pad_nd.default", {IntsArg("pad", {1, 2, 3})},
             {{"y", kF32, {1, 2, 5, 8}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "pad has 3 entries for a rank-4 input"},
      {"pad_too_many",
       Unary("a", {"x", kF32, {5}}, "reflection_pad1d.default", {IntsArg("padding", {1, 1, 1, 1})},
             {{"y", kF32, {7}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "padding has 4 entries for a rank-1 input"},
      {"pad_unknown_mode",
       Unary("a", x, "pad.default", {IntsArg("pad", {1, 1}), StringArg("mode", "symmetric")},
             {{"y", kF32, {1, 2, 5, 7}}}, {}).program,
       absl::StatusCode::kUnimplemented, "pad mode 'symmetric'"},
      {"pool_kernel_zero",
       Unary("a", x, "max_pool2d.default", {IntsArg("kernel_size", {0, 2})},
             {{"y", kF32, {1, 2, 2, 2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "kernel_size entry 0 is outside [1, "},
      {"pool_stride_negative",
       Unary("a", x, "avg_pool2d.default",
             {IntsArg("kernel_size", {2, 2}), IntsArg("stride", {-1, 1})},
             {{"y", kF32, {1, 2, 2, 2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "stride entry -1 is outside [1, "},
      {"pool_dilation_huge",
       Unary("a", x, "max_pool2d.default",
             {IntsArg("kernel_size", {2, 2}), IntsArg("dilation", {int64_t{1} << 40, 1})},
             {{"y", kF32, {1, 2, 2, 2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "dilation entry 1099511627776 is outside"},
      {"pool_padding_over_half_kernel",
       Unary("a", x, "max_pool2d.default",
             {IntsArg("kernel_size", {2, 2}), IntsArg("padding", {2, 0})},
             {{"y", kF32, {1, 2, 4, 2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "padding 2 should be in [0, 1]"},
      {"ceil_mode_window_in_padding_below_opset22",
       Unary("a", {"x", kF32, {1, 2, 8, 5, 4}}, "max_pool3d.default",
             {IntsArg("kernel_size", {2, 3, 3}), IntsArg("stride", {3, 2, 3}),
              IntsArg("padding", {1, 0, 1}), IntsArg("dilation", {1, 1, 2}),
              BoolArg("ceil_mode", true)},
             {{"y", kF32, {1, 2, 3, 2, 2}}}, {}).program,
       absl::StatusCode::kUnimplemented, "convert with --opset 22 or later"},
      {"avg_pool_ceil_count_pad_opset18",
       Unary("a", {"x", kF32, {1, 2, 5, 6, 7}}, "avg_pool3d.default",
             {IntsArg("kernel_size", {2, 2, 2}), IntsArg("stride", {2, 2, 2}),
              BoolArg("ceil_mode", true)},
             {{"y", kF32, {1, 2, 3, 3, 4}}}, {}).program,
       absl::StatusCode::kUnimplemented, "convert with --opset 19 or later", 18},
      {"circular_opset18",
       Unary("a", x, "pad.default", {IntsArg("pad", {1, 1}), StringArg("mode", "circular")},
             {{"y", kF32, {1, 2, 5, 7}}}, {}).program,
       absl::StatusCode::kUnimplemented, "opset 19", 18},
  };
}

// Scale 1.1 over symbolic sizes: whether a dim keeps its size (torch then
// copies it) is decided at run time. (ONNX shape inference loses N and C
// through the computed scales, so only the graph is checked here; the
// upsample_size_shortcuts_dynamic fixture checks the numbers.)
TEST(ResampleOpsTest, ScaleNearOneOverSymbolicSizesIsDecidedAtRunTime) {
  Case c = Unary("n", {"x", kF32, {1, 2, 7, 13}, {"", "", "h", "w"}}, "upsample_nearest2d.vec",
                 {NoneArg("output_size"), FloatsArg("scale_factors", {1.1, 1.1})},
                 {{"y", kF32, {1, 2, 7, 14}, {"", "", "h2", "w2"}}}, {}, "input");
  absl::StatusOr<Converted> got = ConvertAndCheck(c.program.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OpTypesAre(got->model, {"Slice", "Shape", "Cast", "Mul", "Floor", "Equal", "Where",
                                      "Mul", "Equal", "Where", "Concat", "Resize"}));
}

using PoolingOpsErrorsTest = ErrorCaseTest;

TEST_P(PoolingOpsErrorsTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Cases, PoolingOpsErrorsTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

}  // namespace
}  // namespace pt2onnx::testing
