// Tests for ops/broadcasting.cc and the broadcast_to alias: broadcast_tensors
// (static shapes folded to one constant shape, symbolic ones computed) and
// atleast_1d/2d/3d on every rank, single and Sequence. Numerics:
// tests/fixtures/ops/broadcast_tensors(_dynamic), atleast_nd, alias_shapes.
#include <string>
#include <vector>

#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(Broadcasting, BroadcastTensorsStatic) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("x", kF32, {3, 1})
          .Input("y", kI64, {4})
          .ListNode(Aten("broadcast_tensors.default"), {TensorsArg("tensors", {"x", "y"})},
                    {{"a", kF32, {3, 4}}, {"b", kI64, {3, 4}}})
          .Output("a")
          .Output("b")
          .Build();
  std::optional<Converted> got = ConvertAndExpect(program, {"Expand", "Expand"});
  ASSERT_TRUE(got.has_value());
}

TEST(Broadcasting, BroadcastTensorsSymbolic) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .SymInput("x", kF32, {"s0", "1"})
          .Input("y", kF32, {1, 3})
          .ListNode(Aten("broadcast_tensors.default"), {TensorsArg("tensors", {"x", "y"})},
                    {{"a", kF32, {2, 3}, {"s0", ""}}, {"b", kF32, {2, 3}, {"s0", ""}}})
          .Output("a")
          .Output("b")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(Broadcasting, BroadcastToIsExpand) {
  pt2::ExportedProgram program = OneNodeProgram({{"x", kF32, {3, 1}}}, "broadcast_to.default",
                                                {TensorArg("self", "x"), IntsArg("size", {2, 3, 4})},
                                                {{"y", kF32, {2, 3, 4}}})
                                     .Build();
  ASSERT_TRUE(ConvertAndExpect(program, {"Expand"}).has_value());
}

TEST(Broadcasting, AtLeastEveryRank) {
  struct Row {
    int n;
    std::vector<int64_t> in, out;
  };
  for (const Row& r : std::vector<Row>{{1, {}, {1}},         {1, {3}, {3}},          {2, {}, {1, 1}},
                                       {2, {3}, {1, 3}},     {2, {2, 3}, {2, 3}},    {3, {}, {1, 1, 1}},
                                       {3, {3}, {1, 3, 1}},  {3, {2, 3}, {2, 3, 1}}, {3, {2, 3, 4}, {2, 3, 4}}}) {
    const std::string overload = "atleast_" + std::to_string(r.n) + "d.default";
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, r.in}}, overload, {TensorArg("self", "x")}, {{"y", kF32, r.out}}).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload << " rank " << r.in.size();
  }
}

TEST(Broadcasting, AtLeastSequence) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("a", kF32, {})
          .Input("b", kI64, {3})
          .ListNode(Aten("atleast_3d.Sequence"), {TensorsArg("tensors", {"a", "b"})},
                    {{"p", kF32, {1, 1, 1}}, {"q", kI64, {1, 3, 1}}})
          .Output("p")
          .Output("q")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

}  // namespace
}  // namespace pt2onnx::testing
