// Tests for reference/control_flow.cc: the reference interpreter runs
// torch.cond, while_loop, scan and map_impl on hand-made programs with torch's
// eager semantics (branch choice, symbolic predicates, carried and additional
// inputs, stacked outputs, zero iterations, nesting) and bounds what a
// hostile file can make it do. Numbers against torch: the op-zoo fixtures
// (tests/e2e/test_reference.py).
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "reference/interpreter.h"
#include "reference/ref_tensor.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::reference {
namespace {

using pt2::Argument;
using testing::Aten;
using testing::HasStatus;
using testing::IntArg;
using testing::ProgramBuilder;
using testing::TensorArg;
using testing::TensorsArg;
using Kind = pt2::Argument::Kind;

constexpr DataType kF32 = DataType::kFloat;
constexpr DataType kI64 = DataType::kInt64;
constexpr DataType kBool = DataType::kBool;

pt2::NamedArgument Positional(pt2::NamedArgument a) {
  a.name = "";
  a.kind = pt2::ArgumentKind::kPositional;
  return a;
}

pt2::NamedArgument GraphArg(const ProgramBuilder& body) {
  pt2::NamedArgument a;
  a.kind = pt2::ArgumentKind::kPositional;
  a.arg.kind = Kind::kGraph;
  a.arg.s = "subgraph";
  a.arg.graph = std::make_shared<const pt2::Graph>(body.Build().graph);
  return a;
}

pt2::NamedArgument List(std::vector<std::string> names) { return Positional(TensorsArg("", std::move(names))); }

NamedTensor Named(std::string name, DataType dtype, Dims dims, std::vector<double> values) {
  absl::StatusOr<Tensor> t = FromDoubles(dtype, dims, values);
  EXPECT_TRUE(t.ok()) << t.status();
  return {std::move(name), *std::move(t)};
}

absl::StatusOr<Interpretation> Interpreted(const pt2::ExportedProgram& program, std::vector<NamedTensor> inputs,
                                   InterpretOptions options = {}) {
  static const pt2::WeightTable* weights = new pt2::WeightTable();
  return Interpret(program, *weights, inputs, options);
}

std::vector<double> Values(const Interpretation& run, size_t output) { return ToDoubles(run.outputs[output].tensor); }

// Branches: relu(x) + y and neg(x); the predicate is a 1-element tensor `p`.
pt2::ExportedProgram CondProgram(DataType pred_dtype, std::vector<int64_t> pred_shape) {
  ProgramBuilder then_fn, else_fn;
  then_fn.Input("x", kF32, {3}).Input("y", kF32, {3});
  then_fn.Node(Aten("relu.default"), {TensorArg("self", "x")}, {{"relu", kF32, {3}}});
  then_fn.Node(Aten("add.Tensor"), {TensorArg("self", "relu"), TensorArg("other", "y")}, {{"add", kF32, {3}}});
  then_fn.Output("add");
  else_fn.Input("x", kF32, {3}).Input("y", kF32, {3});
  else_fn.Node(Aten("neg.default"), {TensorArg("self", "x")}, {{"neg", kF32, {3}}}).Output("neg");
  return ProgramBuilder()
      .Input("p", pred_dtype, pred_shape)
      .Input("x", kF32, {3})
      .Input("y", kF32, {3})
      .Node("torch.ops.higher_order.cond",
            {Positional(TensorArg("", "p")), GraphArg(then_fn), GraphArg(else_fn), List({"x", "y"})},
            {{"getitem", kF32, {3}}})
      .Output("getitem")
      .Build();
}

TEST(ReferenceControlFlow, CondRunsTheBranchThePredicateChooses) {
  const pt2::ExportedProgram program = CondProgram(kBool, {});
  auto x = Named("x", kF32, {3}, {-1, 2, -3});
  auto y = Named("y", kF32, {3}, {10, 20, 30});
  absl::StatusOr<Interpretation> taken = Interpreted(program, {Named("p", kBool, {}, {1}), x, y});
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(Values(*taken, 0), (std::vector<double>{10, 22, 30}));
  absl::StatusOr<Interpretation> other = Interpreted(program, {Named("p", kBool, {}, {0}), x, y});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(Values(*other, 0), (std::vector<double>{1, -2, 3}));
}

TEST(ReferenceControlFlow, CondPredicateIsPythonTruthOfOneElement) {
  // bool(tensor): any dtype, non-zero is true, NaN is true; more than one element is an error.
  const pt2::ExportedProgram program = CondProgram(kF32, {1});
  auto x = Named("x", kF32, {3}, {-1, 2, -3});
  auto y = Named("y", kF32, {3}, {0, 0, 0});
  absl::StatusOr<Interpretation> nan = Interpreted(program, {Named("p", kF32, {1}, {std::nan("")}), x, y});
  ASSERT_TRUE(nan.ok()) << nan.status();
  EXPECT_EQ(Values(*nan, 0), (std::vector<double>{0, 2, 0}));
  absl::StatusOr<Interpretation> zero = Interpreted(program, {Named("p", kF32, {1}, {-0.0}), x, y});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(Values(*zero, 0), (std::vector<double>{1, -2, 3}));
  EXPECT_TRUE(HasStatus(Interpreted(CondProgram(kF32, {2}), {Named("p", kF32, {2}, {1, 1}), x, y}),
                        absl::StatusCode::kInvalidArgument, "the predicate has 2 elements"));
}

TEST(ReferenceControlFlow, CondOnASymbolicPredicate) {
  // cond(x.shape[0] > 2, relu, neg, [x]) with x of a dynamic batch.
  ProgramBuilder then_fn, else_fn;
  then_fn.SymInput("x", kF32, {"s0"}).Node(Aten("relu.default"), {TensorArg("self", "x")}, {{"r", kF32, {2}, {"s0"}}});
  then_fn.Output("r");
  else_fn.SymInput("x", kF32, {"s0"}).Node(Aten("neg.default"), {TensorArg("self", "x")}, {{"n", kF32, {2}, {"s0"}}});
  else_fn.Output("n");
  ProgramBuilder main;
  main.SymInput("x", kF32, {"s0"}).SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "size");
  pt2::ExportedProgram program = main.Build();
  pt2::Node gt;
  gt.target = "_operator.gt";
  gt.name = "gt";
  gt.inputs = {testing::SymIntArg("a", "size"), IntArg("b", 2)};
  Argument gt_out;
  gt_out.kind = Kind::kSymBool;
  gt_out.sym.is_name = true;
  gt_out.sym.name = "gt";
  gt.outputs = {gt_out};
  program.graph.nodes.push_back(gt);
  pt2::Node cond;
  cond.target = "torch.ops.higher_order.cond";
  cond.name = "cond";
  cond.inputs = {Positional(testing::SymBoolArg("", "gt")), GraphArg(then_fn), GraphArg(else_fn), List({"x"})};
  Argument out;
  out.kind = Kind::kTensor;
  out.name = "getitem";
  cond.outputs = {out};
  program.graph.nodes.push_back(cond);
  program.graph.outputs = {out};
  pt2::OutputSpec spec;
  spec.arg = out;
  program.signature.output_specs = {spec};
  absl::StatusOr<Interpretation> long_x = Interpreted(program, {Named("x", kF32, {3}, {-1, 2, -3})});
  ASSERT_TRUE(long_x.ok()) << long_x.status();
  EXPECT_EQ(Values(*long_x, 0), (std::vector<double>{0, 2, 0}));
  absl::StatusOr<Interpretation> short_x = Interpreted(program, {Named("x", kF32, {2}, {-1, 2})});
  ASSERT_TRUE(short_x.ok()) << short_x.status();
  EXPECT_EQ(Values(*short_x, 0), (std::vector<double>{1, -2}));
}

