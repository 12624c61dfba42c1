// Tests for ops/sampling.cc: GridSample's mode names per opset, the 5-D
// refusal below opset 20, bad mode codes, and Col2Im. Numerics:
// tests/fixtures/ops/{grid_sampler_2d,grid_sample,col2im}.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder Grid(std::string overload, std::vector<int64_t> x, std::vector<int64_t> grid,
                    std::vector<int64_t> out, int64_t mode, int64_t padding) {
  return OneNodeProgram({{"x", kF32, x}, {"g", kF32, grid}}, overload,
                        {TensorArg("input", "x"), TensorArg("grid", "g"),
                         IntArg("interpolation_mode", mode),
                         IntArg("padding_mode", padding), BoolArg("align_corners", false)},
                        {{"y", kF32, out}});
}

std::string ModeAttribute(const ir::Model& model) {
  const ir::Node* node = FindNode(model, "GridSample");
  if (node == nullptr) return "";
  for (const ir::Attribute& a : node->attributes) {
    if (a.name == "mode") return a.s();
  }
  return "";
}

TEST(Sampling, GridSampleModeNamesFollowTheOpset) {
  for (auto [opset, mode, want] : std::vector<std::tuple<int, int64_t, std::string>>{
           {18, 0, "bilinear"}, {18, 2, "bicubic"}, {20, 0, "linear"}, {20, 2, "cubic"},
           {20, 1, "nearest"}}) {
    pt2::ExportedProgram program =
        Grid("grid_sampler_2d.default", {1, 2, 4, 5}, {1, 3, 3, 2}, {1, 2, 3, 3}, mode, 2).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program, opset);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(ModeAttribute(got->model), want) << "opset " << opset << " mode " << mode;
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(Sampling, Refusals) {
  std::vector<ErrorCase> cases = {
      {"volumetric_before_opset_20",
       Grid("grid_sampler.default", {1, 2, 3, 4, 5}, {1, 2, 2, 2, 3}, {1, 2, 2, 2, 2}, 0, 0),
       absl::StatusCode::kUnimplemented, "--opset 20", 18},
      {"volumetric_bicubic",
       Grid("grid_sampler.default", {1, 2, 3, 4, 5}, {1, 2, 2, 2, 3}, {1, 2, 2, 2, 2}, 2, 0),
       absl::StatusCode::kInvalidArgument, "bicubic"},
      {"volumetric_2d_overload",
       Grid("grid_sampler_2d.default", {1, 2, 3, 4, 5}, {1, 2, 2, 2, 3}, {1, 2, 2, 2, 2}, 0, 0),
       absl::StatusCode::kInvalidArgument, "(N, C, H, W)"},
      {"bad_interpolation",
       Grid("grid_sampler_2d.default", {1, 2, 4, 5}, {1, 3, 3, 2}, {1, 2, 3, 3}, 3, 0),
       absl::StatusCode::kInvalidArgument, "interpolation_mode"},
      {"bad_padding",
       Grid("grid_sampler_2d.default", {1, 2, 4, 5}, {1, 3, 3, 2}, {1, 2, 3, 3}, 0, 5),
       absl::StatusCode::kInvalidArgument, "padding_mode"},
  };
  for (const ErrorCase& c : cases) {
    EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build(), c.opset), c.code,
                          c.message)) << c.name;
  }
}

TEST(Sampling, Col2ImUnbatched) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"c", kF32, {12, 16}}}, "col2im.default",
                     {TensorArg("self", "c"), IntsArg("output_size", {5, 6}),
                      IntsArg("kernel_size", {2, 3}),
                      IntsArg("dilation", {1, 1}), IntsArg("padding", {0, 0}), IntsArg("stride",
                                                                                       {1, 1})},
                     {{"y", kF32, {2, 5, 6}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

}  // namespace
}  // namespace pt2onnx::testing
