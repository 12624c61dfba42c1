// ir::Attribute: one value of one kind, typed accessors, subgraphs by value.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "gtest/gtest.h"

namespace pt2onnx::ir {
namespace {

Graph OneNodeGraph(const std::string& op) {
  Graph g;
  Node n;
  n.name = op;
  n.op_type = op;
  n.inputs = {"x"};
  n.outputs = {"y"};
  g.nodes.push_back(n);
  return g;
}

TEST(AttributeTest, FactoriesSetNameKindAndValue) {
  EXPECT_EQ(Attribute::Int("axis", -1).type(), Attribute::Type::kInt);
  EXPECT_EQ(Attribute::Int("axis", -1).i(), -1);
  EXPECT_EQ(Attribute::Int("axis", -1).name, "axis");
  EXPECT_EQ(Attribute::Float("alpha", 0.5f).type(), Attribute::Type::kFloat);
  EXPECT_EQ(Attribute::Float("alpha", 0.5f).f(), 0.5f);
  EXPECT_EQ(Attribute::String("mode", "linear").s(), "linear");
  EXPECT_EQ(Attribute::Ints("perm", {1, 0}).ints(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Attribute::Floats("scales", {2.0f}).floats(), std::vector<float>{2.0f});
  EXPECT_EQ(Attribute::Strings("names", {"a", "b"}).strings(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Attribute::TensorValue("value", Tensor::Int64Scalar(7)).t().GetInt64(0), 7);
  Attribute body = Attribute::GraphValue("body", OneNodeGraph("Relu"));
  EXPECT_EQ(body.type(), Attribute::Type::kGraph);
  EXPECT_EQ(body.g().nodes[0].op_type, "Relu");
  EXPECT_EQ(Attribute().type(), Attribute::Type::kInt);
  EXPECT_EQ(Attribute().i(), 0);
}

TEST(AttributeTest, ReadingAnotherKindGivesItsZero) {
  Attribute a = Attribute::Int("axis", 3);
  EXPECT_EQ(a.f(), 0.0f);
  EXPECT_EQ(a.s(), "");
  EXPECT_TRUE(a.ints().empty());
  EXPECT_TRUE(a.floats().empty());
  EXPECT_TRUE(a.strings().empty());
  EXPECT_EQ(a.t().dtype(), DataType::kUndefined);
  EXPECT_TRUE(a.g().nodes.empty());
  EXPECT_EQ(Attribute::Ints("pads", {1}).i(), 0);
}

TEST(AttributeTest, WritersSetTheKind) {
  Attribute a = Attribute::Ints("perm", {0, 1});
  a.mutable_ints()[0] = 1;
  EXPECT_EQ(a.ints(), (std::vector<int64_t>{1, 1}));
  a.set_i(4);
  EXPECT_EQ(a.type(), Attribute::Type::kInt);
  EXPECT_EQ(a.i(), 4);
  EXPECT_TRUE(a.ints().empty());
  EXPECT_EQ(a.name, "perm");
  a.mutable_g().nodes.push_back(Node{});
  EXPECT_EQ(a.type(), Attribute::Type::kGraph);
  EXPECT_EQ(a.g().nodes.size(), 1u);
}

TEST(AttributeTest, CopiesOwnTheirSubgraph) {
  Node loop;
  loop.attributes = {Attribute::GraphValue("body", OneNodeGraph("Neg"))};
  Node copy = loop;
  copy.attributes[0].mutable_g().nodes[0].op_type = "Abs";
  EXPECT_EQ(loop.attributes[0].g().nodes[0].op_type, "Neg");
  EXPECT_EQ(copy.attributes[0].g().nodes[0].op_type, "Abs");
  loop = copy;
  EXPECT_EQ(loop.attributes[0].g().nodes[0].op_type, "Abs");
  Node moved = std::move(copy);
  EXPECT_EQ(moved.attributes[0].g().nodes[0].op_type, "Abs");
}

TEST(VerifyTest, SubgraphsReadEnclosingScopes) {
  Graph outer;
  outer.inputs = {ValueInfo{"x", DataType::kFloat, std::nullopt, {}}};
  Graph branch = OneNodeGraph("Relu");  // reads the outer x
  branch.outputs = {ValueInfo{"y", DataType::kFloat, std::nullopt, {}}};
  Node cond;
  cond.name = "if";
  cond.op_type = "If";
  cond.inputs = {"x"};
  cond.outputs = {"out"};
  cond.attributes = {Attribute::GraphValue("then_branch", branch)};
  outer.nodes = {cond};
  outer.outputs = {ValueInfo{"out", DataType::kFloat, std::nullopt, {}}};
  EXPECT_TRUE(Verify(outer).ok()) << Verify(outer);

  outer.nodes[0].attributes[0].mutable_g().nodes[0].inputs = {"nowhere"};
  absl::Status status = Verify(outer);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("in subgraph 'then_branch' of node 'if'"), std::string::npos) << status;
}

}  // namespace
}  // namespace pt2onnx::ir
