#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/ir/tensor.h"
#include "core/ir/text.h"
#include "gtest/gtest.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "tests/passes/ir_builders.h"

namespace pt2onnx::passes {
namespace {

// The pass listed as `name` in passes/pass_list.inc.
std::unique_ptr<Pass> NamedPass(const std::string& name, const PipelineOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(name, options);
  EXPECT_TRUE(pass.ok()) << pass.status();
  return pass.ok() ? *std::move(pass) : nullptr;
}

// constant_folding under the given size limits.
std::unique_ptr<Pass> FoldingPass(FoldingLimits limits) {
  PipelineOptions options;
  options.folding = limits;
  return NamedPass("constant_folding", options);
}

ir::ValueInfo FloatValue(std::string name) {
  return {std::move(name), DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Static(2)}, {}};
}

using testing::MakeNode;
using testing::NodeNames;

std::vector<std::string> InitializerNames(const ir::Graph& g) {
  std::vector<std::string> names;
  for (const ir::Initializer& i : g.initializers) names.push_back(i.name);
  return names;
}

// x, unused_in -> relu(x) -> out ; dead: neg(x) -> n1 -> abs -> n2 (unused),
// initializers w (used by dead mul only) and k (used by add feeding out).
ir::Model DceModel() {
  ir::Model m;
  m.opset_imports = {{"", 20}};
  ir::Graph& g = m.graph;
  g.inputs = {FloatValue("x"), FloatValue("unused_in")};
  g.outputs = {FloatValue("out")};
  g.initializers.push_back({"k", ir::Tensor::Float32Scalar(1.0f), {}});
  g.initializers.push_back({"w", ir::Tensor::Float32Scalar(2.0f), {}});
  g.initializers.push_back({"orphan", ir::Tensor::Float32Scalar(3.0f), {}});
  g.nodes.push_back(MakeNode("relu", "Relu", {"x"}, {"r"}));
  g.nodes.push_back(MakeNode("neg", "Neg", {"x"}, {"n1"}));
  g.nodes.push_back(MakeNode("mul", "Mul", {"n1", "w"}, {"n2"}));
  g.nodes.push_back(MakeNode("add", "Add", {"r", "k"}, {"out"}));
  return m;
}

TEST(DeadCodeEliminationTest, RemovesUnusedNodesAndInitializers) {
  ir::Model m = DceModel();
  std::unique_ptr<Pass> dce = NamedPass("dead_code_elimination");
  EXPECT_EQ(dce->Name(), "dead_code_elimination");
  absl::StatusOr<bool> changed = dce->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"relu", "add"}));
  EXPECT_EQ(InitializerNames(m.graph), (std::vector<std::string>{"k"}));
  // Graph inputs are the model's interface: kept even when unused.
  ASSERT_EQ(m.graph.inputs.size(), 2u);
  EXPECT_EQ(m.graph.inputs[1].name, "unused_in");
  EXPECT_TRUE(ir::Verify(m.graph).ok());

  // A second run finds nothing.
  changed = dce->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

TEST(DeadCodeEliminationTest, KeepsNodeProducingGraphOutput) {
  // No node reads "out", but it is a graph output; its producer chain stays.
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.nodes.push_back(MakeNode("neg", "Neg", {"x"}, {"n"}));
  m.graph.nodes.push_back(MakeNode("abs", "Abs", {"n"}, {"out"}));
  absl::StatusOr<bool> changed = NamedPass("dead_code_elimination")->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"neg", "abs"}));
}

TEST(DeadCodeEliminationTest, KeepsMultiOutputNodeWithOneUsedOutput) {
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("a")};
  m.graph.nodes.push_back(MakeNode("split", "Split", {"x"}, {"a", "b"}));
  absl::StatusOr<bool> changed = NamedPass("dead_code_elimination")->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"split"}));
}