// while i < n: i = i + 1; x = x * 2 + w (w an additional input, as a lifted parameter).
pt2::ExportedProgram WhileProgram(bool condition_is_bool = true) {
  ProgramBuilder cond_fn, body_fn;
  cond_fn.Input("i", kI64, {}).Input("x", kF32, {2}).Input("n", kI64, {}).Input("w", kF32, {2});
  if (condition_is_bool) {
    cond_fn.Node(Aten("lt.Tensor"), {TensorArg("self", "i"), TensorArg("other", "n")}, {{"lt", kBool, {}}});
  } else {
    cond_fn.Node(Aten("sub.Tensor"), {TensorArg("self", "n"), TensorArg("other", "i")}, {{"lt", kI64, {}}});
  }
  cond_fn.Output("lt");
  body_fn.Input("i", kI64, {}).Input("x", kF32, {2}).Input("n", kI64, {}).Input("w", kF32, {2});
  body_fn.Node(Aten("add.Scalar"), {TensorArg("self", "i"), IntArg("other", 1)}, {{"next", kI64, {}}});
  body_fn.Node(Aten("mul.Scalar"), {TensorArg("self", "x"), IntArg("other", 2)}, {{"twice", kF32, {2}}});
  body_fn.Node(Aten("add.Tensor"), {TensorArg("self", "twice"), TensorArg("other", "w")}, {{"y", kF32, {2}}});
  body_fn.Output("next").Output("y");
  return ProgramBuilder()
      .Input("i", kI64, {})
      .Input("x", kF32, {2})
      .Input("n", kI64, {})
      .Input("w", kF32, {2})
      .Node("torch.ops.higher_order.while_loop",
            {GraphArg(cond_fn), GraphArg(body_fn), List({"i", "x"}), List({"n", "w"})},
            {{"getitem", kI64, {}}, {"getitem_1", kF32, {2}}})
      .Output("getitem")
      .Output("getitem_1")
      .Build();
}

