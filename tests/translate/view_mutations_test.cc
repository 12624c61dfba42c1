// Tests for ops/view_mutations.cc: an in-place op on a slice / select view is
// written back into the base; mutations that would leave a view stale, or
// that go through other views of a base read later, are refused with advice.
// Numerics: tests/fixtures/ops/view_write_back.
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

// c = clone(x); s = <view>(c); f = fill_(s, 7); out = c + c.
ProgramBuilder FillThroughView(std::string view, std::vector<pt2::NamedArgument> view_args,
                               std::vector<int64_t> view_shape) {
  view_args.insert(view_args.begin(), TensorArg("self", "c"));
  return ProgramBuilder()
      .Input("x", kF32, {2, 3})
      .Node(Aten("clone.default"), {TensorArg("self", "x")}, {{"c", kF32, {2, 3}}})
      .Node(Aten(view), view_args, {{"s", kF32, view_shape}})
      .Node(Aten("fill_.Scalar"), {TensorArg("self", "s"), FloatArg("value", 7)},
            {{"f", kF32, view_shape}})
      .Node(Aten("add.Tensor"), {TensorArg("self", "c"), TensorArg("other", "c")},
            {{"out", kF32, {2, 3}}});
}

TEST(ViewMutations, SliceWriteIsScatteredIntoTheBase) {
  pt2::ExportedProgram program =
      FillThroughView("slice.Tensor", {IntArg("dim", 1), IntArg("start", 1), IntArg("end", 3)},
                      {2, 2})
          .Output("out")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  // The sum reads the written base, not x.
  const ir::Node* add = FindNode(got->model, "Add");
  ASSERT_NE(add, nullptr);
  EXPECT_NE(add->inputs[0], "x");
}

TEST(ViewMutations, SelectWriteIsScatteredIntoTheBase) {
  pt2::ExportedProgram program =
      FillThroughView("select.int", {IntArg("dim", 0), IntArg("index", 1)}, {3})
          .Output("out")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(ViewMutations, WriteThroughAReshapeOfABaseReadLaterIsRefused) {
  pt2::ExportedProgram program =
      FillThroughView("view.default", {IntsArg("size", {3, 2})}, {3, 2}).Output("out").Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented,
                        "run_decompositions()"));
}

TEST(ViewMutations, ViewLeftStaleByAMutationIsRefused) {
  // s = slice(c); relu_(c); out = s + s: torch's s sees the relu.
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("x", kF32, {2, 3})
          .Node(Aten("clone.default"), {TensorArg("self", "x")}, {{"c", kF32, {2, 3}}})
          .Node(Aten("slice.Tensor"), {TensorArg("self", "c"), IntArg("dim", 1), IntArg("end", 2)},
                {{"s", kF32, {2, 2}}})
          .Node(Aten("relu_.default"), {TensorArg("self", "c")}, {{"r", kF32, {2, 3}}})
          .Node(Aten("add.Tensor"), {TensorArg("self", "s"), TensorArg("other", "s")},
                {{"out", kF32, {2, 2}}})
          .Output("out")
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented,
                        "its view 's' is read later"));
}

TEST(ViewMutations, WriteIntoASplitOfABaseReadLaterIsRefused) {
  // a, b = split(c, 1); relu_(a); out = c + c.
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("x", kF32, {2, 3})
          .Node(Aten("clone.default"), {TensorArg("self", "x")}, {{"c", kF32, {2, 3}}})
          .ListNode(Aten("split.Tensor"), {TensorArg("self", "c"), IntArg("split_size", 1)},
                    {{"a", kF32, {1, 3}}, {"b", kF32, {1, 3}}})
          .Node(Aten("relu_.default"), {TensorArg("self", "a")}, {{"r", kF32, {1, 3}}})
          .Node(Aten("add.Tensor"), {TensorArg("self", "c"), TensorArg("other", "c")},
                {{"out", kF32, {2, 3}}})
          .Output("out")
          .Output("r")
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented,
                        "a view of 'c', which is read later"));
}

}  // namespace
}  // namespace pt2onnx::testing
