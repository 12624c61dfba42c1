// Tests for ops/context_wrappers.cc: no_grad / disabled-autocast regions are
// inlined (names kept apart from the enclosing graph's, pass-through results
// aliased, nested regions flattened); an enabled autocast is refused with
// advice. Numerics: tests/fixtures/ops/no_grad_autocast_off, rotary_no_grad.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "ops/all_ops.h"
#include "translate/registry.h"
#include "translate/translator.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::NamedArgument BodyArg(pt2::Graph body) {
  pt2::NamedArgument a;
  a.arg.kind = pt2::Argument::Kind::kGraph;
  a.arg.s = "submod_1";
  a.arg.graph = std::make_shared<pt2::Graph>(std::move(body));
  return a;
}

// body(x): sin = sin(x); r = cos(sin); return (r, x). Its "sin" clashes with
// the name the enclosing graph gives the first result.
pt2::Graph Body() {
  return ProgramBuilder()
      .Input("x", kF32, {2, 3})
      .Node(Aten("sin.default"), {TensorArg("self", "x")}, {{"sin", kF32, {2, 3}}})
      .Node(Aten("cos.default"), {TensorArg("self", "sin")}, {{"r", kF32, {2, 3}}})
      .Output("r")
      .Output("x")
      .Build()
      .graph;
}

std::vector<pt2::NamedArgument> GradArgs(pt2::Graph body) {
  return {BoolArg("", false), BodyArg(std::move(body)), TensorArg("", "x")};
}

std::vector<pt2::NamedArgument> AutocastArgs(bool enabled, pt2::Graph body) {
  return {StringArg("", "cpu"), DtypeArg("", DataType::kBFloat16), BoolArg("", enabled),
          BoolArg("", false), BodyArg(std::move(body)), TensorArg("", "x")};
}

pt2::ExportedProgram Wrapped(std::string target, std::vector<pt2::NamedArgument> args) {
  return ProgramBuilder()
      .Input("x", kF32, {2, 3})
      .Node(target, std::move(args), {{"sin", kF32, {2, 3}}, {"passed", kF32, {2, 3}}})
      .Node(Aten("add.Tensor"), {TensorArg("self", "sin"), TensorArg("other", "passed")},
            {{"add", kF32, {2, 3}}})
      .Output("add")
      .Output("passed")
      .Build();
}

TEST(ContextWrappers, NoGradBodyIsInlined) {
  pt2::ExportedProgram program =
      Wrapped("torch.ops.higher_order.wrap_with_set_grad_enabled", GradArgs(Body()));
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Sin", "Cos", "Identity", "Add"}));
}

TEST(ContextWrappers, NestedDisabledAutocastIsInlined) {
  // no_grad(body = autocast(enabled=False, Body()))
  pt2::ExportedProgram inner =
      Wrapped("torch.ops.higher_order.wrap_with_autocast", AutocastArgs(false, Body()));
  inner.graph.outputs = {inner.graph.outputs[0], inner.graph.outputs[1]};
  pt2::ExportedProgram program =
      Wrapped("torch.ops.higher_order.wrap_with_set_grad_enabled", GradArgs(inner.graph));
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Sin", "Cos", "Identity", "Add", "Add"}));
}

TEST(ContextWrappers, EnabledAutocastIsRefusedWithAdvice) {
  pt2::ExportedProgram program =
      Wrapped("torch.ops.higher_order.wrap_with_autocast", AutocastArgs(true, Body()));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented,
                        "ep.run_decompositions()"));
}

TEST(ContextWrappers, BodySignatureMismatchIsInvalid) {
  std::vector<pt2::NamedArgument> args = GradArgs(Body());
  args.push_back(TensorArg("", "x"));  // one operand too many
  EXPECT_TRUE(HasStatus(
      ConvertAndCheck(Wrapped("torch.ops.higher_order.wrap_with_set_grad_enabled", args)),
      absl::StatusCode::kInvalidArgument, "the body takes 1 inputs"));
}

TEST(ContextWrappers, AreNotReportedAsUnsupported) {
  pt2::ExportedProgram program =
      Wrapped("torch.ops.higher_order.wrap_with_set_grad_enabled", GradArgs(Body()));
  EXPECT_TRUE(translate::FindUnsupportedOps(program.graph, ops::CreateDefaultRegistry(), 20).empty());
}

}  // namespace
}  // namespace pt2onnx::testing