TEST(ReferenceControlFlow, WhileLoopCarriesValuesUntilTheConditionFails) {
  absl::StatusOr<Interpretation> run =
      Interpreted(WhileProgram(), {Named("i", kI64, {}, {0}), Named("x", kF32, {2}, {1, -1}), Named("n", kI64, {}, {3}),
                           Named("w", kF32, {2}, {0.5, 0})});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Values(*run, 0), (std::vector<double>{3}));
  EXPECT_EQ(Values(*run, 1), (std::vector<double>{11.5, -8}));  // ((1*2+.5)*2+.5)*2+.5
}

TEST(ReferenceControlFlow, WhileLoopOfZeroIterationsReturnsCopiesOfItsInputs) {
  std::vector<NamedTensor> inputs = {Named("i", kI64, {}, {5}), Named("x", kF32, {2}, {1, -1}),
                                              Named("n", kI64, {}, {3}), Named("w", kF32, {2}, {0.5, 0})};
  absl::StatusOr<Interpretation> run = Interpreted(WhileProgram(), inputs);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Values(*run, 0), (std::vector<double>{5}));
  EXPECT_EQ(Values(*run, 1), (std::vector<double>{1, -1}));
  EXPECT_NE(run->outputs[1].tensor.buffer(), inputs[1].tensor.buffer());
}

TEST(ReferenceControlFlow, WhileLoopStopsAtTheIterationLimit) {
  InterpretOptions options;
  options.max_loop_iterations = 10;
  std::vector<NamedTensor> inputs = {Named("i", kI64, {}, {0}), Named("x", kF32, {2}, {0, 0}),
                                              Named("n", kI64, {}, {11}), Named("w", kF32, {2}, {0, 0})};
  EXPECT_TRUE(HasStatus(Interpreted(WhileProgram(), inputs, options), absl::StatusCode::kResourceExhausted,
                        "while_loop did not stop after 10 iterations"));
  inputs[2] = Named("n", kI64, {}, {10});  // exactly the limit runs
  EXPECT_TRUE(Interpreted(WhileProgram(), inputs, options).ok());
  EXPECT_EQ(InterpretOptions().max_loop_iterations, int64_t{1} << 20);
}

