// Tests for ops/library_ops.cc: transformers::grouped_mm_fallback becomes
// one MatMul per expert over its row block, then zero rows; torchvision's
// roi_align / roi_pool / nms become RoiAlign / MaxRoiPool /
// NonMaxSuppression; refusals. Numerics: tests/fixtures/ops/grouped_mm_*,
// torchvision_*, models/hf_qwen3_moe.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr char kGroupedMm[] = "torch.ops.transformers.grouped_mm_fallback.default";

// Rows symbolic, as in exported MoE layers (tokens x top-k).
ProgramBuilder GroupedMm(int64_t experts) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0", "4"});
  b.Input("w", kF32, {experts, 4, 5});
  b.Input("offs", kI32, {experts});
  TensorSpec y{"y", kF32, {2, 5}, {"s0", ""}};
  b.Node(kGroupedMm, {TensorArg("input", "x"), TensorArg("weight", "w"), TensorArg("offs", "offs")}, {y});
  b.Output("y");
  return b;
}

TEST(GroupedMmFallback, OneMatMulPerExpert) {
  pt2::ExportedProgram program = GroupedMm(3).Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {true}));
  int matmuls = 0;
  for (const std::string& op : OpTypes(got->model)) matmuls += op == "MatMul";
  EXPECT_EQ(matmuls, 3);
}

TEST(GroupedMmFallback, Errors) {
  ProgramBuilder flat;
  flat.Input("x", kF32, {6, 4}).Input("w", kF32, {4, 5}).Input("offs", kI64, {2});
  flat.Node(kGroupedMm, {TensorArg("input", "x"), TensorArg("weight", "w"), TensorArg("offs", "offs")},
            {{"y", kF32, {6, 5}}});
  flat.Output("y");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(flat.Build()), absl::StatusCode::kInvalidArgument, "expects input (S, K)"));
  ProgramBuilder mismatched;
  mismatched.Input("x", kF32, {6, 4}).Input("w", kF32, {3, 4, 5}).Input("offs", kI64, {2});
  mismatched.Node(kGroupedMm, {TensorArg("input", "x"), TensorArg("weight", "w"), TensorArg("offs", "offs")},
                  {{"y", kF32, {6, 5}}});
  mismatched.Output("y");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(mismatched.Build()), absl::StatusCode::kInvalidArgument, "offsets for 3"));
}

ProgramBuilder Torchvision(const std::string& op, std::vector<pt2::NamedArgument> extra,
                           std::vector<TensorSpec> outputs) {
  ProgramBuilder b;
  b.Input("x", kF32, {2, 3, 8, 8}).Input("rois", kF32, {4, 5});
  std::vector<pt2::NamedArgument> args = {TensorArg("input", "x"), TensorArg("rois", "rois")};
  args.insert(args.end(), extra.begin(), extra.end());
  b.Node("torch.ops.torchvision." + op + ".default", std::move(args), outputs);
  b.Output(outputs[0].name);
  return b;
}

TEST(Torchvision, RoiAlignModesFollowAligned) {
  for (bool aligned : {true, false}) {
    pt2::ExportedProgram program =
        Torchvision("roi_align",
                    {FloatArg("spatial_scale", 0.5), IntArg("pooled_height", 3), IntArg("pooled_width", 2),
                     IntArg("sampling_ratio", -1), BoolArg("aligned", aligned)},
                    {{"y", kF32, {4, 3, 3, 2}}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    const ir::Node* node = FindNode(got->model, "RoiAlign");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->FindAttribute("coordinate_transformation_mode")->s(),
              aligned ? "half_pixel" : "output_half_pixel");
    EXPECT_EQ(node->FindAttribute("sampling_ratio")->i(), 0);  // torchvision: negative means adaptive
  }
}

TEST(Torchvision, RoiPoolRefusesItsArgmaxOutput) {
  pt2::ExportedProgram program =
      Torchvision("roi_pool", {FloatArg("spatial_scale", 1.0), IntArg("pooled_height", 2), IntArg("pooled_width", 2)},
                  {{"y", kF32, {4, 3, 2, 2}}, {"argmax", kI64, {4, 3, 2, 2}}})
          .Output("argmax")
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented, "argmax"));
}

TEST(Torchvision, NmsKeepsTheThirdColumn) {
  ProgramBuilder b;
  b.Input("boxes", kF32, {6, 4}).Input("scores", kF32, {6});
  b.Node("torch.ops.torchvision.nms.default",
         {TensorArg("dets", "boxes"), TensorArg("scores", "scores"), FloatArg("iou_threshold", 0.5)},
         {{"keep", kI64, {3}, {"u0"}}});
  b.Output("keep");
  pt2::ExportedProgram program = b.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {true}));
  EXPECT_NE(FindNode(got->model, "NonMaxSuppression"), nullptr);
}

}  // namespace
}  // namespace pt2onnx::testing
