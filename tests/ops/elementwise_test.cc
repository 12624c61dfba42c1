// Tests for the elementwise families (ops/arithmetic.cc, comparison.cc,
// logical.cc, unary_math.cc). Each case is a small program; it must
// convert, pass the ONNX checker and strict shape inference, infer the FX
// output shapes and dtypes, and emit the expected op types (Constants
// skipped). Numerics are checked against torch by the fixture tests.
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
  int opset = 20;
  std::function<void(const ir::Model&)> check;  // optional extra expectations
};

// Inputs -> one node -> output "y".
Case One(std::string name, std::vector<TensorSpec> inputs, std::string target,
         std::vector<pt2::NamedArgument> args, TensorSpec out, std::vector<std::string> ops) {
  out.name = "y";
  return Case{std::move(name), OneNodeProgram(inputs, target, std::move(args), {out}),
              std::move(ops)};
}

// Shared operands: 2x3 tensors of three dtypes, a broadcast row, a mask.
struct Operands {
  TensorSpec x{"x", kF32, {2, 3}};
  TensorSpec y{"y_in", kF32, {2, 3}};
  TensorSpec row{"b", kF32, {3}};
  TensorSpec xi{"x", kI64, {2, 3}};
  TensorSpec yi{"y_in", kI64, {2, 3}};
  TensorSpec xb{"x", kBool, {2, 3}};
  TensorSpec yb{"y_in", kBool, {2, 3}};
  TensorSpec cond{"c", kBool, {2, 3}};
};
pt2::NamedArgument self(const std::string& v = "x") { return TensorArg("self", v); }
pt2::NamedArgument other(const std::string& v = "y_in") { return TensorArg("other", v); }

