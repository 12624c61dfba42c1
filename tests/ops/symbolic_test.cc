// Tests for ops/symbolic.cc: SymInt/SymFloat/SymBool arithmetic as 0-d ONNX
// values, tensor sizes as symbols, and assertion ops that emit nothing. Each
// case returns one symbolic value; it must convert, pass the ONNX checker and
// strict shape inference as a 0-d output of the right dtype, and emit the
// expected op types (Constants skipped).
#include <cstdint>
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

using Kind = pt2::Argument::Kind;

struct Case {
  std::string name;
  pt2::ExportedProgram program;
  DataType dtype;                // of the 0-d output
  std::vector<std::string> ops;  // expected op types, Constants skipped
};

// Makes the symbolic value `name` a SymFloat or SymBool instead of a SymInt
// (ProgramBuilder::SymNode declares SymInts).
void Retype(pt2::ExportedProgram& p, const std::string& name, Kind kind) {
  auto fix = [&](pt2::Argument& a) {
    if (a.kind == Kind::kSymInt && a.sym.is_name && a.sym.name == name) a.kind = kind;
  };
  for (pt2::Node& n : p.graph.nodes) {
    for (pt2::Argument& out : n.outputs) fix(out);
  }
  for (pt2::Argument& out : p.graph.outputs) fix(out);
  for (pt2::OutputSpec& spec : p.signature.output_specs) fix(spec.arg);
  auto it = p.graph.sym_int_values.find(name);
  if (it == p.graph.sym_int_values.end()) return;
  (kind == Kind::kSymBool ? p.graph.sym_bool_values : p.graph.sym_float_values)[name] = it->second;
  p.graph.sym_int_values.erase(it);
}

// x: [s0, s1]; n = x.shape[0], m = x.shape[1].
ProgramBuilder Sizes() {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0", "s1"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 1)}, "m");
  return b;
}
const std::vector<std::string> kSizes = {"Shape", "Squeeze", "Shape", "Squeeze"};

std::vector<std::string> After(std::vector<std::string> ops) {
  std::vector<std::string> all = kSizes;
  all.insert(all.end(), ops.begin(), ops.end());
  return all;
}

