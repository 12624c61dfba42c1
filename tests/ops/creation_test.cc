// Tests for ops/creation.cc. Each case is a small program; it must convert,
// pass the ONNX checker and strict shape inference, infer the FX output shape
// and dtype, and emit the expected op types (Constants skipped).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types, Constants skipped
  // Symbolic cases: ONNX may infer a computed static size as unknown.
  bool symbolic = false;
  std::function<void(const ir::Model&)> check;  // optional extra expectations
};

// A factory node (optionally with tensor inputs) -> output "y".
Case Factory(std::string name, std::vector<TensorSpec> inputs, std::string target,
             std::vector<pt2::NamedArgument> args, TensorSpec out, std::vector<std::string> ops) {
  out.name = "y";
  return Case{std::move(name), OneNodeProgram(inputs, target, std::move(args), {out}),
              std::move(ops)};
}

// x with a symbolic first dim, n = x.shape[0], then `target` -> "y".
Case WithSymSize(std::string name, std::string target, std::vector<pt2::NamedArgument> args,
                 TensorSpec out, std::vector<std::string> ops) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0", "3"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
  out.name = "y";
  b.Node(Aten(target), std::move(args), {out});
  b.Output("y");
  return Case{std::move(name), b, std::move(ops), true};
}

// Expects the Constant producing "y" to hold `values`.
std::function<void(const ir::Model&)> ExpectConstant(std::vector<double> values) {
  return [=](const ir::Model& m) {
    for (const ir::Node& n : m.graph.nodes) {
      if (n.op_type != "Constant" || n.outputs[0] != "y") continue;
      const ir::Tensor& t = n.attributes[0].t();
      ASSERT_EQ(t.numel(), static_cast<int64_t>(values.size()));
      for (size_t i = 0; i < values.size(); ++i) {
        EXPECT_DOUBLE_EQ(t.GetDouble(i), values[i]) << "element " << i;
      }
      return;
    }
    ADD_FAILURE() << "no Constant produces y";
  };
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  TensorSpec x{"x", kF32, {2, 3}};

  // arange: integer bounds count in int64, float bounds in double.
  add(Factory("arange_end", {}, "arange.default", {IntArg("end", 5)}, {"", kI64, {5}},
              {"Range"}));
  add(Factory("arange_end_float_dtype", {}, "arange.default",
              {IntArg("end", 4), DtypeArg("dtype", kF32)}, {"", kF32, {4}}, {"Range", "Cast"}));
  add(Factory("arange_start", {}, "arange.start", {IntArg("start", 2), IntArg("end", 7)},
              {"", kI64, {5}}, {"Range"}));
  add(Factory("arange_float_step", {}, "arange.start_step",
              {FloatArg("start", 0.5), FloatArg("end", 2.0), FloatArg("step", 0.25)},
              {"", kF32, {6}}, {"Range", "Cast"}));
  add(Factory("arange_int_step", {}, "arange.start_step",
              {IntArg("start", 1), IntArg("end", 10), IntArg("step", 3)}, {"", kI64, {3}},
              {"Range"}));
  add(WithSymSize("arange_symbolic_end", "arange.default", {SymIntArg("end", "n")},
                  {"", kI64, {2}, {"s0"}}, {"Shape", "Squeeze", "Range"}));
  add(WithSymSize("arange_start_symbolic_end", "arange.start",
                  {IntArg("start", 1), SymIntArg("end", "n"), DtypeArg("dtype", kF32)},
                  {"", kF32, {1}, {"s0"}}, {"Shape", "Squeeze", "Range", "Cast"}));

  // Filled tensors: a 0-d value expanded to the size.
  add(Factory("zeros", {}, "zeros.default", {IntsArg("size", {2, 3})}, {"", kF32, {2, 3}},
              {"Expand"}));
  add(Factory("ones_int", {}, "ones.default", {IntsArg("size", {4}), DtypeArg("dtype", kI64)},
              {"", kI64, {4}}, {"Expand"}));
  add(Factory("full", {}, "full.default", {IntsArg("size", {2, 2}), FloatArg("fill_value", 2.5)},
              {"", kF32, {2, 2}}, {"Expand"}));
  add(Factory("full_bool", {}, "full.default",
              {IntsArg("size", {3}), BoolArg("fill_value", true), DtypeArg("dtype", kBool)},
              {"", kBool, {3}}, {"Expand"}));
  add(Factory("full_scalar_shape", {}, "full.default",
              {IntsArg("size", {}), IntArg("fill_value", 7)}, {"", kI64, {}}, {"Expand"}));
  add(Factory("empty", {}, "empty.memory_format", {IntsArg("size", {2, 3})},
              {"", kF32, {2, 3}}, {"Expand"}));
  add(Factory("empty_strided", {}, "empty_strided.default",
              {IntsArg("size", {2, 3}), IntsArg("stride", {1, 2})}, {"", kF32, {2, 3}},
              {"Expand"}));
  add(WithSymSize("zeros_symbolic", "zeros.default", {SymIntsArg("size", {"n", "3"})},
                  {"", kF32, {2, 3}, {"s0", ""}}, {"Shape", "Squeeze", "Reshape", "Concat", "Expand"}));
  add(Factory("zeros_like", {x}, "zeros_like.default", {TensorArg("self", "x")},
              {"", kF32, {2, 3}}, {"Expand"}));
  add(Factory("ones_like_dtype", {x}, "ones_like.default",
              {TensorArg("self", "x"), DtypeArg("dtype", kF16)}, {"", kF16, {2, 3}}, {"Expand"}));
  add(Factory("full_like", {x}, "full_like.default",
              {TensorArg("self", "x"), IntArg("fill_value", 7)}, {"", kF32, {2, 3}}, {"Expand"}));
  add(Factory("empty_like", {x}, "empty_like.default", {TensorArg("self", "x")},
              {"", kF32, {2, 3}}, {"Expand"}));
  add(WithSymSize("ones_like_symbolic", "ones_like.default", {TensorArg("self", "x")},
                  {"", kF32, {2, 3}, {"s0", ""}}, {"Shape", "Squeeze", "Shape", "Expand"}));
  add(Factory("new_zeros", {x}, "new_zeros.default",
              {TensorArg("self", "x"), IntsArg("size", {4})}, {"", kF32, {4}}, {"Expand"}));
  add(Factory("new_ones", {x}, "new_ones.default",
              {TensorArg("self", "x"), IntsArg("size", {1, 2})}, {"", kF32, {1, 2}}, {"Expand"}));
  add(Factory("new_full", {x}, "new_full.default",
              {TensorArg("self", "x"), IntsArg("size", {2}), FloatArg("fill_value", -1)},
              {"", kF32, {2}}, {"Expand"}));
  add(Factory("new_empty_int", {x}, "new_empty.default",
              {TensorArg("self", "x"), IntsArg("size", {2}), DtypeArg("dtype", kI64)},
              {"", kI64, {2}}, {"Expand"}));
  add(Factory("new_empty_strided", {x}, "new_empty_strided.default",
              {TensorArg("self", "x"), IntsArg("size", {3}), IntsArg("stride", {1})},
              {"", kF32, {3}}, {"Expand"}));
  add(WithSymSize("new_zeros_symbolic", "new_zeros.default",
                  {TensorArg("self", "x"), SymIntsArg("size", {"n", "n"})},
                  {"", kF32, {2, 2}, {"s0", "s0"}},
                  {"Shape", "Squeeze", "Reshape", "Reshape", "Concat", "Expand"}));
  {
    Case c = Factory("scalar_tensor", {}, "scalar_tensor.default", {FloatArg("s", 3.5)},
                     {"", kF32, {}}, {});
    c.check = ExpectConstant({3.5});
    add(c);
  }

  // linspace folds to a constant computed like ATen's kernel.
  {
    Case c = Factory("linspace", {}, "linspace.default",
                     {IntArg("start", 0), IntArg("end", 1), IntArg("steps", 5)},
                     {"", kF32, {5}}, {});
    c.check = ExpectConstant({0, 0.25, 0.5, 0.75, 1});
    add(c);
  }
  {
    Case c = Factory("linspace_int", {}, "linspace.default",
                     {IntArg("start", 0), IntArg("end", 10), IntArg("steps", 4),
                      DtypeArg("dtype", kI64)},
                     {"", kI64, {4}}, {});
    c.check = ExpectConstant({0, 3, 6, 10});
    add(c);
  }
  {
    Case c = Factory("linspace_one_step", {}, "linspace.default",
                     {FloatArg("start", 2), FloatArg("end", 9), IntArg("steps", 1)},
                     {"", kF32, {1}}, {});
    c.check = ExpectConstant({2});
    add(c);
  }

  // linspace with 0-d tensor bounds is computed at run time.
  {
    Case c = Factory("linspace_tensor", {{"a", kF32, {}}, {"b", kI64, {}}}, "linspace.Tensor_Tensor",
                     {TensorArg("start", "a"), TensorArg("end", "b"), IntArg("steps", 4)}, {"", kF32, {4}},
                     {"Cast", "Range", "Sub", "Sub", "Div", "Cast", "Mul", "Add", "Cast", "Mul", "Sub", "Less",
                      "Where"});
    add(c);
  }

  // tril / triu.
  TensorSpec sq{"x", kF32, {4, 4}};
  add(Factory("tril", {sq}, "tril.default", {TensorArg("self", "x")}, {"", kF32, {4, 4}},
              {"Trilu"}));
  add(Factory("triu_diagonal", {sq}, "triu.default",
              {TensorArg("self", "x"), IntArg("diagonal", 1)}, {"", kF32, {4, 4}}, {"Trilu"}));
  add(Factory("tril_inplace", {sq}, "tril_.default", {TensorArg("self", "x")},
              {"", kF32, {4, 4}}, {"Trilu"}));
  add(Factory("tril_bool", {{"x", kBool, {3, 3}}}, "tril.default",
              {TensorArg("self", "x"), IntArg("diagonal", -1)}, {"", kBool, {3, 3}}, {"Trilu"}));
  return cases;
}