// One table per group keeps each function small: wasm limits a function's locals.
std::vector<Case> ArithmeticCases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const auto [x, y, row, xi, yi, xb, yb, cond] = Operands();
  // Arithmetic.
  add(One("add_broadcast", {x, row}, "add.Tensor", {self(), other("b")}, {"", kF32, {2, 3}},
          {"Add"}));
  add(One("add_alpha", {x, y}, "add.Tensor", {self(), other(), IntArg("alpha", 2)},
          {"", kF32, {2, 3}}, {"Mul", "Add"}));
  add(One("add_int_tensor_float_scalar", {xi}, "add.Tensor", {self(), FloatArg("other", 2.5)},
          {"", kF32, {2, 3}}, {"Cast", "Add"}));
  add(One("add_bool", {xb, yb}, "add.Tensor", {self(), other()}, {"", kBool, {2, 3}}, {"Or"}));
  add(One("add_scalar", {x}, "add.Scalar", {self(), IntArg("other", 1)}, {"", kF32, {2, 3}},
          {"Add"}));
  add(One("add_inplace_no_schema", {x, y}, "add_.Tensor", {self(), other()}, {"", kF32, {2, 3}},
          {"Add"}));
  add(One("sub_alpha", {xi, yi}, "sub.Tensor", {self(), other(), IntArg("alpha", 3)},
          {"", kI64, {2, 3}}, {"Mul", "Sub"}));
  add(One("rsub_scalar", {x}, "rsub.Scalar", {self(), FloatArg("other", 1.0)},
          {"", kF32, {2, 3}}, {"Sub"}));
  add(One("rsub_alpha", {x, y}, "rsub.Tensor", {self(), other(), FloatArg("alpha", 0.5)},
          {"", kF32, {2, 3}}, {"Mul", "Sub"}));
  add(One("mul_mixed_dtypes", {xi, y}, "mul.Tensor", {self(), other()}, {"", kF32, {2, 3}},
          {"Cast", "Mul"}));
  add(One("mul_bool", {xb, yb}, "mul.Tensor", {self(), other()}, {"", kBool, {2, 3}}, {"And"}));
  add(One("div_int_true", {xi, yi}, "div.Tensor", {self(), other()}, {"", kF32, {2, 3}},
          {"Cast", "Cast", "Div"}));
  add(One("div_scalar", {x}, "div.Scalar", {self(), FloatArg("other", 4)}, {"", kF32, {2, 3}},
          {"Div"}));
  add(One("div_floor_float", {x, y}, "div.Tensor_mode",
          {self(), other(), StringArg("rounding_mode", "floor")}, {"", kF32, {2, 3}},
          {"Mod", "Sub", "Div", "Less", "Less", "Xor", "Equal", "Not", "And", "Sub", "Where",
           "Floor", "Sub", "Greater", "Add", "Where", "Div", "Mul", "Equal", "Where", "Equal",
           "Where"}));
  add(One("div_floor_int", {xi, yi}, "div.Tensor_mode",
          {self(), other(), StringArg("rounding_mode", "floor")}, {"", kI64, {2, 3}},
          {"Div", "Mul", "Equal", "Not", "Less", "Less", "Xor", "And", "Sub", "Where"}));
  add(One("div_trunc_float", {x}, "div.Scalar_mode",
          {self(), IntArg("other", 3), StringArg("rounding_mode", "trunc")}, {"", kF32, {2, 3}},
          {"Div", "Less", "Ceil", "Floor", "Where"}));
  add(One("div_trunc_int", {xi, yi}, "div.Tensor_mode",
          {self(), other(), StringArg("rounding_mode", "trunc")}, {"", kI64, {2, 3}}, {"Div"}));
  add(One("div_mode_none", {x, y}, "div.Tensor_mode", {self(), other(), NoneArg("rounding_mode")},
          {"", kF32, {2, 3}}, {"Div"}));
  add(One("floor_divide_int_scalar", {xi}, "floor_divide.Scalar", {self(), IntArg("other", 3)},
          {"", kI64, {2, 3}},
          {"Div", "Mul", "Equal", "Not", "Less", "Less", "Xor", "And", "Sub", "Where"}));
  add(One("true_divide", {x, y}, "true_divide.Tensor", {self(), other()}, {"", kF32, {2, 3}},
          {"Div"}));
  add(One("pow_tensor_scalar", {x}, "pow.Tensor_Scalar", {self(), IntArg("exponent", 2)},
          {"", kF32, {2, 3}}, {"Pow"}));
  add(One("pow_tensor_tensor", {x, y}, "pow.Tensor_Tensor",
          {self(), TensorArg("exponent", "y_in")}, {"", kF32, {2, 3}}, {"Pow"}));
  add(One("pow_scalar_base", {x}, "pow.Scalar",
          {FloatArg("self", 2.0), TensorArg("exponent", "x")}, {"", kF32, {2, 3}}, {"Pow"}));
  add(One("pow_int", {xi}, "pow.Tensor_Scalar", {self(), IntArg("exponent", 3)},
          {"", kI64, {2, 3}}, {"Pow"}));
  add(One("remainder_int", {xi}, "remainder.Scalar", {self(), IntArg("other", 16)},
          {"", kI64, {2, 3}}, {"Mod"}));
  add(One("remainder_float", {x, y}, "remainder.Tensor", {self(), other()}, {"", kF32, {2, 3}},
          {"Mod", "Equal", "Not", "Less", "Less", "Xor", "And", "Add", "Where"}));
  add(One("remainder_scalar_self", {x}, "remainder.Scalar_Tensor",
          {FloatArg("self", 5.0), TensorArg("other", "x")}, {"", kF32, {2, 3}},
          {"Mod", "Equal", "Not", "Less", "Less", "Xor", "And", "Add", "Where"}));
  {
    Case c = One("fmod_int", {xi}, "fmod.Scalar", {self(), IntArg("other", 3)},
                 {"", kI64, {2, 3}}, {"Mod"});
    c.check = [](const ir::Model& m) {
      const ir::Node* mod = FindNode(m, "Mod");
      ASSERT_NE(mod, nullptr);
      ASSERT_NE(mod->FindAttribute("fmod"), nullptr);
      EXPECT_EQ(mod->FindAttribute("fmod")->i(), 1);
    };
    add(c);
  }
  add(One("atan2", {x, y}, "atan2.default", {self(), other()}, {"", kF32, {2, 3}},
          {"Abs", "Abs", "Div", "Atan", "Equal", "Equal", "And", "Where", "Equal", "Equal", "And",
           "Where", "Sub", "Less", "Reciprocal", "Less", "Or", "Where", "Less", "Reciprocal",
           "Less", "Or", "Neg", "Where"}));
  add(One("maximum", {x, row}, "maximum.default", {self(), other("b")}, {"", kF32, {2, 3}},
          {"Max"}));
  add(One("minimum_bool", {xb, yb}, "minimum.default", {self(), other()}, {"", kBool, {2, 3}},
          {"And"}));
  add(One("max_other", {x, y}, "max.other", {self(), other()}, {"", kF32, {2, 3}}, {"Max"}));
  add(One("min_other", {xi, y}, "min.other", {self(), other()}, {"", kF32, {2, 3}},
          {"Cast", "Min"}));
  return cases;
}