TEST(IdentityEliminationTest, BypassesIdentity) {
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.nodes.push_back(MakeNode("id", "Identity", {"x"}, {"i"}));
  m.graph.nodes.push_back(MakeNode("relu", "Relu", {"i"}, {"out"}));
  std::unique_ptr<Pass> pass = NamedPass("identity_elimination");
  EXPECT_EQ(pass->Name(), "identity_elimination");
  absl::StatusOr<bool> changed = pass->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_EQ(NodeNames(m.graph), (std::vector<std::string>{"relu"}));
  EXPECT_EQ(m.graph.nodes[0].inputs, (std::vector<std::string>{"x"}));
  EXPECT_TRUE(ir::Verify(m.graph).ok());
}

TEST(IdentityEliminationTest, IdentityProducingGraphOutputRenamesItsSource) {
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.nodes.push_back(MakeNode("relu", "Relu", {"x"}, {"r"}));
  m.graph.nodes.push_back(MakeNode("id", "Identity", {"r"}, {"out"}));
  absl::StatusOr<bool> changed = NamedPass("identity_elimination")->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // The output keeps its name: the Relu now produces it.
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"relu"}));
  EXPECT_EQ(m.graph.nodes[0].outputs, (std::vector<std::string>{"out"}));
}

TEST(IdentityEliminationTest, KeepsIdentityCopyingAGraphInputToAnOutput) {
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.nodes.push_back(MakeNode("id", "Identity", {"x"}, {"out"}));
  absl::StatusOr<bool> changed = NamedPass("identity_elimination")->Run(m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

TEST(IdentityEliminationTest, RewiresEveryConsumerOfAChain) {
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.nodes.push_back(MakeNode("id1", "Identity", {"x"}, {"i1"}));
  m.graph.nodes.push_back(MakeNode("id2", "Identity", {"i1"}, {"i2"}));
  m.graph.nodes.push_back(MakeNode("add", "Add", {"i2", "i1"}, {"out"}));
  ASSERT_TRUE(NamedPass("identity_elimination")->Run(m).ok());
  ASSERT_EQ(NodeNames(m.graph), (std::vector<std::string>{"add"}));
  EXPECT_EQ(m.graph.nodes[0].inputs, (std::vector<std::string>{"x", "x"}));
  EXPECT_TRUE(ir::Verify(m.graph).ok());
}

// If(c) whose then-branch holds another If whose branch reads the outer
// initializer w and the outer value id (an Identity of x) by name.
ir::Model NestedReadModel() {
  ir::Model m;
  m.opset_imports = {{"", 20}};
  ir::Graph& g = m.graph;
  g.inputs = {FloatValue("x"), {"c", DataType::kBool, std::vector<ir::Dim>{}, {}}};
  g.outputs = {FloatValue("out")};
  g.initializers.push_back({"w", ir::Tensor::Float32Scalar(2.0f), {}});
  g.nodes.push_back(MakeNode("id", "Identity", {"x"}, {"id"}));
  ir::Graph inner_then;
  inner_then.nodes.push_back(MakeNode("mul", "Mul", {"id", "w"}, {"inner_out"}));
  inner_then.outputs = {FloatValue("inner_out")};
  ir::Graph inner_else;
  inner_else.nodes.push_back(MakeNode("neg", "Neg", {"id"}, {"inner_neg"}));
  inner_else.outputs = {FloatValue("inner_neg")};
  ir::Graph outer_then;
  ir::Node inner_if = MakeNode("inner_if", "If", {"c"}, {"then_out"});
  inner_if.attributes = {ir::Attribute::GraphValue("then_branch", inner_then),
                         ir::Attribute::GraphValue("else_branch", inner_else)};
  outer_then.nodes.push_back(inner_if);
  outer_then.outputs = {FloatValue("then_out")};
  ir::Graph outer_else;
  outer_else.nodes.push_back(MakeNode("abs", "Abs", {"x"}, {"else_out"}));
  outer_else.outputs = {FloatValue("else_out")};
  ir::Node outer_if = MakeNode("outer_if", "If", {"c"}, {"out"});
  outer_if.attributes = {ir::Attribute::GraphValue("then_branch", outer_then),
                         ir::Attribute::GraphValue("else_branch", outer_else)};
  g.nodes.push_back(outer_if);
  return m;
}

TEST(DeadCodeEliminationTest, KeepsWhatNestedSubgraphsRead) {
  ir::Model m = NestedReadModel();
  ASSERT_TRUE(NamedPass("dead_code_elimination")->Run(m).ok());
  EXPECT_EQ(InitializerNames(m.graph), std::vector<std::string>{"w"});
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"id", "outer_if"}));
}