class CreationTest : public ::testing::TestWithParam<Case> {};

TEST_P(CreationTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  std::optional<Converted> got =
      ConvertAndExpect(c.program.Build(), c.ops, {20, {/*static_dims_may_be_unknown=*/c.symbolic}});
  if (got && c.check) c.check(got->model);
}

INSTANTIATE_TEST_SUITE_P(Creation, CreationTest, ::testing::ValuesIn(Cases()), CaseName());

// A symbolic diagonal reaches Trilu as its k input.
TEST(CreationSymbolic, TrilWithSymbolicDiagonal) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0", "s0"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
  b.Node(Aten("tril.default"), {TensorArg("self", "x"), SymIntArg("diagonal", "n")},
         {{"y", kF32, {2, 2}, {"s0", "s0"}}});
  b.Output("y");
  absl::StatusOr<Converted> got = ConvertAndCheck(b.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OpTypesAre(got->model, {"Shape", "Squeeze", "Trilu"}));
}

TEST(CreationErrors, LinspaceSymbolicEnd) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
  b.Node(Aten("linspace.default"),
         {IntArg("start", 0), SymIntArg("end", "n"), IntArg("steps", 4)}, {{"y", kF32, {4}}});
  b.Output("y");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(b.Build()), absl::StatusCode::kUnimplemented,
                        "linspace with symbolic start or end"));
}

TEST(CreationErrors, LinspaceNegativeSteps) {
  ProgramBuilder b;
  b.Node(Aten("linspace.default"), {IntArg("start", 0), IntArg("end", 1), IntArg("steps", -3)},
         {{"y", kF32, {0}}});
  b.Output("y");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(b.Build()), absl::StatusCode::kInvalidArgument,
                        "steps is negative (-3)"));
}

}  // namespace
}  // namespace pt2onnx::testing