std::vector<Case> ComparisonAndLogicalCases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const auto [x, y, row, xi, yi, xb, yb, cond] = Operands();
  // Comparisons: operands meet in torch's result type, the output is BOOL.
  add(One("eq_tensor", {x, y}, "eq.Tensor", {self(), other()}, {"", kBool, {2, 3}}, {"Equal"}));
  add(One("eq_int_tensor_float_scalar", {xi}, "eq.Scalar", {self(), FloatArg("other", 1.5)},
          {"", kBool, {2, 3}}, {"Cast", "Equal"}));
  add(One("ne_scalar", {xi}, "ne.Scalar", {self(), IntArg("other", 0)}, {"", kBool, {2, 3}},
          {"Equal", "Not"}));
  add(One("lt_bool", {xb, yb}, "lt.Tensor", {self(), other()}, {"", kBool, {2, 3}},
          {"Cast", "Cast", "Less"}));
  add(One("le_mixed", {xi, y}, "le.Tensor", {self(), other()}, {"", kBool, {2, 3}},
          {"Cast", "LessOrEqual"}));
  add(One("gt_scalar", {x}, "gt.Scalar", {self(), IntArg("other", 0)}, {"", kBool, {2, 3}},
          {"Greater"}));
  add(One("ge_tensor_zero_dim", {xi, {"z", kF64, {}}}, "ge.Tensor", {self(), other("z")},
          {"", kBool, {2, 3}}, {"Cast", "GreaterOrEqual"}));
  add(One("ge_dim_outranks_zero_dim", {x, {"z", kF64, {}}}, "ge.Tensor", {self(), other("z")},
          {"", kBool, {2, 3}}, {"Cast", "GreaterOrEqual"}));
  add(One("lt_inplace_keeps_dtype", {x, y}, "lt_.Tensor", {self(), other()}, {"", kF32, {2, 3}},
          {"Less", "Cast"}));

  // Logical and bitwise.
  add(One("logical_and_float", {x, y}, "logical_and.default", {self(), other()},
          {"", kBool, {2, 3}}, {"Cast", "Cast", "And"}));
  add(One("logical_or_bool", {xb, yb}, "logical_or.default", {self(), other()},
          {"", kBool, {2, 3}}, {"Or"}));
  add(One("logical_xor", {xb, yi}, "logical_xor.default", {self(), other()}, {"", kBool, {2, 3}},
          {"Cast", "Xor"}));
  add(One("logical_not_int", {xi}, "logical_not.default", {self()}, {"", kBool, {2, 3}},
          {"Cast", "Not"}));
  add(One("bitwise_and_int", {xi, yi}, "bitwise_and.Tensor", {self(), other()},
          {"", kI64, {2, 3}}, {"BitwiseAnd"}));
  add(One("bitwise_and_bool", {xb, yb}, "bitwise_and.Tensor", {self(), other()},
          {"", kBool, {2, 3}}, {"And"}));
  add(One("bitwise_or_scalar", {xi}, "bitwise_or.Scalar", {self(), IntArg("other", 4)},
          {"", kI64, {2, 3}}, {"BitwiseOr"}));
  add(One("bitwise_xor", {xb, yb}, "bitwise_xor.Tensor", {self(), other()}, {"", kBool, {2, 3}},
          {"Xor"}));
  add(One("bitwise_not_int", {xi}, "bitwise_not.default", {self()}, {"", kI64, {2, 3}},
          {"BitwiseNot"}));
  add(One("bitwise_not_bool", {xb}, "bitwise_not.default", {self()}, {"", kBool, {2, 3}},
          {"Not"}));
  add(One("dunder_and", {xb, yb}, "__and__.Tensor", {self(), other()}, {"", kBool, {2, 3}},
          {"And"}));
  add(One("dunder_or", {xb, yb}, "__or__.Tensor", {self(), other()}, {"", kBool, {2, 3}},
          {"Or"}));
  add(One("dunder_xor", {xi, yi}, "__xor__.Tensor", {self(), other()}, {"", kI64, {2, 3}},
          {"BitwiseXor"}));
  return cases;
}