TEST(ReferenceControlFlow, WhileLoopConditionMustBeABooleanScalar) {
  EXPECT_TRUE(HasStatus(Interpreted(WhileProgram(false), {Named("i", kI64, {}, {0}), Named("x", kF32, {2}, {0, 0}),
                                                  Named("n", kI64, {}, {2}), Named("w", kF32, {2}, {0, 0})}),
                        absl::StatusCode::kInvalidArgument, "cond_fn must return a boolean scalar tensor"));
}

// scan(combine, [c], [xs], [w]): c' = c + x_t * w; ys_t = c' (stacked) and x_t sum.
pt2::ExportedProgram ScanProgram(int64_t length) {
  ProgramBuilder body;
  body.Input("c", kF32, {2}).Input("x", kF32, {2}).Input("w", kF32, {2});
  body.Node(Aten("mul.Tensor"), {TensorArg("self", "x"), TensorArg("other", "w")}, {{"xw", kF32, {2}}});
  body.Node(Aten("add.Tensor"), {TensorArg("self", "c"), TensorArg("other", "xw")}, {{"next", kF32, {2}}});
  body.Node(Aten("clone.default"), {TensorArg("self", "next")}, {{"y", kF32, {2}}});
  body.Node(Aten("sum.default"), {TensorArg("self", "x")}, {{"s", kF32, {}}});
  body.Output("next").Output("y").Output("s");
  return ProgramBuilder()
      .Input("c", kF32, {2})
      .Input("xs", kF32, {length, 2})
      .Input("w", kF32, {2})
      .Node("torch.ops.higher_order.scan", {GraphArg(body), List({"c"}), List({"xs"}), List({"w"})},
            {{"carry", kF32, {2}}, {"ys", kF32, {length, 2}}, {"sums", kF32, {length}}})
      .Output("carry")
      .Output("ys")
      .Output("sums")
      .Build();
}

TEST(ReferenceControlFlow, ScanCarriesAndStacksOverDimZero) {
  absl::StatusOr<Interpretation> run =
      Interpreted(ScanProgram(3), {Named("c", kF32, {2}, {0, 1}), Named("xs", kF32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                           Named("w", kF32, {2}, {1, 10})});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Values(*run, 0), (std::vector<double>{9, 121}));
  EXPECT_EQ(Values(*run, 1), (std::vector<double>{1, 21, 4, 61, 9, 121}));
  EXPECT_EQ(Values(*run, 2), (std::vector<double>{3, 7, 11}));
}

TEST(ReferenceControlFlow, ScanOfLengthZeroReturnsInitAndEmptyStacks) {
  absl::StatusOr<Interpretation> run =
      Interpreted(ScanProgram(0), {Named("c", kF32, {2}, {7, 8}), Named("xs", kF32, {0, 2}, {}), Named("w", kF32, {2}, {1, 1})});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Values(*run, 0), (std::vector<double>{7, 8}));
  EXPECT_EQ(run->outputs[1].tensor.dims(), (Dims{0, 2}));
  EXPECT_EQ(run->outputs[2].tensor.dims(), (Dims{0}));
}

