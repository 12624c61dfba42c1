// Passes and verification inside subgraphs (Loop/If bodies), which are held
// by value in their node's attribute.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "tests/passes/ir_builders.h"

namespace pt2onnx::passes {
namespace {

ir::ValueInfo Value(std::string name, DataType dtype = DataType::kFloat) {
  return {std::move(name), dtype, std::vector<ir::Dim>{}, {}};
}

using testing::MakeNode;
using testing::NodeNames;

// x, m -> Loop(m, true, x) with a body computing acc * scale, where `scale`
// (= Abs(x)) is read by the body only; the body also computes a dead Neg,
// and the outer graph a dead Sin.
ir::Model LoopModel() {
  ir::Graph body;
  body.inputs = {Value("i", DataType::kInt64), Value("c", DataType::kBool), Value("acc")};
  body.nodes = {MakeNode("scaled", "Mul", {"acc", "scale"}, {"acc_next"}),
                MakeNode("body_dead", "Neg", {"acc"}, {"unused"}),
                MakeNode("keep_going", "Identity", {"c"}, {"c_next"})};
  body.outputs = {Value("c_next", DataType::kBool), Value("acc_next")};
  ir::Model m;
  m.opset_imports = {{"", 18}};
  m.graph.inputs = {Value("x"), Value("m", DataType::kInt64), Value("start", DataType::kBool)};
  ir::Node loop = MakeNode("loop", "Loop", {"m", "start", "x"}, {"y"});
  loop.attributes = {ir::Attribute::GraphValue("body", std::move(body))};
  m.graph.nodes = {MakeNode("scale", "Abs", {"x"}, {"scale"}), MakeNode("outer_dead", "Sin", {"x"}, {"s"}),
                   std::move(loop)};
  m.graph.outputs = {Value("y")};
  return m;
}

std::unique_ptr<Pass> NamedPass(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(name, {});
  EXPECT_TRUE(pass.ok()) << pass.status();
  return pass.ok() ? *std::move(pass) : nullptr;
}

TEST(SubgraphPassesTest, DeadCodeEliminationCleansLoopBodyAndKeepsWhatItReads) {
  ir::Model m = LoopModel();
  absl::StatusOr<bool> changed = NamedPass("dead_code_elimination")->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"scale", "loop"}));
  const ir::Graph& body = m.graph.nodes[1].FindAttribute("body")->g();
  EXPECT_EQ(NodeNames(body), (std::vector<std::string>{"scaled", "keep_going"}));
  EXPECT_TRUE(ir::Verify(m.graph).ok()) << ir::Verify(m.graph);
}

TEST(SubgraphPassesTest, DeadCodeEliminationCleansBothIfBranches) {
  ir::Graph then_branch;
  then_branch.nodes = {MakeNode("then_dead", "Neg", {"x"}, {"n"}), MakeNode("then_out", "Relu", {"x"}, {"r"})};
  then_branch.outputs = {Value("r")};
  ir::Graph else_branch;
  else_branch.nodes = {MakeNode("else_out", "Abs", {"w"}, {"a"}), MakeNode("else_dead", "Exp", {"w"}, {"e"})};
  else_branch.outputs = {Value("a")};
  ir::Model m;
  m.graph.inputs = {Value("x"), Value("c", DataType::kBool)};
  ir::Node cond = MakeNode("if", "If", {"c"}, {"y"});
  cond.attributes = {ir::Attribute::GraphValue("then_branch", std::move(then_branch)),
                     ir::Attribute::GraphValue("else_branch", std::move(else_branch))};
  m.graph.nodes = {MakeNode("w", "Sin", {"x"}, {"w"}), std::move(cond)};
  m.graph.outputs = {Value("y")};
  ASSERT_TRUE(NamedPass("dead_code_elimination")->Run(m).ok());
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"w", "if"}));
  EXPECT_EQ(NodeNames(m.graph.nodes[1].FindAttribute("then_branch")->g()), std::vector<std::string>{"then_out"});
  EXPECT_EQ(NodeNames(m.graph.nodes[1].FindAttribute("else_branch")->g()), std::vector<std::string>{"else_out"});
}

TEST(SubgraphPassesTest, CopiesOfAModelDoNotShareSubgraphs) {
  ir::Model original = LoopModel();
  ir::Model copy = original;
  ASSERT_TRUE(NamedPass("dead_code_elimination")->Run(copy).ok());
  EXPECT_EQ(original.graph.nodes[2].FindAttribute("body")->g().nodes.size(), 3u);
  EXPECT_EQ(copy.graph.nodes[1].FindAttribute("body")->g().nodes.size(), 2u);
}

TEST(SubgraphPassesTest, DefaultPipelineVerifiesSubgraphsAfterEveryPass) {
  ir::Model m = LoopModel();
  PipelineOptions options;
  options.verify = true;
  absl::StatusOr<Pipeline> pipeline = BuildPipeline(options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(RunPipeline(*pipeline, m, options).ok());
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"scale", "loop"}));
  std::vector<std::string> body = NodeNames(m.graph.nodes[1].FindAttribute("body")->g());
  EXPECT_EQ(std::count(body.begin(), body.end(), "body_dead"), 0) << absl::StrJoin(body, ",");
  EXPECT_EQ(std::count(body.begin(), body.end(), "scaled"), 1) << absl::StrJoin(body, ",");
}

TEST(SubgraphPassesTest, VerifyChecksSubgraphReadsAgainstEnclosingScopes) {
  ir::Model m = LoopModel();
  EXPECT_TRUE(ir::Verify(m.graph).ok()) << ir::Verify(m.graph);
  // The body reads `scale`, which now comes after the Loop.
  std::swap(m.graph.nodes[0], m.graph.nodes[2]);
  absl::Status late = ir::Verify(m.graph);
  EXPECT_FALSE(late.ok());
  EXPECT_TRUE(absl::StrContains(late.message(), "in subgraph 'body' of node 'loop'")) << late;
  EXPECT_TRUE(absl::StrContains(late.message(), "uses value 'scale' before it is defined")) << late;

  ir::Model twice = LoopModel();
  ir::Graph& body = twice.graph.nodes[2].attributes[0].mutable_g();
  body.nodes.push_back(MakeNode("again", "Identity", {"acc"}, {"acc_next"}));
  absl::Status duplicate = ir::Verify(twice.graph);
  EXPECT_FALSE(duplicate.ok());
  EXPECT_TRUE(absl::StrContains(duplicate.message(), "'acc_next'")) << duplicate;
}

}  // namespace
}  // namespace pt2onnx::passes