std::vector<Case> UnaryCases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const auto [x, y, row, xi, yi, xb, yb, cond] = Operands();
  // Unary math: one ONNX op each.
  const std::vector<std::pair<std::string, std::string>> kUnary = {
      {"neg", "Neg"},   {"abs", "Abs"},   {"exp", "Exp"},       {"log", "Log"},
      {"sqrt", "Sqrt"}, {"sin", "Sin"},   {"cos", "Cos"},       {"tan", "Tan"},
      {"asin", "Asin"}, {"acos", "Acos"}, {"atan", "Atan"},     {"sinh", "Sinh"},
      {"cosh", "Cosh"}, {"tanh", "Tanh"}, {"sigmoid", "Sigmoid"},
      {"reciprocal", "Reciprocal"}, {"floor", "Floor"}, {"ceil", "Ceil"}, {"round", "Round"},
      {"isnan", "IsNaN"}, {"isinf", "IsInf"}};
  for (const auto& [op, onnx] : kUnary) {
    DataType out = op == "isnan" || op == "isinf" ? kBool : kF32;
    add(One(op, {x}, op + ".default", {self()}, {"", out, {2, 3}}, {onnx}));
  }
  // torch: erf(NaN) = NaN (ONNX Runtime's Erf gives 1), sign(NaN) = 0.
  add(One("erf", {x}, "erf.default", {self()}, {"", kF32, {2, 3}}, {"IsNaN", "Erf", "Where"}));
  add(One("sign", {x}, "sign.default", {self()}, {"", kF32, {2, 3}}, {"Sign", "IsNaN", "Where"}));
  add(One("sign_int", {xi}, "sign.default", {self()}, {"", kI64, {2, 3}}, {"Sign"}));
  add(One("exp_inplace", {x}, "exp_.default", {self()}, {"", kF32, {2, 3}}, {"Exp"}));
  add(One("exp2", {x}, "exp2.default", {self()}, {"", kF32, {2, 3}}, {"Pow"}));
  add(One("expm1", {x}, "expm1.default", {self()}, {"", kF32, {2, 3}}, {"Exp", "Sub"}));
  add(One("log2", {x}, "log2.default", {self()}, {"", kF32, {2, 3}}, {"Log", "Mul"}));
  add(One("log10", {x}, "log10.default", {self()}, {"", kF32, {2, 3}}, {"Log", "Mul"}));
  add(One("log1p", {x}, "log1p.default", {self()}, {"", kF32, {2, 3}}, {"Add", "Log"}));
  add(One("rsqrt", {x}, "rsqrt.default", {self()}, {"", kF32, {2, 3}}, {"Sqrt", "Reciprocal"}));
  add(One("square", {x}, "square.default", {self()}, {"", kF32, {2, 3}}, {"Mul"}));
  add(One("sin_of_int", {xi}, "sin.default", {self()}, {"", kF32, {2, 3}}, {"Cast", "Sin"}));
  add(One("floor_of_int_is_identity", {xi}, "floor.default", {self()}, {"", kI64, {2, 3}},
          {"Identity"}));
  add(One("trunc", {x}, "trunc.default", {self()}, {"", kF32, {2, 3}},
          {"Less", "Ceil", "Floor", "Where"}));
  add(One("round_decimals", {x}, "round.decimals", {self(), IntArg("decimals", 2)},
          {"", kF32, {2, 3}}, {"Mul", "Round", "Div"}));
  add(One("round_negative_decimals", {x}, "round.decimals", {self(), IntArg("decimals", -1)},
          {"", kF32, {2, 3}}, {"Div", "Round", "Mul"}));
  add(One("sign_bool", {xb}, "sign.default", {self()}, {"", kBool, {2, 3}}, {"Identity"}));
  add(One("isnan_int", {xi}, "isnan.default", {self()}, {"", kBool, {2, 3}}, {"Expand"}));
  {
    // IsInf takes float16 only from opset 20.
    Case c = One("isinf_half_opset18", {{"x", kF16, {2, 3}}}, "isinf.default", {self()},
                 {"", kBool, {2, 3}}, {"Cast", "IsInf"});
    c.opset = 18;
    add(c);
    add(One("isinf_half_opset20", {{"x", kF16, {2, 3}}}, "isinf.default", {self()},
            {"", kBool, {2, 3}}, {"IsInf"}));
  }
  add(One("nan_to_num", {x}, "nan_to_num.default", {self(), FloatArg("nan", 0.5)},
          {"", kF32, {2, 3}}, {"IsNaN", "Where", "IsInf", "Where", "IsInf", "Where"}));
  return cases;
}