TEST(IdentityEliminationTest, RewritesReadsInNestedSubgraphs) {
  ir::Model m = NestedReadModel();
  ASSERT_TRUE(NamedPass("identity_elimination")->Run(m).ok());
  EXPECT_EQ(NodeNames(m.graph), std::vector<std::string>{"outer_if"});
  const ir::Graph& outer_then = m.graph.nodes[0].FindAttribute("then_branch")->g();
  const ir::Node& inner_if = outer_then.nodes[0];
  EXPECT_EQ(inner_if.FindAttribute("then_branch")->g().nodes[0].inputs,
            (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(inner_if.FindAttribute("else_branch")->g().nodes[0].inputs,
            std::vector<std::string>{"x"});
}

TEST(PipelineTest, DefaultPipelineReachesFixedPoint) {
  // Removing an Identity makes its producer dead only in a later look:
  // x -> neg -> n -> Identity -> unused ; x -> Identity -> i -> relu -> out.
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.initializers.push_back({"unused_w", ir::Tensor::Float32Scalar(1.0f), {}});
  m.graph.nodes.push_back(MakeNode("neg", "Neg", {"x"}, {"n"}));
  m.graph.nodes.push_back(MakeNode("id_dead", "Identity", {"n"}, {"d"}));
  m.graph.nodes.push_back(MakeNode("id", "Identity", {"x"}, {"i"}));
  m.graph.nodes.push_back(MakeNode("relu", "Relu", {"i"}, {"out"}));
  PipelineOptions options;
  options.verify = true;
  absl::StatusOr<Pipeline> pipeline = BuildPipeline(options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  absl::Status status = RunPipeline(*pipeline, m, options);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(NodeNames(m.graph), (std::vector<std::string>{"relu"}));
  EXPECT_EQ(m.graph.nodes[0].inputs, (std::vector<std::string>{"x"}));
  EXPECT_TRUE(m.graph.initializers.empty());
  EXPECT_TRUE(ir::Verify(m.graph).ok());

  // At the fixed point no pass changes anything.
  for (const Stage& stage : *pipeline) {
    for (const std::unique_ptr<Pass>& pass : stage.passes) {
      absl::StatusOr<bool> changed = pass->Run(m);
      ASSERT_TRUE(changed.ok()) << changed.status();
      EXPECT_FALSE(*changed) << pass->Name();
    }
  }
}

class FailingPass : public Pass {
 public:
  std::string Name() const override { return "always_fails"; }
  absl::StatusOr<bool> Run(ir::Model&) const override {
    return absl::InvalidArgumentError("cannot rewrite node 'boom'");
  }
};

// Leaves a node reading an undefined value: Verify must catch it.
class BreakingPass : public Pass {
 public:
  std::string Name() const override { return "breaks_graph"; }
  absl::StatusOr<bool> Run(ir::Model& model) const override {
    model.graph.nodes.push_back(MakeNode("bad", "Relu", {"nowhere"}, {"bad_out"}));
    return true;
  }
};

TEST(PipelineTest, PassErrorNamesThePass) {
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.nodes.push_back(MakeNode("relu", "Relu", {"x"}, {"out"}));
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(NamedPass("identity_elimination"));
  pipeline.push_back(std::make_unique<FailingPass>());
  absl::Status status = RunPipeline(pipeline, m, /*verify=*/false);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "pass 'always_fails'")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "identity_elimination")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "cannot rewrite node 'boom'")) << status;
}

