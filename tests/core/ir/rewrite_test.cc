#include "core/ir/rewrite.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/ir/text.h"
#include "gtest/gtest.h"

namespace pt2onnx::ir {
namespace {

Model Parse(const char* text) {
  absl::StatusOr<Model> m = ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : Model{};
}

Metadata TorchMetadata(const std::string& fx) {
  return {{"namespace", "model: M/" + fx}, {"pkg.torch.onnx.fx_node", fx},
          {"pkg.torch.onnx.stack_trace", "File \"m.py\", line 3"}};
}

std::string Meta(const Node& node, const std::string& key) {
  for (const auto& [k, v] : node.metadata) {
    if (k == key) return v;
  }
  return "";
}

TEST(ReplaceAllUsesTest, RewritesNodesAndSubgraphReadsNotOutputs) {
  Model m = Parse(R"(
    input x: float32[2]
    a = Relu(x)
    b = Neg(a)
    output a: float32[2]
    output b: float32[2]
  )");
  Graph body;
  body.nodes.push_back(Node{"inner", "Abs", "", {"a"}, {"c"}, {}, {}});
  body.outputs.push_back(ValueInfo{"c", DataType::kFloat, std::nullopt, {}});
  m.graph.nodes[1].attributes.push_back(Attribute::GraphValue("body", body));
  EXPECT_EQ(ReplaceAllUses(m.graph, "a", "x"), 2u);
  EXPECT_EQ(m.graph.nodes[1].inputs[0], "x");
  EXPECT_EQ(m.graph.nodes[1].attributes.back().g().nodes[0].inputs[0], "x");
  EXPECT_EQ(m.graph.outputs[0].name, "a");  // the interface is unchanged
}

TEST(RenameValueTest, RenamesDefinitionUsesOutputsAndValueInfo) {
  Model m = Parse(R"(
    input x: float32[2]
    a = Relu(x)
    b = Neg(a)
    info a: float32[2]
    output b: float32[2]
  )");
  RenameValue(m.graph, "a", "relu_out");
  EXPECT_EQ(m.graph.nodes[0].outputs[0], "relu_out");
  EXPECT_EQ(m.graph.nodes[1].inputs[0], "relu_out");
  EXPECT_TRUE(m.graph.value_info.count("relu_out") == 1);
  EXPECT_FALSE(m.graph.value_info.count("a") == 1);
  EXPECT_TRUE(Verify(m.graph).ok());
}

TEST(GraphEditorTest, InsertCarriesMetadataAndKeepsOrder) {
  Model m = Parse(R"(
    input x: float32[2]
    a = Relu(x)
    b = Neg(a)
    output b: float32[2]
  )");
  m.graph.nodes[0].metadata = TorchMetadata("relu");
  GraphEditor editor(m.graph);
  Node before{"pre", "Abs", "", {"x"}, {"x_abs"}, {}, {}};
  Node after{"post", "Sigmoid", "", {"a"}, {"a_sig"}, {}, {{"namespace", "own"}}};
  editor.InsertBefore(0, before, &m.graph.nodes[0]);
  editor.InsertAfter(0, after, &m.graph.nodes[0]);
  ASSERT_TRUE(editor.Commit().ok());
  ASSERT_EQ(m.graph.nodes.size(), 4u);
  EXPECT_EQ(m.graph.nodes[0].name, "pre");
  EXPECT_EQ(m.graph.nodes[2].name, "post");
  EXPECT_EQ(Meta(m.graph.nodes[0], "pkg.torch.onnx.fx_node"), "relu");
  EXPECT_EQ(Meta(m.graph.nodes[0], "pkg.torch.onnx.stack_trace"), "File \"m.py\", line 3");
  // A node's own metadata wins over the origin's.
  EXPECT_EQ(Meta(m.graph.nodes[2], "namespace"), "own");
  EXPECT_EQ(Meta(m.graph.nodes[2], "pkg.torch.onnx.fx_node"), "relu");
  EXPECT_TRUE(Verify(m.graph).ok());
}

TEST(GraphEditorTest, RemoveWithRemainingUseFailsAndLeavesGraph) {
  Model m = Parse(R"(
    input x: float32[2]
    a = Relu(x)
    b = Neg(a)
    output b: float32[2]
  )");
  std::string before = PrintModel(m);
  GraphEditor editor(m.graph);
  editor.Remove(0);
  absl::Status status = editor.Commit();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(status.message(), "'a' is still read")) << status;
  EXPECT_EQ(PrintModel(m), before);
}

TEST(GraphEditorTest, RemovingAGraphOutputsProducerNeedsAReplacement) {
  Model m = Parse(R"(
    input x: float32[2]
    a = Relu(x)
    output a: float32[2]
  )");
  GraphEditor editor(m.graph);
  editor.Remove(0);
  EXPECT_FALSE(editor.Commit().ok());
}

TEST(GraphEditorTest, ReplacedGraphOutputRenamesTheNewProducer) {
  Model m = Parse(R"(
    input x: float32[2]
    a = Relu(x)
    b = Identity(a)
    output b: float32[2]
  )");
  GraphEditor editor(m.graph);
  editor.ReplaceAllUses("b", "a");
  editor.Remove(1);
  ASSERT_TRUE(editor.Commit().ok());
  EXPECT_EQ(PrintModel(m), "input x: float32[2]\nb = Relu(x)\noutput b: float32[2]\n");
}

TEST(GraphEditorTest, ReplacedGraphOutputReadingAnInputGetsAnIdentity) {
  Model m = Parse(R"(
    input x: float32[2]
    a = Relu(x)
    output a: float32[2]
  )");
  m.graph.nodes[0].metadata = TorchMetadata("relu");
  GraphEditor editor(m.graph);
  editor.ReplaceAllUses("a", "x");
  editor.Remove(0);
  ASSERT_TRUE(editor.Commit().ok());
  EXPECT_EQ(PrintModel(m), "input x: float32[2]\na = Identity(x)\noutput a: float32[2]\n");
  EXPECT_EQ(Meta(m.graph.nodes[0], "pkg.torch.onnx.fx_node"), "relu");
}

TEST(GraphEditorTest, TwoOutputsReplacedByOneValue) {
  Model m = Parse(R"(
    input x: float32[2]
    r = Relu(x)
    a = Identity(r)
    b = Identity(r)
    output a: float32[2]
    output b: float32[2]
  )");
  GraphEditor editor(m.graph);
  editor.ReplaceAllUses("a", "r");
  editor.ReplaceAllUses("b", "r");
  editor.Remove(1);
  editor.Remove(2);
  ASSERT_TRUE(editor.Commit().ok());
  EXPECT_EQ(PrintModel(m),
            "input x: float32[2]\na = Relu(x)\nb = Identity(a)\noutput a: float32[2]\noutput b: float32[2]\n");
  EXPECT_TRUE(Verify(m.graph).ok());
}

TEST(GraphEditorTest, ReplacementChainsResolveAndFusionKeepsOutputName) {
  // A pattern rewrite: Mul(Add(x, w), w) -> Foo(x, w), keeping "out".
  Model m = Parse(R"(
    input x: float32[2]
    init w: float32[2] = [1.0, 2.0]
    s = Add(x, w)
    out = Mul(s, w)
    output out: float32[2]
  )");
  GraphEditor editor(m.graph);
  editor.Remove(0);
  editor.Remove(1);
  editor.InsertBefore(1, Node{"fused", "Foo", "custom", {"x", "w"}, {"out"}, {}, {}}, &m.graph.nodes[1]);
  EXPECT_EQ(editor.removed_count(), 2u);
  EXPECT_EQ(editor.inserted_count(), 1u);
  ASSERT_TRUE(editor.Commit().ok());
  EXPECT_EQ(PrintModel(m),
            "input x: float32[2]\ninit w: float32[2] = [1.0, 2.0]\nout = custom::Foo(x, w)\n"
            "output out: float32[2]\n");
}

TEST(GraphEditorTest, FreshNamesAvoidEveryExistingName) {
  Model m = Parse(R"(
    input x: float32[2]
    x_1 = Relu(x)
    output x_1: float32[2]
  )");
  GraphEditor editor(m.graph);
  std::string a = editor.FreshName("x");
  std::string b = editor.FreshName("x");
  EXPECT_NE(a, "x");
  EXPECT_NE(a, "x_1");
  EXPECT_NE(a, b);
}

TEST(ReadValuesTest, IncludesSubgraphCaptures) {
  Model m = Parse(R"(
    input x: float32[2]
    input cond: bool[]
    y = If(cond)
    output y: float32[2]
  )");
  Graph branch;
  branch.nodes.push_back(Node{"inner", "Relu", "", {"x"}, {"r"}, {}, {}});
  branch.outputs.push_back(ValueInfo{"r", DataType::kFloat, std::nullopt, {}});
  m.graph.nodes[0].attributes.push_back(Attribute::GraphValue("then_branch", branch));
  absl::flat_hash_set<std::string> reads = ReadValues(m.graph);
  EXPECT_TRUE(reads.contains("x"));
  EXPECT_TRUE(reads.contains("cond"));
}

}  // namespace
}  // namespace pt2onnx::ir
