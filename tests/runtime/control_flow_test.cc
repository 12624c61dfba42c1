// If / Loop / Scan kernels: subgraphs read outer values by name (two levels
// deep too), Loop honours both its trip count and its condition and stacks
// scan outputs, Scan carries state and stacks per-step outputs.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "runtime/plan/session.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::ValueInfo Value(std::string name, DataType dtype) { return {std::move(name), dtype, std::nullopt, {}}; }

ir::Node MakeNode(std::string op, std::vector<std::string> in, std::vector<std::string> out) {
  ir::Node n;
  n.name = "node_" + out[0];
  n.op_type = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

absl::StatusOr<std::vector<NamedTensor>> RunModel(ir::Graph graph, const std::vector<NamedTensor>& feeds) {
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  model.graph = std::move(graph);
  auto session = Session::Create(model, SessionOptions{});
  if (!session.ok()) return session.status();
  return (*session)->Run(feeds);
}

Tensor Bool(bool b) { return Make<uint8_t>(DataType::kBool, {}, {static_cast<uint8_t>(b)}); }

// x, k, flag -> Loop(M=4, cond=true): x' = x * 2 + (flag ? k : -k) via a
// nested If reading k two levels up; stops when sum(x') > limit; scan output
// of each step's x'.
ir::Graph LoopModel() {
  ir::Graph then_g;
  then_g.nodes.push_back(MakeNode("Identity", {"k"}, {"then_k"}));
  then_g.outputs = {Value("then_k", DataType::kFloat)};
  ir::Graph else_g;
  else_g.nodes.push_back(MakeNode("Neg", {"k"}, {"else_k"}));
  else_g.outputs = {Value("else_k", DataType::kFloat)};
  ir::Graph body;
  body.inputs = {Value("i", DataType::kInt64), Value("c", DataType::kBool), Value("xb", DataType::kFloat)};
  body.nodes.push_back(MakeNode("Add", {"xb", "xb"}, {"twice"}));
  ir::Node branch = MakeNode("If", {"flag"}, {"kk"});
  branch.attributes = {ir::Attribute::GraphValue("then_branch", then_g),
                       ir::Attribute::GraphValue("else_branch", else_g)};
  body.nodes.push_back(branch);
  body.nodes.push_back(MakeNode("Add", {"twice", "kk"}, {"x_next"}));
  body.nodes.push_back(MakeNode("ReduceSum", {"x_next"}, {"total"}));
  body.nodes.push_back(MakeNode("Less", {"total", "limit"}, {"go_on"}));
  body.nodes.push_back(MakeNode("Identity", {"x_next"}, {"step_out"}));
  body.outputs = {Value("go_on", DataType::kBool), Value("x_next", DataType::kFloat),
                   Value("step_out", DataType::kFloat)};
  ir::Graph g;
  g.inputs = {Value("x", DataType::kFloat), Value("k", DataType::kFloat), Value("flag", DataType::kBool),
              Value("limit", DataType::kFloat), Value("m", DataType::kInt64), Value("start", DataType::kBool)};
  ir::Node loop = MakeNode("Loop", {"m", "start", "x"}, {"x_final", "steps"});
  loop.attributes = {ir::Attribute::GraphValue("body", body)};
  g.nodes.push_back(loop);
  g.outputs = {Value("x_final", DataType::kFloat), Value("steps", DataType::kFloat)};
  return g;
}

std::vector<NamedTensor> LoopFeeds(bool flag, float limit, int64_t m) {
  return {{"x", F32({2}, {1, 2})}, {"k", F32({}, {1})}, {"flag", Bool(flag)},
          {"limit", F32({}, {limit})}, {"m", I64({}, {m})}, {"start", Bool(true)}};
}

TEST(ControlFlowKernels, LoopRunsUntilTheTripCount) {
  auto out = RunModel(LoopModel(), LoopFeeds(true, 1000, 3));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{15, 23}));  // 1,2 -> 3,5 -> 7,11 -> 15,23
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{3, 2}));
  EXPECT_EQ(Values<float>((*out)[1].tensor), (std::vector<float>{3, 5, 7, 11, 15, 23}));
}

