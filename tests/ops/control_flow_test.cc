// Tests for ops/control_flow.cc and ops/subgraph.cc: torch.cond becomes an If
// whose branches read outer values by name, define only scope-prefixed names
// and carry torch.onnx's node metadata; malformed or too deeply nested
// higher-order ops are refused. Numbers are checked by the op-zoo fixtures
// (cond_*, while_loop_*, scan_*, map_body) in ONNX Runtime.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "ops/translate_api.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::ops {
namespace {

using testing::ConvertAndCheck;
using testing::FindNode;
using testing::HasStatus;
using testing::ProgramBuilder;
using testing::TensorArg;

pt2::TensorMeta Float3() {
  pt2::TensorMeta meta;
  meta.dtype = DataType::kFloat;
  meta.sizes = {pt2::SymInt{false, 3}};
  meta.strides = {pt2::SymInt{false, 1}};
  return meta;
}

pt2::Argument Tensor(std::string name) {
  pt2::Argument a;
  a.kind = pt2::Argument::Kind::kTensor;
  a.name = std::move(name);
  return a;
}

// A one-node branch: out = <aten unary op>(in).
std::shared_ptr<pt2::Graph> UnaryGraph(const std::string& op, const std::string& in,
                                       const std::string& out) {
  auto g = std::make_shared<pt2::Graph>();
  g->inputs = {Tensor(in)};
  pt2::Node node;
  node.target = absl::StrCat("torch.ops.aten.", op, ".default");
  node.name = out;
  node.inputs = {TensorArg("self", in)};
  node.outputs = {Tensor(out)};
  g->nodes = {node};
  g->outputs = {Tensor(out)};
  g->tensor_values[in] = Float3();
  g->tensor_values[out] = Float3();
  return g;
}

pt2::NamedArgument GraphArg(std::string name, std::shared_ptr<const pt2::Graph> graph) {
  pt2::NamedArgument a;
  a.kind = pt2::ArgumentKind::kPositional;
  a.arg.kind = pt2::Argument::Kind::kGraph;
  a.arg.s = std::move(name);
  a.arg.graph = std::move(graph);
  return a;
}

pt2::NamedArgument Positional(pt2::NamedArgument a) {
  a.name = "";
  a.kind = pt2::ArgumentKind::kPositional;
  return a;
}

// cond(p, relu-branch, neg-branch, [x]) -> getitem
pt2::ExportedProgram CondProgram(std::shared_ptr<const pt2::Graph> then_graph,
                                 std::vector<std::string> operands = {"x"}) {
  return ProgramBuilder()
      .Input("p", DataType::kBool, {})
      .Input("x", DataType::kFloat, {3})
      .Node("torch.ops.higher_order.cond",
            {Positional(TensorArg("", "p")), GraphArg("true_graph_0", std::move(then_graph)),
             GraphArg("false_graph_0", UnaryGraph("neg", "x", "neg")),
             Positional(testing::TensorsArg("", operands))},
            {{"getitem", DataType::kFloat, {3}}})
      .Output("getitem")
      .Build();
}

TEST(ControlFlowTest, CondBecomesIfWhoseBranchesReadOuterValuesByName) {
  absl::StatusOr<testing::Converted> converted =
      ConvertAndCheck(CondProgram(UnaryGraph("relu", "x", "relu")));
  ASSERT_TRUE(converted.ok()) << converted.status();
  const ir::Node* node = FindNode(converted->model, "If");
  ASSERT_NE(node, nullptr);
  const ir::Attribute* then_branch = node->FindAttribute("then_branch");
  ASSERT_NE(then_branch, nullptr);
  ASSERT_EQ(then_branch->type(), ir::Attribute::Type::kGraph);
  const ir::Graph& branch = then_branch->g();
  EXPECT_TRUE(branch.inputs.empty());
  ASSERT_EQ(branch.nodes.size(), 1u);
  EXPECT_EQ(branch.nodes[0].op_type, "Relu");
  EXPECT_EQ(branch.nodes[0].inputs, std::vector<std::string>{"x"});  // captured by name
  EXPECT_EQ(branch.nodes[0].outputs, std::vector<std::string>{"getitem__true_graph__relu"});
  ASSERT_EQ(branch.outputs.size(), 1u);
  EXPECT_EQ(branch.outputs[0].dtype, DataType::kFloat);
  bool has_fx_node = false;
  for (const auto& [key, value] : branch.nodes[0].metadata) {
    has_fx_node = has_fx_node || (key == "pkg.torch.onnx.fx_node" && absl::StrContains(value, "relu"));
  }
  EXPECT_TRUE(has_fx_node);
}

TEST(ControlFlowTest, BranchReturningItsInputGetsAnIdentity) {
  auto passthrough = std::make_shared<pt2::Graph>();
  passthrough->inputs = {Tensor("x")};
  passthrough->outputs = {Tensor("x")};
  passthrough->tensor_values["x"] = Float3();
  absl::StatusOr<testing::Converted> converted = ConvertAndCheck(CondProgram(passthrough));
  ASSERT_TRUE(converted.ok()) << converted.status();
  const ir::Graph& branch = FindNode(converted->model, "If")->FindAttribute("then_branch")->g();
  ASSERT_EQ(branch.nodes.size(), 1u);
  EXPECT_EQ(branch.nodes[0].op_type, "Identity");
  EXPECT_EQ(branch.nodes[0].inputs, std::vector<std::string>{"x"});
}

TEST(ControlFlowTest, OperandCountMustMatchTheBranchInputs) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(CondProgram(UnaryGraph("relu", "x", "relu"), {"x", "x"})),
                        absl::StatusCode::kInvalidArgument, "takes 1 inputs but the node passes 2"));
}