// Sizes() + one Python-level op `target` named "r" (of `kind`), returned.
Case Sym(std::string name, std::string target, std::vector<pt2::NamedArgument> args,
         Kind kind, std::vector<std::string> ops) {
  ProgramBuilder b = Sizes();
  b.SymNode(target, std::move(args), "r");
  b.Output("r");
  pt2::ExportedProgram p = b.Build();
  if (kind != Kind::kSymInt) Retype(p, "r", kind);
  DataType dtype = kind == Kind::kSymInt ? kI64 : kind == Kind::kSymBool ? kBool : kF32;
  return Case{std::move(name), p, dtype, After(std::move(ops))};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  auto a = [](const std::string& s) { return SymIntArg("a", s); };
  auto b = [](const std::string& s) { return SymIntArg("b", s); };
  const std::vector<std::string> kFloorDiv = {"Div", "Mul",  "Equal", "Not", "Less",
                                              "Less", "Xor", "And",   "Sub", "Where"};

  add(Sym("add", "_operator.add", {a("n"), b("m")}, Kind::kSymInt, {"Add"}));
  add(Sym("add_const", "_operator.add", {a("n"), IntArg("b", 1)}, Kind::kSymInt, {"Add"}));
  add(Sym("sub", "_operator.sub", {a("n"), b("m")}, Kind::kSymInt, {"Sub"}));
  add(Sym("mul", "_operator.mul", {a("n"), IntArg("b", 4)}, Kind::kSymInt, {"Mul"}));
  add(Sym("floordiv", "_operator.floordiv", {a("n"), IntArg("b", 2)}, Kind::kSymInt, kFloorDiv));
  add(Sym("mod", "_operator.mod", {a("n"), IntArg("b", 3)}, Kind::kSymInt, {"Mod"}));
  add(Sym("pow", "_operator.pow", {a("n"), IntArg("b", 2)}, Kind::kSymInt, {"Pow"}));
  add(Sym("neg", "_operator.neg", {a("n")}, Kind::kSymInt, {"Neg"}));
  add(Sym("math_trunc_of_int", "math.trunc", {SymIntArg("x", "n")}, Kind::kSymInt, {"Identity"}));
  add(Sym("truediv", "_operator.truediv", {a("n"), b("m")}, Kind::kSymFloat,
          {"Cast", "Cast", "Div"}));
  add(Sym("mul_float", "_operator.mul", {a("n"), FloatArg("b", 0.5)}, Kind::kSymFloat,
          {"Cast", "Mul"}));
  add(Sym("eq", "_operator.eq", {a("n"), b("m")}, Kind::kSymBool, {"Equal"}));
  add(Sym("ne", "_operator.ne", {a("n"), IntArg("b", 1)}, Kind::kSymBool, {"Equal", "Not"}));
  add(Sym("lt", "_operator.lt", {a("n"), b("m")}, Kind::kSymBool, {"Less"}));
  add(Sym("le", "_operator.le", {a("n"), b("m")}, Kind::kSymBool, {"LessOrEqual"}));
  add(Sym("gt", "_operator.gt", {a("n"), IntArg("b", 1)}, Kind::kSymBool, {"Greater"}));
  add(Sym("ge_float", "_operator.ge", {a("n"), FloatArg("b", 2.5)}, Kind::kSymBool,
          {"Cast", "GreaterOrEqual"}));
  add(Sym("sym_max", "torch.sym_max", {a("n"), b("m")}, Kind::kSymInt, {"Max"}));
  add(Sym("sym_min", "torch.sym_min", {a("n"), IntArg("b", 8)}, Kind::kSymInt, {"Min"}));
  add(Sym("sym_float", "torch.sym_float", {a("n")}, Kind::kSymFloat, {"Cast"}));
  add(Sym("sym_sqrt", "torch._sym_sqrt", {a("n")}, Kind::kSymFloat, {"Cast", "Sqrt"}));

  // Ops over other symbolic kinds: build the operand first.
  auto with = [&](std::string name, std::string first_target,
                  std::vector<pt2::NamedArgument> first_args, Kind first_kind,
                  std::string target, std::vector<pt2::NamedArgument> args, Kind kind,
                  std::vector<std::string> ops) {
    ProgramBuilder pb = Sizes();
    pb.SymNode(first_target, std::move(first_args), "t");
    pb.SymNode(target, std::move(args), "r");
    pb.Output("r");
    pt2::ExportedProgram p = pb.Build();
    if (first_kind != Kind::kSymInt) Retype(p, "t", first_kind);
    if (kind != Kind::kSymInt) Retype(p, "r", kind);
    DataType dtype = kind == Kind::kSymInt ? kI64 : kind == Kind::kSymBool ? kBool : kF32;
    add(Case{std::move(name), p, dtype, After(std::move(ops))});
  };
  std::vector<pt2::NamedArgument> div_nm = {a("n"), b("m")};
  with("math_trunc", "_operator.truediv", div_nm, Kind::kSymFloat, "math.trunc",
       {SymFloatArg("x", "t")}, Kind::kSymInt,
       {"Cast", "Cast", "Div", "Less", "Ceil", "Floor", "Where", "Cast"});
  with("floordiv_float", "_operator.truediv", div_nm, Kind::kSymFloat, "_operator.floordiv",
       {SymFloatArg("a", "t"), IntArg("b", 2)}, Kind::kSymFloat,
       {"Cast", "Cast", "Div", "Div", "Floor"});
  with("mod_float", "_operator.truediv", div_nm, Kind::kSymFloat, "_operator.mod",
       {SymFloatArg("a", "t"), FloatArg("b", 1.5)}, Kind::kSymFloat,
       {"Cast", "Cast", "Div", "Mod", "Equal", "Not", "Less", "Less", "Xor", "And", "Add",
        "Where"});
  with("sym_not", "_operator.eq", div_nm, Kind::kSymBool, "torch.sym_not",
       {SymBoolArg("a", "t")}, Kind::kSymBool, {"Equal", "Not"});
  with("and_bools", "_operator.lt", div_nm, Kind::kSymBool, "_operator.and_",
       {SymBoolArg("a", "t"), BoolArg("b", true)}, Kind::kSymBool, {"Less", "And"});
  with("or_ints", "_operator.add", div_nm, Kind::kSymInt, "_operator.or_",
       {SymIntArg("a", "t"), IntArg("b", 1)}, Kind::kSymInt, {"Add", "BitwiseOr"});
  with("eq_bools", "_operator.lt", div_nm, Kind::kSymBool, "_operator.eq",
       {SymBoolArg("a", "t"), BoolArg("b", false)}, Kind::kSymBool, {"Less", "Equal"});
  with("sym_ite", "_operator.lt", div_nm, Kind::kSymBool, "torch.sym_ite",
       {SymBoolArg("b", "t"), SymIntArg("t", "n"), SymIntArg("f", "m")}, Kind::kSymInt,
       {"Less", "Where"});

  // Sizes of tensors.
  {
    ProgramBuilder pb;
    pb.SymInput("x", kF32, {"s0", "3"});
    pb.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", -2)}, "r");
    pb.Output("r");
    add(Case{"sym_size_negative_dim", pb.Build(), kI64, {"Shape", "Squeeze"}});
  }
  {
    ProgramBuilder pb;
    pb.SymInput("x", kF32, {"s0", "3"});
    pb.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 1)}, "r");
    pb.Output("r");
    add(Case{"sym_size_static_dim", pb.Build(), kI64, {}});
  }
  {
    ProgramBuilder pb;
    pb.SymInput("x", kF32, {"s0", "3"});
    pb.SymNode(Aten("sym_numel.default"), {TensorArg("self", "x")}, "r");
    pb.Output("r");
    add(Case{"sym_numel", pb.Build(), kI64, {"Shape", "ReduceProd"}});
  }
  {
    ProgramBuilder pb;
    pb.Input("x", kF32, {2, 3});
    pb.SymNode(Aten("sym_numel.default"), {TensorArg("self", "x")}, "r");
    pb.Output("r");
    add(Case{"sym_numel_static", pb.Build(), kI64, {}});
  }
  {
    ProgramBuilder pb;
    pb.Input("x", kF32, {2, 3});
    pb.SymNode(Aten("sym_storage_offset.default"), {TensorArg("self", "x")}, "r");
    pb.Output("r");
    add(Case{"sym_storage_offset_static", pb.Build(), kI64, {}});
  }
  return cases;
}

