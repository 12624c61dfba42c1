// Tests for ops/onnx_ops.cc: torch.onnx.ops.symbolic nodes are emitted as
// declared (domain, type, decoded attributes, the domain's opset import);
// malformed attribute encodings and conflicting domain versions are refused.
// Attention-23 / RotaryEmbedding-23 numbers are checked by the op-zoo
// fixtures onnx_attention and onnx_rotary_embedding in ONNX Runtime.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "gtest/gtest.h"
#include "ops/all_ops.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/translator.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::ops {
namespace {

using testing::HasStatus;
using testing::IntArg;
using testing::IntsArg;
using testing::ProgramBuilder;
using testing::StringArg;
using testing::TensorsArg;

pt2::NamedArgument Strings(std::string name, std::vector<std::string> v) {
  pt2::NamedArgument a;
  a.name = std::move(name);
  a.kind = pt2::ArgumentKind::kKeyword;
  a.arg.kind = pt2::Argument::Kind::kStrings;
  a.arg.strings = std::move(v);
  return a;
}

pt2::NamedArgument Floats(std::string name, std::vector<double> v) {
  pt2::NamedArgument a;
  a.name = std::move(name);
  a.kind = pt2::ArgumentKind::kKeyword;
  a.arg.kind = pt2::Argument::Kind::kFloats;
  a.arg.floats = std::move(v);
  return a;
}

pt2::NamedArgument IntLists(std::string name, std::vector<std::vector<int64_t>> v) {
  pt2::NamedArgument a;
  a.name = std::move(name);
  a.kind = pt2::ArgumentKind::kKeyword;
  a.arg.kind = pt2::Argument::Kind::kIntLists;
  a.arg.int_lists = std::move(v);
  return a;
}

// symbolic("mydomain::Fancy", (x,), {alpha: 1.5, mode: "fast", ks: [1, 2]}, version=version)
pt2::ExportedProgram SymbolicProgram(int64_t version, std::vector<std::vector<int64_t>> pos,
                                     int64_t second_version = 0) {
  std::vector<pt2::NamedArgument> args = {
      TensorsArg("inputs", {"x"}), StringArg("op_type", "Fancy"), IntArg("onnx_dtype", 1),
      IntsArg("shape", {2, 3}), Strings("attr_keys", {"alpha", "mode", "ks"}),
      Strings("attr_types", {"f", "s", "is"}), IntLists("attr_pos", pos), IntsArg("attr_ints", {1, 2}),
      Floats("attr_floats", {1.5}), Strings("attr_strs", {"fast"}), StringArg("domain", "mydomain"),
      IntArg("version", version)};
  ProgramBuilder b;
  b.Input("x", DataType::kFloat, {2, 3})
      .Node("torch.ops.onnx_symbolic._symbolic.default", args, {{"_symbolic", DataType::kFloat, {2, 3}}});
  std::string out = "_symbolic";
  if (second_version != 0) {
    args.back() = IntArg("version", second_version);
    args[0] = TensorsArg("inputs", {"_symbolic"});
    b.Node("torch.ops.onnx_symbolic._symbolic.default", args, {{"_symbolic_1", DataType::kFloat, {2, 3}}});
    out = "_symbolic_1";
  }
  return b.Output(out).Build();
}

absl::StatusOr<ir::Model> Translate(const pt2::ExportedProgram& program) {
  static const OpRegistry* const registry = new OpRegistry(CreateDefaultRegistry());
  pt2::WeightTable no_weights;
  return TranslateProgram(program, no_weights, *registry, TranslateOptions{});
}

TEST(OnnxOpsTest, SymbolicIsEmittedAsDeclaredWithItsDomainImport) {
  absl::StatusOr<ir::Model> model = Translate(SymbolicProgram(3, {{0, 1}, {0, 1}, {0, 2}}));
  ASSERT_TRUE(model.ok()) << model.status();
  const ir::Node* node = nullptr;
  for (const ir::Node& n : model->graph.nodes) {
    if (n.op_type == "Fancy") node = &n;
  }
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->domain, "mydomain");
  EXPECT_EQ(node->inputs, std::vector<std::string>{"x"});
  ASSERT_EQ(node->attributes.size(), 3u);
  EXPECT_EQ(node->attributes[0].name, "alpha");
  EXPECT_FLOAT_EQ(node->attributes[0].f(), 1.5f);
  EXPECT_EQ(node->attributes[1].s(), "fast");
  EXPECT_EQ(node->attributes[2].ints(), (std::vector<int64_t>{1, 2}));
  bool imported = false;
  for (const ir::OpsetImport& i : model->opset_imports) imported |= i.domain == "mydomain" && i.version == 3;
  EXPECT_TRUE(imported);
  EXPECT_EQ(model->graph.outputs[0].dtype, DataType::kFloat);
}

TEST(OnnxOpsTest, AttributePositionsOutOfRangeAreRefused) {
  EXPECT_TRUE(HasStatus(Translate(SymbolicProgram(1, {{0, 1}, {0, 1}, {1, 5}})),
                        absl::StatusCode::kInvalidArgument, "attr_pos is out of range"));
  EXPECT_TRUE(HasStatus(Translate(SymbolicProgram(1, {{0, 1}, {0, 1}})), absl::StatusCode::kInvalidArgument,
                        "differ in length"));
}

TEST(OnnxOpsTest, OneDomainAtTwoVersionsIsRefused) {
  EXPECT_TRUE(HasStatus(Translate(SymbolicProgram(1, {{0, 1}, {0, 1}, {0, 2}}, 2)),
                        absl::StatusCode::kInvalidArgument, "used at versions 1 and 2"));
}

}  // namespace
}  // namespace pt2onnx::ops