TEST(ReferenceControlFlow, ScanStepsAreBoundedLikeLoops) {
  // Rows of zero elements are free to store: their count is what a file could make huge.
  InterpretOptions options;
  options.max_loop_iterations = 2;
  EXPECT_TRUE(HasStatus(Interpreted(ScanProgram(3), {Named("c", kF32, {2}, {0, 0}), Named("xs", kF32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                                             Named("w", kF32, {2}, {1, 1})}, options),
                        absl::StatusCode::kResourceExhausted, "scan over 3 rows is more than 2 steps"));
  EXPECT_TRUE(Interpreted(ScanProgram(2), {Named("c", kF32, {2}, {0, 0}), Named("xs", kF32, {2, 2}, {1, 2, 3, 4}),
                                    Named("w", kF32, {2}, {1, 1})}, options).ok());
}

// map(f, [xs], [y]): f(x_t, y) = (x_t + y, sum(x_t)).
pt2::ExportedProgram MapProgram(int64_t rows) {
  ProgramBuilder f;
  f.Input("x", kF32, {2}).Input("y", kF32, {2});
  f.Node(Aten("add.Tensor"), {TensorArg("self", "x"), TensorArg("other", "y")}, {{"a", kF32, {2}}});
  f.Node(Aten("sum.default"), {TensorArg("self", "x")}, {{"s", kF32, {}}});
  f.Output("a").Output("s");
  return ProgramBuilder()
      .Input("xs", kF32, {rows, 2})
      .Input("y", kF32, {2})
      .Node("torch.ops.higher_order.map_impl", {GraphArg(f), List({"xs"}), List({"y"})},
            {{"getitem", kF32, {rows, 2}}, {"getitem_1", kF32, {rows}}})
      .Output("getitem")
      .Output("getitem_1")
      .Build();
}

TEST(ReferenceControlFlow, MapStacksTheBodyOverTheLeadingDim) {
  absl::StatusOr<Interpretation> run =
      Interpreted(MapProgram(3), {Named("xs", kF32, {3, 2}, {1, 2, 3, 4, 5, 6}), Named("y", kF32, {2}, {10, 20})});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Values(*run, 0), (std::vector<double>{11, 22, 13, 24, 15, 26}));
  EXPECT_EQ(Values(*run, 1), (std::vector<double>{3, 7, 11}));
}

TEST(ReferenceControlFlow, MapStepsAreBoundedLikeLoops) {
  InterpretOptions options;
  options.max_loop_iterations = 2;
  EXPECT_TRUE(HasStatus(Interpreted(MapProgram(3), {Named("xs", kF32, {3, 2}, {1, 2, 3, 4, 5, 6}), Named("y", kF32, {2}, {0, 0})},
                                    options),
                        absl::StatusCode::kResourceExhausted, "map over 3 rows is more than 2 steps"));
}

TEST(ReferenceControlFlow, MapOverZeroRowsFailsAsInTorch) {
  EXPECT_TRUE(HasStatus(Interpreted(MapProgram(0), {Named("xs", kF32, {0, 2}, {}), Named("y", kF32, {2}, {1, 1})}),
                        absl::StatusCode::kInvalidArgument, "map over zero rows"));
}

// cond(p, level, neg, [p, x]) nested `depth` times; the innermost true branch is relu.
pt2::ExportedProgram NestedConds(int depth) {
  ProgramBuilder inner;
  inner.Input("p", kBool, {}).Input("x", kF32, {3});
  inner.Node(Aten("relu.default"), {TensorArg("self", "x")}, {{"r", kF32, {3}}}).Output("r");
  ProgramBuilder neg;
  neg.Input("p", kBool, {}).Input("x", kF32, {3});
  neg.Node(Aten("neg.default"), {TensorArg("self", "x")}, {{"n", kF32, {3}}}).Output("n");
  for (int level = 0; level < depth; ++level) {
    ProgramBuilder outer;
    outer.Input("p", kBool, {}).Input("x", kF32, {3});
    outer.Node("torch.ops.higher_order.cond",
               {Positional(TensorArg("", "p")), GraphArg(inner), GraphArg(neg), List({"p", "x"})},
               {{"getitem", kF32, {3}}});
    outer.Output("getitem");
    inner = outer;
  }
  return inner.Build();
}

