// Tests for ops/translator.cc's refusals: what would otherwise be ignored
// (unknown or repeated arguments, duplicate input specs, graph outputs naming
// nothing) or produce an invalid model is an InvalidArgument naming it.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "gtest/gtest.h"
#include "ops/all_ops.h"
#include "translate/registry.h"
#include "translate/translator.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::translate {
namespace {

using testing::HasStatus;
using testing::IntArg;
using testing::ProgramBuilder;
using testing::TensorArg;

absl::Status Translate(const pt2::ExportedProgram& program) {
  static const OpRegistry* const registry = new OpRegistry(ops::CreateDefaultRegistry());
  pt2::WeightTable no_weights;
  return TranslateProgram(program, no_weights, *registry, TranslateOptions()).status();
}

pt2::ExportedProgram OneNode(const std::string& target, std::vector<pt2::NamedArgument> args) {
  return ProgramBuilder()
      .Input("x", DataType::kFloat, {2, 3})
      .Input("y", DataType::kFloat, {2, 3})
      .Node("torch.ops.aten." + target, std::move(args), {{"out", DataType::kFloat, {2, 3}}})
      .Output("out")
      .Build();
}

TEST(TranslatorValidationTest, UnknownArgumentNameIsRefused) {
  EXPECT_TRUE(HasStatus(Translate(OneNode("add.Tensor", {TensorArg("self", "x"),
                                                         TensorArg("othr", "y")})),
                        absl::StatusCode::kInvalidArgument, "unknown argument 'othr'"));
}

TEST(TranslatorValidationTest, MissingRequiredArgumentIsRefused) {
  EXPECT_TRUE(HasStatus(Translate(OneNode("add.Tensor", {TensorArg("self", "x")})),
                        absl::StatusCode::kInvalidArgument, "required argument 'other' is missing"));
}

TEST(TranslatorValidationTest, RepeatedArgumentIsRefused) {
  EXPECT_TRUE(HasStatus(Translate(OneNode("add.Tensor", {TensorArg("self", "x"),
                                                         TensorArg("other", "y"),
                                                         TensorArg("other", "x")})),
                        absl::StatusCode::kInvalidArgument, "argument 'other' is given twice"));
}

TEST(TranslatorValidationTest, DuplicateUserInputSpecIsRefused) {
  pt2::ExportedProgram p = OneNode("add.Tensor", {TensorArg("self", "x"), TensorArg("other", "y")});
  p.signature.input_specs.push_back(p.signature.input_specs[0]);
  EXPECT_TRUE(HasStatus(Translate(p), absl::StatusCode::kInvalidArgument,
                        "the user input 'x' appears twice"));
}

TEST(TranslatorValidationTest, GraphOutputNamingNothingIsRefused) {
  pt2::ExportedProgram p = OneNode("add.Tensor", {TensorArg("self", "x"), TensorArg("other", "y")});
  pt2::Argument ghost;
  ghost.kind = pt2::Argument::Kind::kTensor;
  ghost.name = "ghost";
  p.graph.outputs.push_back(ghost);
  EXPECT_TRUE(HasStatus(Translate(p), absl::StatusCode::kInvalidArgument,
                        "the graph's output 'ghost' names no input or node output"));
}

TEST(TranslatorValidationTest, ValidProgramStillTranslates) {
  EXPECT_TRUE(
      Translate(OneNode("add.Tensor", {TensorArg("self", "x"), TensorArg("other", "y")})).ok());
}

// -1 marks dtype rows with no serialized code (uint32, uint64): a file's -1
// must not select them.
TEST(DtypeCodes, NegativeScalarTypeIsUnknown) {
  EXPECT_TRUE(HasStatus(FromTorchScalarType(-1), absl::StatusCode::kInvalidArgument,
                        "unknown serialized torch ScalarType code -1"));
  EXPECT_TRUE(FromTorchScalarType(7).ok());
}

}  // namespace
}  // namespace pt2onnx::translate
