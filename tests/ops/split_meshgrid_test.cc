// Tests for ops/split_meshgrid.cc (reshape_as, tensor_split, hsplit / vsplit /
// dsplit, meshgrid): shapes,
// and the refusals of bad arguments. Numerics: tests/fixtures/ops/
// {reshape_as,tensor_split,meshgrid}.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder Split(std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs) {
  ProgramBuilder p;
  p.Input("x", kF32, {3, 8});
  args.insert(args.begin(), TensorArg("self", "x"));
  p.ListNode(Aten("tensor_split.sections"), std::move(args), outs);
  for (const TensorSpec& o : outs) p.Output(o.name);
  return p;
}

ProgramBuilder Grid(std::string indexing) {
  ProgramBuilder p;
  p.Input("a", kF32, {3}).Input("b", kF32, {4});
  p.ListNode(Aten("meshgrid.indexing"),
             {TensorsArg("tensors", {"a", "b"}), StringArg("indexing", indexing)},
             {{"ga", kF32, {4, 3}}, {"gb", kF32, {4, 3}}});
  p.Output("ga").Output("gb");
  return p;
}

TEST(SplitMeshgrid, ConvertsWithInferredShapes) {
  for (const ProgramBuilder& p :
       {Grid("xy"), Split({IntArg("sections", 3), IntArg("dim", -1)},
                          {{"p0", kF32, {3, 3}}, {"p1", kF32, {3, 3}}, {"p2", kF32, {3, 2}}})}) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

// hsplit / vsplit / dsplit (.int and .array) and tensor_split by an indices
// tensor: one Tensor[] output of the expected pieces.
ProgramBuilder NumpySplit(const std::string& overload, std::vector<int64_t> in_shape,
                          std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs) {
  ProgramBuilder p;
  p.Input("x", kF32, in_shape);
  args.insert(args.begin(), TensorArg("self", "x"));
  p.ListNode(Aten(overload), std::move(args), outs);
  for (const TensorSpec& o : outs) p.Output(o.name);
  return p;
}

TEST(SplitMeshgrid, NumpySplits) {
  for (const ProgramBuilder& p : {
           NumpySplit("hsplit.int", {6}, {IntArg("sections", 2)}, {{"p0", kF32, {3}}, {"p1", kF32, {3}}}),
           NumpySplit("hsplit.array", {2, 5}, {IntsArg("indices", {1, 3})},
                      {{"p0", kF32, {2, 1}}, {"p1", kF32, {2, 2}}, {"p2", kF32, {2, 2}}}),
           NumpySplit("vsplit.int", {4, 3}, {IntArg("sections", 2)}, {{"p0", kF32, {2, 3}}, {"p1", kF32, {2, 3}}}),
           NumpySplit("vsplit.array", {5, 2}, {IntsArg("indices", {2})}, {{"p0", kF32, {2, 2}}, {"p1", kF32, {3, 2}}}),
           NumpySplit("dsplit.int", {2, 2, 6}, {IntArg("sections", 3)},
                      {{"p0", kF32, {2, 2, 2}}, {"p1", kF32, {2, 2, 2}}, {"p2", kF32, {2, 2, 2}}}),
           NumpySplit("dsplit.array", {1, 2, 5}, {IntsArg("indices", {4})},
                      {{"p0", kF32, {1, 2, 4}}, {"p1", kF32, {1, 2, 1}}}),
       }) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

TEST(SplitMeshgrid, TensorSplitByIndicesTensor) {
  ProgramBuilder p;
  p.Input("x", kF32, {5, 4}).Input("i", kI64, {2});
  p.ListNode(Aten("tensor_split.tensor_indices_or_sections"),
             {TensorArg("self", "x"), TensorArg("tensor_indices_or_sections", "i"), IntArg("dim", 1)},
             {{"p0", kF32, {5, 1}}, {"p1", kF32, {5, 2}}, {"p2", kF32, {5, 1}}});
  p.Output("p0").Output("p1").Output("p2");
  pt2::ExportedProgram program = p.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(SplitMeshgrid, NumpySplitRefusals) {
  std::vector<ErrorCase> cases = {
      {"vsplit_1d", NumpySplit("vsplit.int", {6}, {IntArg("sections", 2)}, {{"p0", kF32, {3}}, {"p1", kF32, {3}}}),
       absl::StatusCode::kInvalidArgument, "at least 2 dims"},
      {"hsplit_indivisible",
       NumpySplit("hsplit.int", {2, 5}, {IntArg("sections", 2)}, {{"p0", kF32, {2, 3}}, {"p1", kF32, {2, 2}}}),
       absl::StatusCode::kInvalidArgument, "not divisible by 2"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

TEST(SplitMeshgrid, Refusals) {
  std::vector<ErrorCase> cases = {
      {"dim_out_of_range", Split({IntArg("sections", 1), IntArg("dim", 2)}, {{"p0", kF32, {3, 8}}}),
       absl::StatusCode::kInvalidArgument, "dim of aten::tensor_split"},
      {"zero_sections", Split({IntArg("sections", 0), IntArg("dim", 0)}, {{"p0", kF32, {3, 8}}}),
       absl::StatusCode::kInvalidArgument, "sections must be positive"},
      {"sections_vs_outputs",
       Split({IntArg("sections", 2), IntArg("dim", 0)}, {{"p0", kF32, {3, 8}}}),
       absl::StatusCode::kInvalidArgument, "the program expects 1"},
      {"bad_indexing", Grid("yx"), absl::StatusCode::kInvalidArgument,
       "indexing must be 'ij' or 'xy'"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

}  // namespace
}  // namespace pt2onnx::testing