TEST(ControlFlowKernels, LoopStopsOnTheBodyConditionAndIfReadsTwoLevelsUp) {
  auto out = RunModel(LoopModel(), LoopFeeds(false, 10, 100));
  ASSERT_TRUE(out.ok()) << out.status();
  // 1,2 -> 1,3 (sum 4) -> 1,5 (6) -> 1,9 (10, stop)
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{1, 9}));
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{3, 2}));
}

TEST(ControlFlowKernels, LoopWithFalseStartConditionReturnsTheInitialValues) {
  std::vector<NamedTensor> feeds = LoopFeeds(true, 1000, 3);
  feeds[5].tensor = Bool(false);
  ir::Graph g = LoopModel();
  g.nodes[0].outputs = {"x_final"};  // no scan output: its shape would be unknown
  g.nodes[0].attributes[0].mutable_g().outputs.pop_back();
  g.outputs.pop_back();
  auto out = RunModel(g, feeds);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{1, 2}));
}

TEST(ControlFlowKernels, ScanCarriesStateAndStacksOutputs) {
  ir::Graph body;
  body.inputs = {Value("acc", DataType::kFloat), Value("row", DataType::kFloat)};
  body.nodes.push_back(MakeNode("Add", {"acc", "row"}, {"acc_next"}));
  body.nodes.push_back(MakeNode("Mul", {"acc_next", "scale"}, {"scaled"}));
  body.outputs = {Value("acc_next", DataType::kFloat), Value("scaled", DataType::kFloat)};
  ir::Graph g;
  g.inputs = {Value("init", DataType::kFloat), Value("xs", DataType::kFloat), Value("scale", DataType::kFloat)};
  ir::Node scan = MakeNode("Scan", {"init", "xs"}, {"final", "ys"});
  scan.attributes = {ir::Attribute::GraphValue("body", body), ir::Attribute::Int("num_scan_inputs", 1)};
  g.nodes.push_back(scan);
  g.outputs = {Value("final", DataType::kFloat), Value("ys", DataType::kFloat)};
  auto out = RunModel(g, {{"init", F32({2}, {0, 10})}, {"xs", F32({3, 2}, {1, 2, 3, 4, 5, 6})},
                          {"scale", F32({}, {2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{9, 22}));
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{3, 2}));
  EXPECT_EQ(Values<float>((*out)[1].tensor), (std::vector<float>{2, 24, 8, 32, 18, 44}));
}

// Zero iterations: carried values come back unchanged and each scan output is
// empty, shaped [0] + the body output's declared shape (unknown dims 0, as in
// ONNX Runtime; [0] when no rank is declared).
TEST(ControlFlowKernels, LoopOfZeroIterationsGivesEmptyScanOutputs) {
  ir::Graph g = LoopModel();
  g.nodes[0].attributes[0].mutable_g().outputs[2].shape = std::vector<ir::Dim>{ir::Dim::Static(2)};
  auto out = RunModel(g, LoopFeeds(true, 1000, 0));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{1, 2}));
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{0, 2}));
  EXPECT_EQ((*out)[1].tensor.dtype(), DataType::kFloat);

  std::vector<NamedTensor> stopped = LoopFeeds(true, 1000, 3);
  stopped[5].tensor = Bool(false);
  g.nodes[0].attributes[0].mutable_g().outputs[2].shape = std::vector<ir::Dim>{ir::Dim::Symbolic("n"), ir::Dim::Static(3)};
  out = RunModel(g, stopped);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{0, 0, 3}));

  g.nodes[0].attributes[0].mutable_g().outputs[2].shape = std::nullopt;
  out = RunModel(g, stopped);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{0}));
}