TEST(PipelineTest, VerifyFailureNamesThePass) {
  ir::Model m;
  m.graph.inputs = {FloatValue("x")};
  m.graph.outputs = {FloatValue("out")};
  m.graph.nodes.push_back(MakeNode("relu", "Relu", {"x"}, {"out"}));
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(std::make_unique<BreakingPass>());
  absl::Status status = RunPipeline(pipeline, m, /*verify=*/true);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "pass 'breaks_graph' (after none)")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "nowhere")) << status;
}

ir::Model ParseIr(const char* text) {
  absl::StatusOr<ir::Model> m = ir::ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : ir::Model{};
}

TEST(ConstantFoldingTest, SizeLimitsKeepLargeValuesButFoldASoleWeightsTranspose) {
  ir::Model m = ParseIr(R"(
    opset 20
    input x: float32[2, 2]
    init w: float32[2, 2] = [1, 2, 3, 4]
    init v: float32[2, 2] = [5, 6, 7, 8]
    n = Neg(v)
    t = Transpose<perm=[1, 0]>(w)
    a = Add(x, n)
    y = Add(a, t)
    output y: float32[2, 2]
  )");
  PipelineOptions small_folds;
  small_folds.folding = FoldingLimits{2, 2};
  ASSERT_TRUE(NamedPass("constant_folding", small_folds)->Run(m).ok());
  EXPECT_EQ(ir::PrintModel(m),
            "opset 20\ninput x: float32[2, 2]\ninit w: float32[2, 2] = [1.0, 2.0, 3.0, 4.0]\n"
            "init v: float32[2, 2] = [5.0, 6.0, 7.0, 8.0]\ninit t: float32[2, 2] = [1.0, 3.0, 2.0, 4.0]\n"
            "n = Neg(v)\na = Add(x, n)\ny = Add(a, t)\noutput y: float32[2, 2]\n");
}

// Element-wise ops are bounded by the broadcast of their inputs, not the
// product of their sizes; an input read twice (Mul(v, v)) folds too.
TEST(ConstantFoldingTest, ElementwiseBoundIsTheBroadcastShape) {
  ir::Model m = ParseIr(R"(
    opset 20
    input x: float32[2, 3]
    init v: float32[2, 3] = [1, 2, 3, 4, 5, 6]
    init c: float32[2, 1] = [1, 2]
    s = Sub(v, c)
    q = Mul(s, s)
    y = Add(x, q)
    output y: float32[2, 3]
  )");
  // 6 elements out: under the limit; the products of the input sizes (12, 36) are not.
  ASSERT_TRUE(FoldingPass(FoldingLimits{8, 8})->Run(m).ok());
  EXPECT_EQ(ir::PrintModel(m),
            "opset 20\ninput x: float32[2, 3]\ninit v: float32[2, 3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]\n"
            "init c: float32[2, 1] = [1.0, 2.0]\ninit s: float32[2, 3] = [0.0, 1.0, 2.0, 2.0, 3.0, 4.0]\n"
            "init q: float32[2, 3] = [0.0, 1.0, 4.0, 4.0, 9.0, 16.0]\ny = Add(x, q)\noutput y: float32[2, 3]\n");
  // Over the limit the broadcast bound still refuses.
  ir::Model big = ParseIr(R"(
    opset 20
    input x: float32[2, 3]
    init v: float32[2, 3] = [1, 2, 3, 4, 5, 6]
    init c: float32[2, 1] = [1, 2]
    s = Sub(v, c)
    y = Add(x, s)
    output y: float32[2, 3]
  )");
  ASSERT_TRUE(FoldingPass(FoldingLimits{8, 5})->Run(big).ok());
  EXPECT_EQ(big.graph.nodes.size(), 2u);
}

