// Symbols are listed by first appearance in the user inputs (then outputs,
// then the graph), never sorted by name; expressions contribute their free
// symbols; range-constrained symbols keep the file's order.
#include "core/pt2/symbol_order.h"

#include <string>
#include <vector>

#include "core/pt2/schema.h"
#include "core/pt2/sym_expr.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::pt2 {
namespace {

using testing::ProgramBuilder;
using testing::TensorArg;
using Strings = std::vector<std::string>;

SymInt Expr(std::string srepr) {
  SymInt s;
  s.is_symbolic = true;
  s.expr = std::move(srepr);
  return s;
}

// x: [s54, s27, 4], m: [s54, s27]; an intermediate of size [u0] and an
// output [2*s27] (symbols sorted by name would read s27, s54, u0).
ExportedProgram Program() {
  ExportedProgram p = ProgramBuilder()
                          .SymInput("x", DataType::kFloat, {"s54", "s27", "4"})
                          .SymInput("m", DataType::kFloat, {"s54", "s27"})
                          .Node("torch.ops.aten.nonzero.default", {TensorArg("self", "m")},
                                {{"nz", DataType::kInt64, {2, 2}, {"u0", ""}}})
                          .Node("torch.ops.aten.cat.default", {TensorArg("self", "m")},
                                {{"cat", DataType::kFloat, {4}, {"s27"}}})
                          .Output("cat")
                          .Build();
  p.graph.tensor_values["cat"].sizes[0] =
      Expr("Mul(Integer(2), Symbol('s27', integer=True, positive=True))");
  return p;
}

TEST(SymbolOrderTest, DimNamesFollowInputsThenOutputsThenGraph) {
  EXPECT_EQ(DimNamesInInputOrder(Program()), (Strings{"s54", "s27", "2*s27", "u0"}));
}

TEST(SymbolOrderTest, SymbolsAreFreeSymbolsInInputOrder) {
  EXPECT_EQ(SymbolsInInputOrder(Program()), (Strings{"s54", "s27", "u0"}));
}

TEST(SymbolOrderTest, RangeConstrainedSymbolsKeepFileOrderAndFollowTheShapes) {
  ExportedProgram p = Program();
  p.range_constraints["u7"] = RangeConstraint{0, 9};  // only in range_constraints
  p.range_constraint_order = {"u7", "s54"};  // as the file lists them; s27 unlisted (sorted after)
  EXPECT_EQ(RangeConstraintSymbols(p), (Strings{"u7", "s54", "s27"}));
  EXPECT_EQ(SymbolsInInputOrder(p), (Strings{"s54", "s27", "u0", "u7"}));
}

TEST(SymbolOrderTest, DerivedDimsWithARangeAreListedWhereTheyFirstAppear) {
  ExportedProgram p = Program();
  p.range_constraints["2*s27"] = RangeConstraint{4, 1024};  // Dim("seq") * 2 in dynamic_shapes
  EXPECT_EQ(SymbolsInInputOrder(p), (Strings{"s54", "s27", "2*s27", "u0"}));
}

TEST(SymExprSymbolsTest, SreprAndStrForms) {
  EXPECT_EQ(SymExprSymbols("Symbol('s27', integer=True, positive=True)"), (Strings{"s27"}));
  EXPECT_EQ(SymExprSymbols("Add(Mul(Integer(2), Symbol('s9', integer=True)), Symbol('s1'), "
                           "Symbol('s9'))"),
            (Strings{"s9", "s1"}));
  EXPECT_EQ(SymExprSymbols("2*s0 + s1"), (Strings{"s0", "s1"}));
  EXPECT_EQ(SymExprSymbols("FloorDiv(s3, 2)"), (Strings{"s3"}));
  EXPECT_EQ(SymExprSymbols("16"), Strings{});
}

}  // namespace
}  // namespace pt2onnx::pt2
