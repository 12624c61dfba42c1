// Tests for the checks the op-family suites share (tests/testing/op_test_util):
// OutputsMatchProgram must fail on every mismatch the suites used to catch
// with their own loops, and only relax what OutputCheckOptions says.
#include "tests/testing/op_test_util.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"

namespace pt2onnx::testing {
namespace {

// x -> relu -> `out`.
pt2::ExportedProgram Relu(TensorSpec out) {
  TensorSpec in{"x", out.dtype, out.shape, out.symbolic};
  out.name = "y";
  return OneNodeProgram({in}, "relu.default", {TensorArg("self", "x")}, {out}).Build();
}

Converted Inferred(std::vector<std::vector<int64_t>> shapes, std::vector<DataType> dtypes) {
  Converted c;
  c.output_shapes = std::move(shapes);
  c.output_dtypes = std::move(dtypes);
  return c;
}

constexpr OutputCheckOptions kLenient{/*static_dims_may_be_unknown=*/true};

TEST(OutputsMatchProgramTest, AcceptsTheFxShapeAndDtype) {
  EXPECT_TRUE(OutputsMatchProgram(Relu({"", kF32, {2, 3}}), Inferred({{2, 3}}, {kF32})));
  EXPECT_TRUE(OutputsMatchProgram(Relu({"", kF32, {}}), Inferred({{}}, {kF32})));
}

TEST(OutputsMatchProgramTest, StaticDimInferredUnknownOnlyWhenAllowed) {
  pt2::ExportedProgram p = Relu({"", kF32, {2, 3}});
  ::testing::AssertionResult strict = OutputsMatchProgram(p, Inferred({{2, -1}}, {kF32}));
  EXPECT_FALSE(strict);
  EXPECT_TRUE(absl::StrContains(strict.message(), "output 0 'y' dim 1: inferred -1, FX has 3"))
      << strict.message();
  EXPECT_TRUE(OutputsMatchProgram(p, Inferred({{2, -1}}, {kF32}), kLenient));
}

TEST(OutputsMatchProgramTest, WrongStaticDimFailsEvenWhenLenient) {
  pt2::ExportedProgram p = Relu({"", kF32, {2, 3}});
  EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{2, 4}}, {kF32})));
  EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{2, 4}}, {kF32}), kLenient));
}

TEST(OutputsMatchProgramTest, SymbolicDimMustInferUnknown) {
  pt2::ExportedProgram p = Relu({"", kF32, {2, 2}, {"", "s0"}});
  EXPECT_TRUE(OutputsMatchProgram(p, Inferred({{2, -1}}, {kF32})));
  ::testing::AssertionResult hinted = OutputsMatchProgram(p, Inferred({{2, 2}}, {kF32}), kLenient);
  EXPECT_FALSE(hinted);
  EXPECT_TRUE(absl::StrContains(hinted.message(), "dim 1: inferred 2, FX dim is symbolic"))
      << hinted.message();
}

TEST(OutputsMatchProgramTest, RankMustMatch) {
  pt2::ExportedProgram p = Relu({"", kF32, {2, 3}});
  for (const OutputCheckOptions& options : {OutputCheckOptions{}, kLenient}) {
    EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{2, 3, 1}}, {kF32}), options));
    EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{2}}, {kF32}), options));
    EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{-2}}, {kF32}), options));  // rank unknown
    EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{-1, -1, -1}}, {kF32}), options));
  }
  EXPECT_FALSE(OutputsMatchProgram(Relu({"", kF32, {}}), Inferred({{1}}, {kF32})));
}

TEST(OutputsMatchProgramTest, DtypeMustMatch) {
  ::testing::AssertionResult r =
      OutputsMatchProgram(Relu({"", kF32, {2, 3}}), Inferred({{2, 3}}, {kF16}), kLenient);
  EXPECT_FALSE(r);
  EXPECT_TRUE(absl::StrContains(r.message(), "dtype")) << r.message();
}

