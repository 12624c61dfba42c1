#include "ops/all_ops.h"
#include "ops/translate_api.h"
#include "translate/registry.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "translate/translator.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::ops {
namespace {

using testing::ProgramBuilder;
using testing::TensorArg;

TEST(RegistryTest, DefaultRegistryHasNoConflicts) {
  OpRegistry registry = CreateDefaultRegistry();
  EXPECT_TRUE(registry.Conflicts().empty());
  EXPECT_GT(registry.Keys().size(), 12u);
}

TEST(RegistryTest, OneKeyPerFamily) {
  OpRegistry registry = CreateDefaultRegistry();
  for (const char* key :
       {"aten::relu.default", "aten::add.Tensor", "aten::arange.start", "aten::sym_size.int",
        "aten::view.default", "aten::embedding.default", "aten::sum.dim_IntList",
        "aten::linear.default", "aten::conv2d.default", "aten::max_pool2d.default",
        "aten::layer_norm.default", "aten::scaled_dot_product_attention.default"}) {
    SCOPED_TRACE(key);
    EXPECT_TRUE(registry.Contains(key));
    const OpEntry* entry = registry.Find(key, kDefaultOpset);
    ASSERT_NE(entry, nullptr);
    EXPECT_NE(entry->fn, nullptr);
    EXPECT_LE(entry->min_opset, kDefaultOpset);
    EXPECT_GE(entry->max_opset, kDefaultOpset);
  }
  EXPECT_FALSE(registry.Contains("aten::linalg_eigvals.default"));
}

TEST(RegistryTest, FindRespectsOpsetRanges) {
  OpRegistry registry;
  auto fn = +[](TranslateContext&) { return absl::OkStatus(); };
  registry.Add("aten::foo.default", fn, 18, 19);
  EXPECT_NE(registry.Find("aten::foo.default", 18), nullptr);
  EXPECT_EQ(registry.Find("aten::foo.default", 20), nullptr);
  EXPECT_TRUE(registry.Conflicts().empty());
  registry.Add("aten::foo.default", fn, 20, 23);
  EXPECT_NE(registry.Find("aten::foo.default", 21), nullptr);
  EXPECT_TRUE(registry.Conflicts().empty());
  registry.Add("aten::foo.default", fn, 19, 20);
  // [19, 20] overlaps both earlier ranges. Conflicts() lists the key once per
  // overlapping pair (here twice); only the key itself is asserted.
  const std::vector<std::string> conflicts = registry.Conflicts();
  ASSERT_FALSE(conflicts.empty());
  for (const std::string& key : conflicts) EXPECT_EQ(key, "aten::foo.default");
}

TEST(TargetToKeyTest, Conversions) {
  EXPECT_EQ(TargetToKey("torch.ops.aten.add.Tensor"), "aten::add.Tensor");
  EXPECT_EQ(TargetToKey("torch.ops.aten.relu.default"), "aten::relu.default");
  EXPECT_EQ(TargetToKey("_operator.add"), "_operator::add");
  EXPECT_EQ(TargetToKey("torch.sym_max"), "torch::sym_max");
}

TEST(FindUnsupportedOpsTest, ReportsEachUnknownTargetWithCount) {
  pt2::ExportedProgram p =
      ProgramBuilder()
          .Input("x", DataType::kFloat, {2, 3})
          .Node("torch.ops.mylib.weird_op.default", {TensorArg("self", "x")},
                {{"w1", DataType::kFloat, {2, 3}}})
          .Node("torch.ops.aten.relu.default", {TensorArg("self", "w1")},
                {{"r", DataType::kFloat, {2, 3}}})
          .Node("torch.ops.aten.linalg_eigvals.default", {TensorArg("self", "r")},
                {{"inv", DataType::kComplex64, {2}}})
          .Node("torch.ops.mylib.weird_op.default", {TensorArg("self", "inv")},
                {{"w2", DataType::kFloat, {2, 3}}})
          .Output("w2")
          .Build();
  OpRegistry registry = CreateDefaultRegistry();
  std::vector<UnsupportedOp> unsupported = FindUnsupportedOps(p.graph, registry, kDefaultOpset);
  ASSERT_EQ(unsupported.size(), 2u);
  EXPECT_EQ(unsupported[0].key, "mylib::weird_op.default");
  EXPECT_EQ(unsupported[0].count, 2);
  EXPECT_EQ(unsupported[0].first_node, "w1");
  EXPECT_EQ(unsupported[1].key, "aten::linalg_eigvals.default");
  EXPECT_EQ(unsupported[1].count, 1);
  EXPECT_EQ(unsupported[1].first_node, "inv");

  // The error names each operator; a deliberate refusal says why, an unknown one does not.
  absl::Status error = UnsupportedOpsError(unsupported, registry, kDefaultOpset);
  EXPECT_EQ(error.code(), absl::StatusCode::kUnimplemented);
  const std::string message(error.message());
  EXPECT_NE(message.find("mylib::weird_op.default x2 (first at node 'w1')\n"), std::string::npos) << message;
  EXPECT_NE(message.find("aten::linalg_eigvals.default x1 (first at node 'inv'): not translated, a general "
                         "matrix's eigenvalues and eigenvectors are complex"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace pt2onnx::ops