std::vector<Case> SelectionAndConversionCases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const auto [x, y, row, xi, yi, xb, yb, cond] = Operands();
  // Selection and clamping.
  add(One("clamp_both", {x}, "clamp.default", {self(), FloatArg("min", -0.5), FloatArg("max", 0.5)},
          {"", kF32, {2, 3}}, {"Max", "Min"}));
  add(One("clamp_max_only", {x}, "clamp.default", {self(), NoneArg("min"), FloatArg("max", 0.5)},
          {"", kF32, {2, 3}}, {"Min"}));
  add(One("clamp_int", {xi}, "clamp.default", {self(), IntArg("min", 0), IntArg("max", 5)},
          {"", kI64, {2, 3}}, {"Max", "Min"}));
  add(One("clamp_min", {x}, "clamp_min.default", {self(), FloatArg("min", 0.1)},
          {"", kF32, {2, 3}}, {"Max"}));
  add(One("clamp_max", {x}, "clamp_max.default", {self(), FloatArg("max", 0.1)},
          {"", kF32, {2, 3}}, {"Min"}));
  add(One("clamp_tensor", {x, row, {"hi", kF32, {2, 1}}}, "clamp.Tensor",
          {self(), TensorArg("min", "b"), TensorArg("max", "hi")}, {"", kF32, {2, 3}},
          {"Max", "Min"}));
  add(One("clamp_min_tensor", {x, row}, "clamp_min.Tensor", {self(), TensorArg("min", "b")},
          {"", kF32, {2, 3}}, {"Max"}));
  add(One("where_self", {cond, x, row}, "where.self",
          {TensorArg("condition", "c"), TensorArg("self", "x"), TensorArg("other", "b")},
          {"", kF32, {2, 3}}, {"Where"}));
  add(One("where_scalar_other", {cond, x}, "where.ScalarOther",
          {TensorArg("condition", "c"), TensorArg("self", "x"), FloatArg("other", 0.0)},
          {"", kF32, {2, 3}}, {"Where"}));
  add(One("where_scalars", {cond}, "where.Scalar",
          {TensorArg("condition", "c"), IntArg("self", 1), IntArg("other", 0)},
          {"", kI64, {2, 3}}, {"Where"}));
  add(One("masked_fill_scalar", {x, {"mask", kBool, {3}}}, "masked_fill.Scalar",
          {self(), TensorArg("mask", "mask"), FloatArg("value", -1e9)}, {"", kF32, {2, 3}},
          {"Where"}));
  add(One("masked_fill_tensor_value", {x, {"mask", kBool, {2, 3}}, {"v", kF32, {}}},
          "masked_fill.Tensor", {self(), TensorArg("mask", "mask"), TensorArg("value", "v")},
          {"", kF32, {2, 3}}, {"Where"}));

  // Conversions, copies and identities.
  add(One("to_copy_dtype", {x}, "_to_copy.default", {self(), DtypeArg("dtype", kF16)},
          {"", kF16, {2, 3}}, {"Cast"}));
  add(One("to_copy_same_dtype", {x}, "_to_copy.default", {self()}, {"", kF32, {2, 3}},
          {"Identity"}));
  add(One("to_dtype", {x}, "to.dtype", {self(), DtypeArg("dtype", kI32)}, {"", kI32, {2, 3}},
          {"Cast"}));
  add(One("type_as", {x, yi}, "type_as.default", {self(), other()}, {"", kI64, {2, 3}},
          {"Cast"}));
  add(One("clone", {x}, "clone.default", {self()}, {"", kF32, {2, 3}}, {"Identity"}));
  add(One("alias", {x}, "alias.default", {self()}, {"", kF32, {2, 3}}, {"Identity"}));
  add(One("detach", {x}, "detach.default", {self()}, {"", kF32, {2, 3}}, {"Identity"}));
  add(One("lift_fresh_copy", {x}, "lift_fresh_copy.default", {self()}, {"", kF32, {2, 3}},
          {"Identity"}));
  add(One("copy_broadcast_cast", {x, {"src", kF64, {3}}}, "copy.default",
          {self(), TensorArg("src", "src")}, {"", kF32, {2, 3}}, {"Cast", "Expand"}));
  add(One("copy_same_shape", {x, y}, "copy.default", {self(), TensorArg("src", "y_in")},
          {"", kF32, {2, 3}}, {"Identity"}));
  add(One("fill_scalar", {xi}, "fill.Scalar", {self(), FloatArg("value", 2.0)},
          {"", kI64, {2, 3}}, {"Expand"}));
  add(One("fill_inplace", {x}, "fill_.Scalar", {self(), IntArg("value", 0)}, {"", kF32, {2, 3}},
          {"Expand"}));

  // Opset boundaries: the same ops at the ends of the supported range.
  for (int opset : {18, 22}) {
    Case c = One("floor_div_opset" + std::to_string(opset), {xi, yi}, "div.Tensor_mode",
                 {self(), other(), StringArg("rounding_mode", "floor")}, {"", kI64, {2, 3}},
                 {"Div", "Mul", "Equal", "Not", "Less", "Less", "Xor", "And", "Sub", "Where"});
    c.opset = opset;
    add(c);
  }
  return cases;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (Case& c : ArithmeticCases()) cases.push_back(std::move(c));
  for (Case& c : ComparisonAndLogicalCases()) cases.push_back(std::move(c));
  for (Case& c : UnaryCases()) cases.push_back(std::move(c));
  for (Case& c : SelectionAndConversionCases()) cases.push_back(std::move(c));
  return cases;
}