TEST(OutputsMatchProgramTest, OutputCountMustMatch) {
  pt2::ExportedProgram p = Relu({"", kF32, {2, 3}});
  EXPECT_FALSE(OutputsMatchProgram(p, Inferred({}, {})));
  EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{2, 3}, {2, 3}}, {kF32, kF32})));
}

TEST(OutputsMatchProgramTest, ReportsEveryOutput) {
  pt2::ExportedProgram p = OneNodeProgram({{"x", kF32, {2, 3}}}, "max.dim",
                                          {TensorArg("self", "x"), IntArg("dim", 1)},
                                          {{"values", kF32, {2}}, {"indices", kI64, {2}}})
                               .Build();
  EXPECT_TRUE(OutputsMatchProgram(p, Inferred({{2}, {2}}, {kF32, kI64})));
  ::testing::AssertionResult r = OutputsMatchProgram(p, Inferred({{3}, {2}}, {kF32, kF32}));
  EXPECT_FALSE(r);
  EXPECT_TRUE(absl::StrContains(r.message(), "output 0 'values' dim 0")) << r.message();
  EXPECT_TRUE(absl::StrContains(r.message(), "output 1 'indices': dtype")) << r.message();
}

TEST(OutputsMatchProgramTest, SymbolicScalarsAreZeroDimValues) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0", "3"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
  b.Output("n");
  pt2::ExportedProgram p = b.Build();
  EXPECT_TRUE(OutputsMatchProgram(p, Inferred({{}}, {kI64})));
  EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{}}, {kF32})));
  EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{1}}, {kI64}), kLenient));

  p.graph.outputs[0].kind = pt2::Argument::Kind::kSymFloat;
  EXPECT_TRUE(OutputsMatchProgram(p, Inferred({{}}, {kF32})));
  p.graph.outputs[0].kind = pt2::Argument::Kind::kSymBool;
  EXPECT_TRUE(OutputsMatchProgram(p, Inferred({{}}, {kBool})));
  EXPECT_FALSE(OutputsMatchProgram(p, Inferred({{}}, {kI64})));
}

TEST(OneNodeProgramTest, UnusedOutputsAreNotReturned) {
  pt2::ExportedProgram p =
      OneNodeProgram({{"x", kF32, {2, 3}, {"s0", ""}}}, "max.dim",
                     {TensorArg("self", "x"), IntArg("dim", 1)},
                     {{"values", kF32, {2}, {"s0"}}, {"max_unused_1", kI64, {2}, {"s0"}}})
          .Build();
  ASSERT_EQ(p.graph.outputs.size(), 1u);
  EXPECT_EQ(p.graph.outputs[0].name, "values");
  EXPECT_EQ(p.graph.nodes[0].target, "torch.ops.aten.max.dim");
  EXPECT_TRUE(p.graph.tensor_values.at("x").sizes[0].is_symbolic);
  EXPECT_FALSE(p.graph.tensor_values.at("x").sizes[1].is_symbolic);
  EXPECT_EQ(p.graph.tensor_values.at("x").sizes[1].value, 3);
}

TEST(OpTypesAreTest, ComparesInOrderWithoutConstants) {
  ir::Model m;
  for (const char* op : {"Constant", "Relu", "Add"}) {
    ir::Node node;
    node.op_type = op;
    m.graph.nodes.push_back(node);
  }
  EXPECT_TRUE(OpTypesAre(m, {"Relu", "Add"}));
  EXPECT_FALSE(OpTypesAre(m, {"Add", "Relu"}));
  EXPECT_FALSE(OpTypesAre(m, {"Relu"}));
  ::testing::AssertionResult r = OpTypesAre(m, {});
  EXPECT_FALSE(r);
  EXPECT_EQ(std::string(r.message()), "got ops [Relu, Add], want []");
}

}  // namespace
}  // namespace pt2onnx::testing