// Expand of a constant by constant sizes folds without a declared output
// shape: the broadcast of the two bounds it exactly.
TEST(ConstantFoldingTest, ExpandOfConstantsFoldsWithoutADeclaredShape) {
  ir::Model m = ParseIr(R"(
    opset 20
    input x: float32[3]
    init one: float32[] = [1]
    init n: int64[1] = [3]
    init huge: int64[1] = [1000000]
    e = Expand(one, n)
    f = Expand(one, huge)
    y = Add(x, e)
    z = Add(x, f)
    output y: float32[3]
    output z: float32[1000000]
  )");
  ASSERT_TRUE(FoldingPass(FoldingLimits{})->Run(m).ok());
  ASSERT_EQ(m.graph.nodes.size(), 3u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "Expand");  // a million elements: over the output limit
  EXPECT_EQ(m.graph.nodes[1].inputs[1], "e");
  EXPECT_NE(m.graph.FindInitializer("e"), nullptr);

  // Integer data of more than 64 elements is data, not sizes: it folds too.
  ir::Model grid;
  grid.opset_imports = {{"", 20}};
  std::vector<int64_t> values(80);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
  grid.graph.inputs = {{"x", DataType::kInt64, std::vector<ir::Dim>{ir::Dim::Static(2), ir::Dim::Static(80)}, {}}};
  grid.graph.outputs = {{"y", DataType::kInt64, std::vector<ir::Dim>{ir::Dim::Static(2), ir::Dim::Static(80)}, {}}};
  grid.graph.initializers.push_back({"g", ir::Tensor::Int64s({1, 80}, values), {}});
  grid.graph.initializers.push_back({"s", ir::Tensor::Int64s({2}, {2, 80}), {}});
  grid.graph.nodes.push_back(MakeNode("expand", "Expand", {"g", "s"}, {"e"}));
  grid.graph.nodes.push_back(MakeNode("add", "Add", {"x", "e"}, {"y"}));
  ASSERT_TRUE(FoldingPass(FoldingLimits{})->Run(grid).ok());
  ASSERT_EQ(grid.graph.nodes.size(), 1u);
  EXPECT_NE(grid.graph.FindInitializer("e"), nullptr);
}

// Range of constant scalars folds without a declared output shape when its
// count is under the limit; a huge count stays a run-time Range.
TEST(ConstantFoldingTest, RangeOfConstantsFoldsByItsCount) {
  ir::Model m = ParseIr(R"(
    opset 20
    input x: int64[4]
    init zero: int64[] = [0]
    init four: int64[] = [4]
    init one: int64[] = [1]
    init huge: int64[] = [1000000000000]
    r = Range(zero, four, one)
    h = Range(zero, huge, one)
    y = Add(x, r)
    output y: int64[4]
    output h: int64[1000000000000]
  )");
  ASSERT_TRUE(FoldingPass(FoldingLimits{})->Run(m).ok());
  ASSERT_EQ(m.graph.nodes.size(), 2u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "Range");
  EXPECT_EQ(ir::PrintModel(m).find("init r: int64[4] = [0, 1, 2, 3]") != std::string::npos, true);
}