class ElementwiseTest : public ::testing::TestWithParam<Case> {};

TEST_P(ElementwiseTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  pt2::ExportedProgram program = c.program.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program, c.opset);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, c.ops));
  if (c.check) c.check(got->model);
}

INSTANTIATE_TEST_SUITE_P(Elementwise, ElementwiseTest, ::testing::ValuesIn(Cases()), CaseName());

// x <- add_(x, y); z = mul(x, 2): the later node reads the mutated value.
TEST(ElementwiseInPlace, LaterNodesSeeTheMutatedValue) {
  ProgramBuilder b;
  b.Input("x", kF32, {2, 3}).Input("y_in", kF32, {2, 3});
  b.Node(Aten("add_.Tensor"), {TensorArg("self", "x"), TensorArg("other", "y_in")},
         {{"add_", kF32, {2, 3}}});
  b.Node(Aten("mul.Tensor"), {TensorArg("self", "x"), FloatArg("other", 2.0)},
         {{"z", kF32, {2, 3}}});
  b.Output("z");
  absl::StatusOr<Converted> got = ConvertAndCheck(b.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  const ir::Node* add_node = FindNode(got->model, "Add");
  const ir::Node* mul_node = FindNode(got->model, "Mul");
  ASSERT_NE(add_node, nullptr);
  ASSERT_NE(mul_node, nullptr);
  EXPECT_EQ(mul_node->inputs[0], add_node->outputs[0]);
}

// div by a SymInt (x.sum(1) / x.shape[1]): the symbol is cast to the output dtype.
TEST(ElementwiseSymbolic, DivBySymInt) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"4", "s0"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 1)}, "n");
  b.Node(Aten("div.Tensor"), {TensorArg("self", "x"), SymIntArg("other", "n")},
         {{"y", kF32, {4, 2}, {"", "s0"}}});
  b.Output("y");
  absl::StatusOr<Converted> got = ConvertAndCheck(b.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OpTypesAre(got->model, {"Shape", "Squeeze", "Cast", "Div"}));
}