class SymbolicTest : public ::testing::TestWithParam<Case> {};

TEST_P(SymbolicTest, ConvertsToZeroDimValues) {
  const Case& c = GetParam();
  ASSERT_EQ(c.program.graph.outputs.size(), 1u);  // "r"
  // A symbolic output must convert to a 0-d value of its kind's dtype.
  std::optional<Converted> got = ConvertAndExpect(c.program, c.ops);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->output_dtypes[0], c.dtype);
}

INSTANTIATE_TEST_SUITE_P(Symbolic, SymbolicTest, ::testing::ValuesIn(Cases()), CaseName());

// Assertions emit nothing; functional ones yield an unused token.
TEST(SymbolicAsserts, EmitNoNodes) {
  ProgramBuilder b = Sizes();
  b.SymNode("_operator.ge", {SymIntArg("a", "n"), IntArg("b", 2)}, "ok");
  b.Node(Aten("_assert_tensor_metadata.default"),
         {TensorArg("a", "x"), DtypeArg("dtype", kF32)}, {});
  b.Node(Aten("_assert_scalar.default"),
         {SymBoolArg("self", "ok"), StringArg("assert_msg", "n >= 2")}, {});
  b.Node(Aten("sym_constrain_range_for_size.default"),
         {SymIntArg("size", "m"), IntArg("min", 2)}, {});
  b.Node(Aten("sym_constrain_range.default"), {SymIntArg("size", "m")}, {});
  b.Node(Aten("_assert_async.msg"), {TensorArg("self", "x"), StringArg("assert_msg", "m")}, {});
  b.Node(Aten("_make_dep_token.default"), {}, {{"token", kF32, {0}}});
  b.Node(Aten("_functional_assert_async.msg"),
         {TensorArg("self", "x"), StringArg("assert_msg", "m"), TensorArg("dep_token", "token")},
         {{"token_1", kF32, {0}}});
  b.Node(Aten("relu.default"), {TensorArg("self", "x")}, {{"y", kF32, {2, 2}, {"s0", "s1"}}});
  b.Output("y");
  pt2::ExportedProgram p = b.Build();
  Retype(p, "ok", Kind::kSymBool);
  absl::StatusOr<Converted> got = ConvertAndCheck(p);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(
      OpTypesAre(got->model, {"Shape", "Squeeze", "Shape", "Squeeze", "GreaterOrEqual", "Relu"}));
}

TEST(SymbolicErrors, SymSizeDimOutOfRange) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 3)}, "r");
  b.Output("r");
  EXPECT_TRUE(
      HasStatus(ConvertAndCheck(b.Build()), absl::StatusCode::kInvalidArgument, "out of range"));
}

TEST(SymbolicErrors, MissingOperand) {
  ProgramBuilder b = Sizes();
  b.SymNode("_operator.add", {SymIntArg("a", "n")}, "r");
  b.Output("r");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(b.Build()), absl::StatusCode::kInvalidArgument,
                        "expected at least 2 operands, got 1"));
}

TEST(SymbolicErrors, OperandNotANumber) {
  ProgramBuilder b = Sizes();
  b.SymNode("_operator.lt", {SymIntArg("a", "n"), StringArg("b", "three")}, "r");
  b.Output("r");
  pt2::ExportedProgram p = b.Build();
  Retype(p, "r", Kind::kSymBool);
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p), absl::StatusCode::kInvalidArgument,
                        "operand 1 ('b') is not a number"));
}

}  // namespace
}  // namespace pt2onnx::testing
