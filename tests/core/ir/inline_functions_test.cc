// InlineLocalFunctions: calls in the graph and in subgraphs become the body
// with fresh names bound to the call's inputs and outputs; functions calling
// functions expand too; bad calls and recursion are refused.
#include "core/ir/inline_functions.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace pt2onnx::ir {
namespace {

Node MakeNode(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string domain = "") {
  Node n;
  n.name = out.empty() ? op : out[0];
  n.op_type = std::move(op);
  n.domain = std::move(domain);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// mylib::twice_sin(x) = Sin(x) * 2, as torch's custom op would translate.
Function TwiceSin() {
  Function f;
  f.domain = "mylib";
  f.name = "twice_sin.default";
  f.inputs = {"x"};
  f.outputs = {"y"};
  f.nodes = {MakeNode("Sin", {"x"}, {"s"}), MakeNode("Add", {"s", "s"}, {"y"})};
  f.opset_imports = {{"", 20}};
  return f;
}

TEST(InlineLocalFunctions, CallsBecomeTheBodyWithFreshNames) {
  Model model;
  model.functions = {TwiceSin()};
  model.graph.nodes = {MakeNode("twice_sin.default", {"a"}, {"b"}, "mylib"),
                       MakeNode("twice_sin.default", {"b"}, {"c"}, "mylib")};
  model.graph.inputs = {ValueInfo{"a", DataType::kFloat, std::nullopt, {}}};
  model.graph.outputs = {ValueInfo{"c", DataType::kFloat, std::nullopt, {}}};
  ASSERT_TRUE(InlineLocalFunctions(model).ok());
  EXPECT_TRUE(model.functions.empty());
  ASSERT_EQ(model.graph.nodes.size(), 4u);
  EXPECT_EQ(model.graph.nodes[0].op_type, "Sin");
  EXPECT_EQ(model.graph.nodes[0].inputs[0], "a");
  EXPECT_EQ(model.graph.nodes[1].outputs[0], "b");
  EXPECT_EQ(model.graph.nodes[2].inputs[0], "b");
  EXPECT_EQ(model.graph.nodes[3].outputs[0], "c");
  EXPECT_NE(model.graph.nodes[0].outputs[0], model.graph.nodes[2].outputs[0]);  // two fresh 's'
  EXPECT_TRUE(Verify(model.graph).ok()) << Verify(model.graph);
}

TEST(InlineLocalFunctions, ReachesSubgraphsAndNestedCalls) {
  Function outer;
  outer.domain = "mylib";
  outer.name = "outer.default";
  outer.inputs = {"u"};
  outer.outputs = {"v"};
  outer.nodes = {MakeNode("twice_sin.default", {"u"}, {"t"}, "mylib"), MakeNode("Neg", {"t"}, {"v"})};
  Model model;
  model.functions = {TwiceSin(), outer};
  Graph branch;
  branch.nodes = {MakeNode("outer.default", {"a"}, {"r"}, "mylib")};
  Node cond = MakeNode("If", {"p"}, {"out"});
  cond.attributes = {Attribute::GraphValue("then_branch", branch)};
  model.graph.nodes = {cond};
  ASSERT_TRUE(InlineLocalFunctions(model).ok());
  const Graph& inlined = model.graph.nodes[0].attributes[0].g();
  ASSERT_EQ(inlined.nodes.size(), 3u);
  EXPECT_EQ(inlined.nodes[0].op_type, "Sin");
  EXPECT_EQ(inlined.nodes[2].op_type, "Neg");
  EXPECT_EQ(inlined.nodes[2].outputs[0], "r");
  EXPECT_EQ(branch.nodes.size(), 1u);  // the caller's copy is left alone
}

TEST(InlineLocalFunctions, RefusesBadCallsAndRecursion) {
  Model too_many;
  too_many.functions = {TwiceSin()};
  too_many.graph.nodes = {MakeNode("twice_sin.default", {"a", "b"}, {"c"}, "mylib")};
  absl::Status status = InlineLocalFunctions(too_many);
  EXPECT_TRUE(absl::StrContains(status.message(), "with 2 inputs")) << status;

  Function loop;
  loop.domain = "mylib";
  loop.name = "loop.default";
  loop.inputs = {"x"};
  loop.outputs = {"y"};
  loop.nodes = {MakeNode("loop.default", {"x"}, {"y"}, "mylib")};
  Model recursive;
  recursive.functions = {loop};
  recursive.graph.nodes = {MakeNode("loop.default", {"a"}, {"b"}, "mylib")};
  status = InlineLocalFunctions(recursive);
  EXPECT_TRUE(absl::StrContains(status.message(), "levels deep")) << status;
}

}  // namespace
}  // namespace pt2onnx::ir