// Unsupported argument combinations name what is unsupported.
TEST(ElementwiseErrors, BoolSubtraction) {
  Case c = One("sub", {{"x", kBool, {2}}, {"y_in", kBool, {2}}}, "sub.Tensor", {self(), other()},
               {"", kBool, {2}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "boolean subtraction"));
}

TEST(ElementwiseErrors, BitwiseOnFloats) {
  Case c = One("bitwise_and", {{"x", kF32, {2}}, {"y_in", kF32, {2}}}, "bitwise_and.Tensor",
               {self(), other()}, {"", kF32, {2}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "bitwise op on float32"));
}

TEST(ElementwiseErrors, UnknownRoundingMode) {
  Case c = One("div", {{"x", kF32, {2}}, {"y_in", kF32, {2}}}, "div.Tensor_mode",
               {self(), other(), StringArg("rounding_mode", "up")}, {"", kF32, {2}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                        "rounding_mode 'up'"));
}

TEST(ElementwiseErrors, TrueDivisionIntoIntegers) {
  Case c = One("div", {{"x", kI64, {2}}, {"y_in", kI64, {2}}}, "div.Tensor", {self(), other()},
               {"", kI64, {2}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "true division into int64"));
}

TEST(ElementwiseErrors, RoundDecimalsOfIntegers) {
  Case c = One("round", {{"x", kI64, {2}}}, "round.decimals", {self(), IntArg("decimals", 1)},
               {"", kI64, {2}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "round with decimals on integer tensors"));
}

TEST(ElementwiseErrors, OperandNeitherTensorNorScalar) {
  Case c = One("add", {{"x", kF32, {2}}}, "add.Tensor", {self(), StringArg("other", "two")},
               {"", kF32, {2}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                        "argument 'other' is neither a tensor nor a scalar"));
}

}  // namespace
}  // namespace pt2onnx::testing