TEST(ControlFlowTest, NestingBeyondTheLimitIsRefused) {
  // cond inside cond inside ... (20 deep); each level passes x through.
  std::shared_ptr<const pt2::Graph> inner = UnaryGraph("relu", "x", "relu");
  for (int depth = 0; depth < 20; ++depth) {
    auto level = std::make_shared<pt2::Graph>();
    level->inputs = {Tensor("x")};
    level->tensor_values["x"] = Float3();
    level->tensor_values["p"] = Float3();
    level->tensor_values["p"].dtype = DataType::kBool;
    level->tensor_values["p"].sizes = {};
    level->tensor_values["p"].strides = {};
    level->tensor_values["getitem"] = Float3();
    pt2::Node gt;
    gt.target = "torch.ops.aten.gt.Scalar";
    gt.name = "p";
    gt.inputs = {TensorArg("self", "x"), testing::FloatArg("other", 0.0)};
    gt.outputs = {Tensor("p")};
    pt2::Node cond;
    cond.target = "torch.ops.higher_order.cond";
    cond.name = "cond";
    cond.inputs = {Positional(TensorArg("", "p")), GraphArg("true_graph_0", inner),
                   GraphArg("false_graph_0", UnaryGraph("neg", "x", "neg")),
                   Positional(testing::TensorsArg("", {"x"}))};
    cond.outputs = {Tensor("getitem")};
    level->nodes = {gt, cond};
    level->outputs = {Tensor("getitem")};
    inner = level;
  }
  EXPECT_TRUE(HasStatus(ConvertAndCheck(CondProgram(inner)), absl::StatusCode::kInvalidArgument,
                        "nested more than 16 deep"));
}

TEST(ControlFlowTest, BranchesWithDifferentOutputDtypesAreRefused) {
  std::shared_ptr<pt2::Graph> ints = UnaryGraph("relu", "x", "relu");
  ints->tensor_values["relu"].dtype = DataType::kInt64;
  EXPECT_TRUE(HasStatus(ConvertAndCheck(CondProgram(ints)), absl::StatusCode::kInvalidArgument,
                        "different dtypes"));
}

}  // namespace
}  // namespace pt2onnx::ops