TEST(PipelineTest, StatisticsCountNodesAndTimeWithTheGivenClock) {
  ir::Model m = ParseIr(R"(
    input x: float32[2, 3]
    init w: float32[3, 2] = [1, 2, 3, 4, 5, 6]
    init b: float32[2] = [0.5, -0.5]
    i = Identity(x)
    mm = MatMul(i, w)
    y = Add(mm, b)
    info mm: float32[2, 2]
    output y: float32[2, 2]
  )");
  PipelineOptions options;
  options.only = {"identity_elimination", "matmul_add_to_gemm"};
  double now = 0;
  options.clock = [&now] { return now += 0.5; };
  absl::StatusOr<Pipeline> pipeline = BuildPipeline(options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::vector<PassStats> stats;
  ASSERT_TRUE(RunPipeline(*pipeline, m, options, &stats).ok());
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "identity_elimination");
  EXPECT_EQ(stats[0].nodes_removed, 1);
  EXPECT_EQ(stats[1].name, "matmul_add_to_gemm");
  EXPECT_EQ(stats[1].nodes_removed, 2);
  EXPECT_EQ(stats[1].nodes_added, 1);
  EXPECT_EQ(stats[1].runs, 2);  // the second round finds nothing: fixed point
  EXPECT_DOUBLE_EQ(stats[0].seconds, 1.0);  // two runs of 0.5 s each
  EXPECT_TRUE(absl::StrContains(FormatPassStats(stats), "matmul_add_to_gemm"));
}

// The page explains the weights of the result against those of the .pt2 with these.
TEST(PipelineTest, StatisticsCountInitializerBytesMergedAndDropped) {
  ir::Model m = ParseIr(R"(
    input x: float32[2]
    init a: float32[2] = [1, 2]
    init b: float32[2] = [1, 2]
    init unused: float32[3] = [1, 2, 3]
    s = Add(x, a)
    y = Add(s, b)
    output y: float32[2]
  )");
  PipelineOptions options;
  options.only = {"initializer_deduplication", "dead_code_elimination"};
  absl::StatusOr<Pipeline> pipeline = BuildPipeline(options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::vector<PassStats> stats;
  ASSERT_TRUE(RunPipeline(*pipeline, m, options, &stats).ok());
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "initializer_deduplication");
  // Deduplication points b's reader at a and leaves b unread; dead-code
  // elimination then drops b (8 bytes) and unused (12 bytes).
  EXPECT_EQ(stats[0].initializer_bytes_removed, 0u);
  EXPECT_EQ(stats[0].initializer_bytes_added, 0u);
  EXPECT_EQ(stats[1].name, "dead_code_elimination");
  EXPECT_EQ(stats[1].initializer_bytes_removed, 20u);
  EXPECT_EQ(stats[1].initializer_bytes_added, 0u);
  EXPECT_EQ(m.graph.initializers.size(), 1u);
}

TEST(PipelineTest, UnknownPassNameListsTheKnownOnes) {
  PipelineOptions options;
  options.only = {"constant_folding", "nope"};
  absl::StatusOr<Pipeline> pipeline = BuildPipeline(options);
  EXPECT_EQ(pipeline.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(pipeline.status().message(), "unknown pass 'nope'"));
  EXPECT_TRUE(absl::StrContains(pipeline.status().message(), "dead_code_elimination"));
}

TEST(SubgraphTest, DeadCodeAndCseRecurseIntoSubgraphs) {
  ir::Model m = ParseIr(R"(
    input x: float32[2]
    input c: bool[]
    y = If(c)
    output y: float32[2]
  )");
  ir::Graph branch;
  absl::StatusOr<ir::Model> body = ir::ParseModel(R"(
    a = Relu(x)
    b = Relu(x)
    dead = Neg(x)
    r = Add(a, b)
    output r: float32[2]
  )");
  ASSERT_TRUE(body.ok()) << body.status();
  branch = std::move(body->graph);
  m.graph.nodes[0].attributes.push_back(ir::Attribute::GraphValue("then_branch", branch));
  m.graph.nodes[0].attributes.push_back(ir::Attribute::GraphValue("else_branch", branch));
  ASSERT_TRUE(NamedPass("common_subexpression_elimination")->Run(m).ok());
  ASSERT_TRUE(NamedPass("dead_code_elimination")->Run(m).ok());
  ir::Model printed;
  printed.graph = m.graph.nodes[0].FindAttribute("then_branch")->g();
  EXPECT_EQ(ir::PrintModel(printed), "a = Relu(x)\nr = Add(a, a)\noutput r: float32[2]\n");
}

}  // namespace
}  // namespace pt2onnx::passes