TEST(ControlFlowKernels, ScanOverZeroRowsGivesTheStateAndEmptyOutputs) {
  ir::Graph body;
  body.inputs = {Value("acc", DataType::kFloat), Value("row", DataType::kFloat)};
  body.nodes.push_back(MakeNode("Add", {"acc", "row"}, {"acc_next"}));
  body.nodes.push_back(MakeNode("Cast", {"acc_next"}, {"as_int"}));
  body.nodes.back().attributes = {ir::Attribute::Int("to", static_cast<int64_t>(DataType::kInt64))};
  body.outputs = {Value("acc_next", DataType::kFloat), Value("as_int", DataType::kInt64)};
  body.outputs[1].shape = std::vector<ir::Dim>{ir::Dim::Static(2)};
  ir::Graph g;
  g.inputs = {Value("init", DataType::kFloat), Value("xs", DataType::kFloat)};
  ir::Node scan = MakeNode("Scan", {"init", "xs"}, {"final", "ys"});
  scan.attributes = {ir::Attribute::GraphValue("body", body), ir::Attribute::Int("num_scan_inputs", 1)};
  g.nodes.push_back(scan);
  g.outputs = {Value("final", DataType::kFloat), Value("ys", DataType::kInt64)};
  auto out = RunModel(g, {{"init", F32({2}, {0, 10})}, {"xs", F32({0, 2}, {})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{0, 10}));
  EXPECT_EQ((*out)[1].tensor.dims(), (Dims{0, 2}));
  EXPECT_EQ((*out)[1].tensor.dtype(), DataType::kInt64);
}

TEST(ControlFlowKernels, LoopStopsAtTheIterationLimit) {
  // No trip count and a condition that stays true: a file could loop forever.
  ir::Graph body;
  body.inputs = {Value("i", DataType::kInt64), Value("c", DataType::kBool), Value("v", DataType::kInt64)};
  body.nodes.push_back(MakeNode("Identity", {"c"}, {"c_out"}));
  body.nodes.push_back(MakeNode("Identity", {"i"}, {"v_out"}));
  body.outputs = {Value("c_out", DataType::kBool), Value("v_out", DataType::kInt64)};
  ir::Graph g;
  g.inputs = {Value("start", DataType::kBool), Value("v", DataType::kInt64)};
  ir::Node loop = MakeNode("Loop", {"", "start", "v"}, {"v_final"});
  loop.attributes = {ir::Attribute::GraphValue("body", body)};
  g.nodes.push_back(loop);
  g.outputs = {Value("v_final", DataType::kInt64)};
  auto out = RunModel(g, {{"start", Bool(true)}, {"v", I64({}, {-1})}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "Loop did not stop after 1048576 iterations"))
      << out.status();
}

TEST(ControlFlowKernels, ScanStepsAreBoundedLikeLoops) {
  // Rows of zero elements: a tiny input with a huge leading dim.
  ir::Graph body;
  body.inputs = {Value("row", DataType::kFloat)};
  body.nodes.push_back(MakeNode("Identity", {"row"}, {"out"}));
  body.outputs = {Value("out", DataType::kFloat)};
  ir::Graph g;
  g.inputs = {Value("xs", DataType::kFloat)};
  ir::Node scan = MakeNode("Scan", {"xs"}, {"ys"});
  scan.attributes = {ir::Attribute::GraphValue("body", body), ir::Attribute::Int("num_scan_inputs", 1)};
  g.nodes.push_back(scan);
  g.outputs = {Value("ys", DataType::kFloat)};
  auto out = RunModel(g, {{"xs", F32({(int64_t{1} << 20) + 1, 0}, {})}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "Scan over 1048577 rows is more than 1048576 steps"))
      << out.status();
}

TEST(ControlFlowKernels, IfConditionMustBeOneBool) {
  ir::Graph then_g;
  then_g.nodes.push_back(MakeNode("Identity", {"x"}, {"a"}));
  then_g.outputs = {Value("a", DataType::kFloat)};
  ir::Graph else_g;
  else_g.nodes.push_back(MakeNode("Neg", {"x"}, {"b"}));
  else_g.outputs = {Value("b", DataType::kFloat)};
  ir::Graph g;
  g.inputs = {Value("c", DataType::kFloat), Value("x", DataType::kFloat)};
  ir::Node node = MakeNode("If", {"c"}, {"y"});
  node.attributes = {ir::Attribute::GraphValue("then_branch", then_g),
                     ir::Attribute::GraphValue("else_branch", else_g)};
  g.nodes.push_back(node);
  g.outputs = {Value("y", DataType::kFloat)};
  auto out = RunModel(g, {{"c", F32({}, {1})}, {"x", F32({1}, {3})}});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "If condition must be one bool")) << out.status();
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
