// Tests for ops/translator.cc's handling of the user's renames: graph inputs
// are renamed in graph order, symbolic scalar inputs included, and a rename
// that matches nothing is an error naming what the program has.
#include "ops/all_ops.h"
#include "translate/translator.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/aten/op_schema.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "gtest/gtest.h"
#include "translate/registry.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::translate {
namespace {

using testing::HasStatus;
using testing::ProgramBuilder;
using testing::TensorArg;

// relu(x) with a SymInt user input `n` declared before x: graph inputs [n, x].
pt2::ExportedProgram WithSymIntInput() {
  pt2::ExportedProgram p = ProgramBuilder()
                               .SymInput("x", DataType::kFloat, {"s0", "3"})
                               .Node("torch.ops.aten.relu.default", {TensorArg("self", "x")},
                                     {{"relu", DataType::kFloat, {2, 3}, {"s0", ""}}})
                               .Output("relu")
                               .Build();
  pt2::Argument n;
  n.kind = pt2::Argument::Kind::kSymInt;
  n.sym.is_name = true;
  n.sym.name = "n";
  pt2::InputSpec spec;
  spec.kind = pt2::InputSpec::Kind::kUserInput;
  spec.arg = n;
  p.signature.input_specs.insert(p.signature.input_specs.begin(), spec);
  p.graph.inputs.insert(p.graph.inputs.begin(), n);
  return p;
}

absl::StatusOr<ir::Model> Translate(const pt2::ExportedProgram& program, TranslateOptions options) {
  static const OpRegistry* const registry = new OpRegistry(ops::CreateDefaultRegistry());
  pt2::WeightTable no_weights;
  return TranslateProgram(program, no_weights, *registry, options);
}

std::vector<std::string> InputNames(const ir::Model& model) {
  std::vector<std::string> names;
  for (const ir::ValueInfo& v : model.graph.inputs) names.push_back(v.name);
  return names;
}

TEST(TranslatorRenameTest, InputNamesFollowGraphOrderIncludingSymbolicScalars) {
  TranslateOptions options;
  options.input_names = {"count", "pixels"};
  absl::StatusOr<ir::Model> model = Translate(WithSymIntInput(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(InputNames(*model), (std::vector<std::string>{"count", "pixels"}));

  options.input_names = {"count"};  // a prefix renames the first only
  model = Translate(WithSymIntInput(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(InputNames(*model), (std::vector<std::string>{"count", "x"}));
}

TEST(TranslatorRenameTest, MoreNamesThanInputsOrOutputsIsAnError) {
  TranslateOptions options;
  options.input_names = {"a", "b", "c"};
  EXPECT_TRUE(HasStatus(Translate(WithSymIntInput(), options).status(),
                        absl::StatusCode::kInvalidArgument,
                        "3 input names were given (a, b, c) but the graph has 2 inputs"));
  options.input_names = {};
  options.output_names = {"y", "z"};
  EXPECT_TRUE(HasStatus(Translate(WithSymIntInput(), options).status(),
                        absl::StatusCode::kInvalidArgument, "but the graph has 1 output"));
}

TEST(TranslatorRenameTest, DimNamesMustMatchASymbol) {
  TranslateOptions options;
  options.dim_names = {{"s0", "batch"}};
  absl::StatusOr<ir::Model> model = Translate(WithSymIntInput(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->graph.inputs[1].shape.has_value());
  EXPECT_EQ((*model->graph.inputs[1].shape)[0].param, "batch");

  options.dim_names = {{"s7", "batch"}};
  EXPECT_TRUE(HasStatus(Translate(WithSymIntInput(), options).status(),
                        absl::StatusCode::kInvalidArgument,
                        "cannot rename dimension 's7': the program has no such symbolic dimension "
                        "(it has: s0)"));
}

// The schema table is an input of the translation: a table whose relu needs
// one more argument makes the same node invalid.
TEST(TranslatorSchemaTableTest, InjectedTableFillsAndChecksArguments) {
  aten::SchemaTable table({"aten::relu(Tensor self, int extra) -> Tensor"});
  TranslateOptions options;
  options.schema_table = &table;
  EXPECT_TRUE(HasStatus(Translate(WithSymIntInput(), options).status(),
                        absl::StatusCode::kInvalidArgument,
                        "required argument 'extra' is missing"));
  options.schema_table = nullptr;  // the default table
  EXPECT_TRUE(Translate(WithSymIntInput(), options).ok());
}

}  // namespace
}  // namespace pt2onnx::translate