TEST(ReferenceControlFlow, NestedCondsRunToTheLimitAndNoDeeper) {
  std::vector<NamedTensor> inputs = {Named("p", kBool, {}, {1}), Named("x", kF32, {3}, {-1, 0, 2})};
  absl::StatusOr<Interpretation> run = Interpreted(NestedConds(16), inputs);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Values(*run, 0), (std::vector<double>{0, 0, 2}));
  EXPECT_TRUE(HasStatus(Interpreted(NestedConds(17), inputs), absl::StatusCode::kInvalidArgument,
                        "nested more than 16 deep"));
}

TEST(ReferenceControlFlow, CondInsideALoopBody) {
  // while i < 4: i += 1; x = cond(i % 2 == 0, x + 1, -x)
  ProgramBuilder plus, minus, cond_fn, body;
  plus.Input("x", kF32, {2}).Node(Aten("add.Scalar"), {TensorArg("self", "x"), IntArg("other", 1)}, {{"a", kF32, {2}}});
  plus.Output("a");
  minus.Input("x", kF32, {2}).Node(Aten("neg.default"), {TensorArg("self", "x")}, {{"n", kF32, {2}}}).Output("n");
  cond_fn.Input("i", kI64, {}).Input("x", kF32, {2});
  cond_fn.Node(Aten("lt.Scalar"), {TensorArg("self", "i"), IntArg("other", 4)}, {{"lt", kBool, {}}}).Output("lt");
  body.Input("i", kI64, {}).Input("x", kF32, {2});
  body.Node(Aten("add.Scalar"), {TensorArg("self", "i"), IntArg("other", 1)}, {{"next", kI64, {}}});
  body.Node(Aten("remainder.Scalar"), {TensorArg("self", "next"), IntArg("other", 2)}, {{"rem", kI64, {}}});
  body.Node(Aten("eq.Scalar"), {TensorArg("self", "rem"), IntArg("other", 0)}, {{"even", kBool, {}}});
  body.Node("torch.ops.higher_order.cond",
            {Positional(TensorArg("", "even")), GraphArg(plus), GraphArg(minus), List({"x"})},
            {{"getitem", kF32, {2}}});
  body.Output("next").Output("getitem");
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("i", kI64, {})
          .Input("x", kF32, {2})
          .Node("torch.ops.higher_order.while_loop", {GraphArg(cond_fn), GraphArg(body), List({"i", "x"}), List({})},
                {{"getitem", kI64, {}}, {"getitem_1", kF32, {2}}})
          .Output("getitem")
          .Output("getitem_1")
          .Build();
  absl::StatusOr<Interpretation> run = Interpreted(program, {Named("i", kI64, {}, {0}), Named("x", kF32, {2}, {1, 2})});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Values(*run, 0), (std::vector<double>{4}));
  EXPECT_EQ(Values(*run, 1), (std::vector<double>{1, 2}));  // -x, +1, -x, +1: (1,2) (-1,-2) (0,-1) (0,1) (1,2)
}

TEST(ReferenceControlFlow, MissingKernelsLooksInsideSubgraphs) {
  ProgramBuilder weird;
  weird.Input("x", kF32, {3}).Input("y", kF32, {3});
  weird.Node("torch.ops.mylib.weird.default", {TensorArg("self", "x")}, {{"w", kF32, {3}}}).Output("w");
  pt2::ExportedProgram program = CondProgram(kBool, {});
  program.graph.nodes[0].inputs[2] = GraphArg(weird);
  EXPECT_EQ(MissingKernels(program, CreateReferenceRegistry()), std::vector<std::string>{"mylib::weird.default"});
  EXPECT_TRUE(HasStatus(Interpreted(program, {Named("p", kBool, {}, {1}), Named("x", kF32, {3}, {0, 0, 0}),
                                      Named("y", kF32, {3}, {0, 0, 0})}),
                        absl::StatusCode::kUnimplemented, "no kernel for mylib::weird.default"));
}

}  // namespace
}  // namespace pt2onnx::reference
