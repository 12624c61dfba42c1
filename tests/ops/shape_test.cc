// Tests for ops/shape.cc: each case is a one-node program; it must convert,
// pass the ONNX checker and shape inference, infer the FX output shapes and
// dtypes, and (where given) emit the expected op types.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr int64_t kMaxInt = 9223372036854775807;

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types (Constants skipped); empty: unchecked
  // Symbolic cases: ONNX may infer a computed static size as unknown.
  bool symbolic = false;
};

// x (symbolic where its spec says so) -> one node -> its outputs.
Case Unary(std::string name, TensorSpec in, std::string target, std::vector<pt2::NamedArgument> args,
           std::vector<TensorSpec> outs, std::vector<std::string> ops) {
  args.insert(args.begin(), TensorArg("self", in.name));
  return Case{std::move(name), OneNodeProgram({in}, target, std::move(args), std::move(outs)),
              std::move(ops)};
}

// Marks a case whose computed static sizes ONNX may infer as unknown.
Case Symbolic(Case c) {
  c.symbolic = true;
  return c;
}

// x -> one node with a Tensor[] output.
Case Listed(std::string name, TensorSpec in, std::string target,
            std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
            std::vector<std::string> ops) {
  ProgramBuilder b;
  b.Input(in.name, in.dtype, in.shape);
  args.insert(args.begin(), TensorArg("self", in.name));
  b.ListNode(Aten(target), args, outs);
  for (const TensorSpec& o : outs) b.Output(o.name);
  return Case{std::move(name), b, std::move(ops)};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  TensorSpec x234{"x", kF32, {2, 3, 4}};

  // reshape family
  add(Unary("view", x234, "view.default", {IntsArg("size", {6, 4})}, {{"y", kF32, {6, 4}}},
            {"Reshape"}));
  add(Unary("view_infer", x234, "view.default", {IntsArg("size", {2, -1})},
            {{"y", kF32, {2, 12}}}, {"Reshape"}));
  add(Unary("reshape_zero_size", {"x", kF32, {0, 4}}, "reshape.default",
            {IntsArg("shape", {0, 2, 2})}, {{"y", kF32, {0, 2, 2}}}, {"Reshape"}));
  add(Unary("unsafe_view", x234, "_unsafe_view.default", {IntsArg("size", {24})},
            {{"y", kF32, {24}}}, {"Reshape"}));
  add(Unary("view_copy", x234, "view_copy.default", {IntsArg("size", {4, 6})},
            {{"y", kF32, {4, 6}}}, {"Reshape"}));
  add(Unary("flatten", {"x", kF32, {2, 3, 4, 5}}, "flatten.using_ints",
            {IntArg("start_dim", 1), IntArg("end_dim", 2)}, {{"y", kF32, {2, 12, 5}}},
            {"Reshape"}));
  add(Unary("flatten_scalar", {"x", kF32, {}}, "flatten.using_ints", {}, {{"y", kF32, {1}}},
            {"Reshape"}));
  add(Unary("unflatten", {"x", kF32, {2, 12}}, "unflatten.int",
            {IntArg("dim", -1), IntsArg("sizes", {3, -1})}, {{"y", kF32, {2, 3, 4}}},
            {"Reshape"}));
  add(Unary("ravel", x234, "ravel.default", {}, {{"y", kF32, {24}}}, {"Reshape"}));

  // permutations
  add(Unary("permute", x234, "permute.default", {IntsArg("dims", {2, 0, -2})},
            {{"y", kF32, {4, 2, 3}}}, {"Transpose"}));
  add(Unary("transpose", x234, "transpose.int", {IntArg("dim0", -1), IntArg("dim1", 0)},
            {{"y", kF32, {4, 3, 2}}}, {"Transpose"}));
  add(Unary("t", {"x", kF32, {3, 4}}, "t.default", {}, {{"y", kF32, {4, 3}}}, {"Transpose"}));
  add(Unary("t_1d", {"x", kF32, {3}}, "t.default", {}, {{"y", kF32, {3}}}, {"Identity"}));
  add(Unary("numpy_T", x234, "numpy_T.default", {}, {{"y", kF32, {4, 3, 2}}}, {"Transpose"}));
  add(Unary("mT", x234, "mT.default", {}, {{"y", kF32, {2, 4, 3}}}, {"Transpose"}));
  add(Unary("movedim", x234, "movedim.int", {IntArg("source", 0), IntArg("destination", -1)},
            {{"y", kF32, {3, 4, 2}}}, {"Transpose"}));
  add(Unary("swapaxes", x234, "swapaxes.default", {IntArg("axis0", 0), IntArg("axis1", 1)},
            {{"y", kF32, {3, 2, 4}}}, {"Transpose"}));

  // squeeze / unsqueeze
  add(Unary("unsqueeze", {"x", kF32, {2, 3}}, "unsqueeze.default", {IntArg("dim", -1)},
            {{"y", kF32, {2, 3, 1}}}, {"Unsqueeze"}));
  add(Unary("squeeze_all", {"x", kF32, {1, 3, 1}}, "squeeze.default", {}, {{"y", kF32, {3}}},
            {"Squeeze"}));
  add(Unary("squeeze_dims", {"x", kF32, {1, 3, 1}}, "squeeze.dims", {IntsArg("dim", {0, -1})},
            {{"y", kF32, {3}}}, {"Squeeze"}));
  add(Unary("squeeze_dim_not_one", {"x", kF32, {2, 3}}, "squeeze.dim", {IntArg("dim", 0)},
            {{"y", kF32, {2, 3}}}, {"Identity"}));

  // expand / repeat / tile
  add(Unary("expand", {"x", kF32, {3, 1}}, "expand.default", {IntsArg("size", {2, -1, 4})},
            {{"y", kF32, {2, 3, 4}}}, {"Expand"}));
  add(Unary("repeat", {"x", kF32, {2, 3}}, "repeat.default", {IntsArg("repeats", {2, 1, 2})},
            {{"y", kF32, {2, 2, 6}}}, {"Unsqueeze", "Tile"}));
  add(Unary("tile_short", {"x", kF32, {2, 3}}, "tile.default", {IntsArg("dims", {2})},
            {{"y", kF32, {2, 6}}}, {"Tile"}));

  // cat / stack
  {
    ProgramBuilder b;
    b.Input("a", kF32, {2, 3}).Input("b", kF32, {2, 5});
    b.Node(Aten("cat.default"), {TensorsArg("tensors", {"a", "b"}), IntArg("dim", -1)},
           {{"y", kF32, {2, 8}}});
    b.Output("y");
    add(Case{"cat", b, {"Concat"}});
  }
  {
    ProgramBuilder b;
    b.Input("a", kF32, {2, 3}).Input("b", kF32, {2, 3});
    b.Node(Aten("stack.default"), {TensorsArg("tensors", {"a", "b"}), IntArg("dim", 1)},
           {{"y", kF32, {2, 2, 3}}});
    b.Output("y");
    add(Case{"stack", b, {"Unsqueeze", "Unsqueeze", "Concat"}});
  }

  // split family
  add(Listed("split_tensor", {"x", kF32, {2, 10}}, "split.Tensor",
             {IntArg("split_size", 4), IntArg("dim", 1)},
             {{"s0", kF32, {2, 4}}, {"s1", kF32, {2, 4}}, {"s2", kF32, {2, 2}}}, {"Split"}));
  add(Listed("split_with_sizes", {"x", kF32, {5, 2}}, "split_with_sizes.default",
             {IntsArg("split_sizes", {2, 3})}, {{"s0", kF32, {2, 2}}, {"s1", kF32, {3, 2}}},
             {"Split"}));
  add(Listed("chunk", {"x", kF32, {7, 2}}, "chunk.default", {IntArg("chunks", 3)},
             {{"c0", kF32, {3, 2}}, {"c1", kF32, {3, 2}}, {"c2", kF32, {1, 2}}}, {"Split"}));
  add(Listed("unbind", {"x", kF32, {3, 2}}, "unbind.int", {IntArg("dim", 0)},
             {{"u0", kF32, {2}}, {"u1", kF32, {2}}, {"u2", kF32, {2}}},
             {"Split", "Squeeze", "Squeeze", "Squeeze"}));

  // slicing
  add(Unary("slice_step", {"x", kF32, {4, 10}}, "slice.Tensor",
            {IntArg("dim", 1), IntArg("start", 2), IntArg("end", kMaxInt), IntArg("step", 2)},
            {{"y", kF32, {4, 4}}}, {"Slice"}));
  add(Unary("slice_negative_start", {"x", kF32, {4, 10}}, "slice.Tensor",
            {IntArg("dim", -1), IntArg("start", -3), NoneArg("end")}, {{"y", kF32, {4, 3}}},
            {"Slice"}));
  add(Unary("slice_noop", {"x", kF32, {4, 10}}, "slice.Tensor",
            {IntArg("dim", 0), IntArg("start", 0), IntArg("end", kMaxInt)},
            {{"y", kF32, {4, 10}}}, {"Identity"}));
  add(Unary("select_negative", {"x", kF32, {4, 5}}, "select.int",
            {IntArg("dim", 1), IntArg("index", -1)}, {{"y", kF32, {4}}}, {"Gather"}));
  add(Unary("narrow_negative", {"x", kF32, {4, 10}}, "narrow.default",
            {IntArg("dim", 1), IntArg("start", -4), IntArg("length", 4)}, {{"y", kF32, {4, 4}}},
            {"Slice"}));
  add(Unary("flip", {"x", kF32, {2, 3}}, "flip.default", {IntsArg("dims", {0, -1})},
            {{"y", kF32, {2, 3}}}, {"Slice"}));
  add(Unary("roll", {"x", kF32, {2, 5}}, "roll.default",
            {IntsArg("shifts", {-2}), IntsArg("dims", {1})}, {{"y", kF32, {2, 5}}},
            {"Slice", "Slice", "Concat"}));
  add(Unary("roll_flat", {"x", kF32, {2, 3}}, "roll.default", {IntsArg("shifts", {1})},
            {{"y", kF32, {2, 3}}}, {"Reshape", "Slice", "Slice", "Concat", "Shape", "Reshape"}));

  // identity-like views, pixel shuffles, diagonal, unfold
  add(Unary("alias_copy", x234, "alias_copy.default", {}, {{"y", kF32, {2, 3, 4}}},
            {"Identity"}));
  add(Unary("as_strided_identity", {"x", kF32, {2, 3}}, "as_strided.default",
            {IntsArg("size", {2, 3}), IntsArg("stride", {3, 1})}, {{"y", kF32, {2, 3}}},
            {"Identity"}));
  add(Unary("as_strided_windows", {"x", kF32, {4, 3}}, "as_strided.default",
            {IntsArg("size", {3, 3}), IntsArg("stride", {1, 3}), IntArg("storage_offset", 1)},
            {{"y", kF32, {3, 3}}},
            {"Reshape", "Range", "Mul", "Reshape", "Add", "Range", "Mul", "Reshape", "Add",
             "Gather"}));
  add(Unary("pixel_shuffle", {"x", kF32, {1, 8, 3, 3}}, "pixel_shuffle.default",
            {IntArg("upscale_factor", 2)}, {{"y", kF32, {1, 2, 6, 6}}},
            {"Reshape", "Transpose", "Reshape"}));
  add(Unary("pixel_unshuffle", {"x", kF32, {1, 2, 6, 6}}, "pixel_unshuffle.default",
            {IntArg("downscale_factor", 2)}, {{"y", kF32, {1, 8, 3, 3}}},
            {"Reshape", "Transpose", "Reshape"}));
  add(Unary("pixel_shuffle_unbatched", {"x", kF32, {4, 2, 2}}, "pixel_shuffle.default",
            {IntArg("upscale_factor", 2)}, {{"y", kF32, {1, 4, 4}}},
            {"Reshape", "Transpose", "Reshape"}));
  add(Unary("diagonal", {"x", kF32, {3, 4}}, "diagonal.default", {IntArg("offset", 1)},
            {{"y", kF32, {3}}}, {"Reshape", "Gather"}));
  add(Unary("diagonal_moved", {"x", kF32, {3, 2, 4}}, "diagonal.default",
            {IntArg("offset", -1), IntArg("dim1", 0), IntArg("dim2", 2)}, {{"y", kF32, {2, 2}}},
            {"Transpose", "Reshape", "Gather"}));
  add(Unary("diagonal_batched", {"x", kF32, {2, 3, 3}}, "diagonal.default",
            {IntArg("dim1", -2), IntArg("dim2", -1)}, {{"y", kF32, {2, 3}}},
            {"Reshape", "Gather"}));
  add(Unary("unfold", {"x", kF32, {2, 10}}, "unfold.default",
            {IntArg("dimension", 1), IntArg("size", 4), IntArg("step", 3)},
            {{"y", kF32, {2, 3, 4}}},
            {"Range", "Mul", "Unsqueeze", "Range", "Unsqueeze", "Add", "Gather"}));

  // symbolic sizes
  add(Symbolic(Unary("reshape_symbolic", {"x", kF32, {2, 4}, {"s0", ""}}, "reshape.default",
                     {IntsArg("shape", {-1, 2, 2})}, {{"y", kF32, {2, 2, 2}, {"s0", "", ""}}},
                     {"Reshape"})));
  {
    ProgramBuilder b;
    b.SymInput("x", kF32, {"s0", "4"});
    b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
    b.Node(Aten("view.default"), {TensorArg("self", "x"), SymIntsArg("size", {"n", "2", "2"})},
           {{"y", kF32, {2, 2, 2}, {"s0", "", ""}}});
    b.Output("y");
    add(Case{"view_sym_size", b, {}, true});
  }
  add(Symbolic(Unary("flatten_symbolic", {"x", kF32, {2, 3, 4}, {"s0", "", ""}},
                     "flatten.using_ints", {IntArg("start_dim", 1)},
                     {{"y", kF32, {2, 12}, {"s0", ""}}}, {"Shape", "Concat", "Reshape"})));
  add(Symbolic(Unary("expand_keep_symbolic", {"x", kF32, {2, 1}, {"s0", ""}}, "expand.default",
                     {IntsArg("size", {-1, 4})}, {{"y", kF32, {2, 4}, {"s0", ""}}},
                     {"Abs", "Expand"})));
  {
    ProgramBuilder b;
    b.SymInput("x", kF32, {"s0", "3"});
    b.ListNode(Aten("split.Tensor"), {TensorArg("self", "x"), IntArg("split_size", 2)},
               {{"a", kF32, {2, 3}}, {"b", kF32, {2, 3}, {"s1", ""}}});
    b.Output("a").Output("b");
    add(Case{"split_symbolic", b, {}, true});
  }
  {
    ProgramBuilder b;
    b.SymInput("x", kF32, {"s0", "8"});
    b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
    b.Node(Aten("slice.Tensor"),
           {TensorArg("self", "x"), IntArg("dim", 0), IntArg("start", 1), SymIntArg("end", "n")},
           {{"y", kF32, {1, 8}, {"s1", ""}}});
    b.Output("y");
    add(Case{"slice_symbolic_end", b, {}, true});
  }
  add(Symbolic(Unary("roll_symbolic", {"x", kF32, {2, 5}, {"s0", ""}}, "roll.default",
                     {IntsArg("shifts", {3}), IntsArg("dims", {0})},
                     {{"y", kF32, {2, 5}, {"s0", ""}}},
                     {"Shape", "Mod", "Sub", "Slice", "Slice", "Concat"})));
  return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ShapeOpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(ShapeOpsTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  ConvertAndExpect(c.program.Build(), c.ops,
                   {20, {/*static_dims_may_be_unknown=*/c.symbolic}, /*empty_ops_unchecked=*/true});
}

INSTANTIATE_TEST_SUITE_P(Shape, ShapeOpsTest, ::testing::ValuesIn(Cases()), CaseName());

// Unsupported argument combinations name what is unsupported.
TEST(ShapeOpsErrors, AsStridedReadsOutsideInput) {
  Case c = Unary("as_strided", {"x", kF32, {4, 4}}, "as_strided.default",
                 {IntsArg("size", {2, 2}), IntsArg("stride", {8, 9}), IntArg("storage_offset", 1)},
                 {{"y", kF32, {2, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "reads outside the 16-element input"));
}

TEST(ShapeOpsErrors, AsStridedOverflowingStride) {
  Case c = Unary("as_strided", {"x", kF32, {4, 4}}, "as_strided.default",
                 {IntsArg("size", {3, 2}), IntsArg("stride", {INT64_MAX, 1})},
                 {{"y", kF32, {3, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "reads outside"));
}

TEST(ShapeOpsErrors, AsStridedOfStridedInput) {
  Case c = Unary("as_strided", {"x", kF32, {4, 4}}, "as_strided.default",
                 {IntsArg("size", {2, 2}), IntsArg("stride", {1, 2})}, {{"y", kF32, {2, 2}}}, {});
  pt2::ExportedProgram p = c.program.Build();
  p.graph.tensor_values["x"].strides[0].value = 1;  // a transposed view
  p.graph.tensor_values["x"].strides[1].value = 4;
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p), absl::StatusCode::kUnimplemented,
                        "strided or dynamic-shape input"));
}

TEST(ShapeOpsErrors, AsStridedSizeStrideMismatch) {
  Case c = Unary("as_strided", {"x", kF32, {4, 4}}, "as_strided.default",
                 {IntsArg("size", {2, 2}), IntsArg("stride", {1})}, {{"y", kF32, {2, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                        "size and stride differ in length"));
}

TEST(ShapeOpsErrors, DiagonalSymbolic) {
  Case c = Unary("diagonal", {"x", kF32, {2, 2}, {"s0", "s0"}}, "diagonal.default", {},
                 {{"y", kF32, {2}, {"s0"}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "diagonal over symbolic"));
}

// A 0-d tensor unfolds as one element: (size,) for size 0 or 1.
TEST(ShapeOps, UnfoldZeroDim) {
  for (int64_t size : {0, 1}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {}}}, "unfold.default",
                       {TensorArg("self", "x"), IntArg("dimension", 0), IntArg("size", size), IntArg("step", 1)},
                       {{"y", kF32, {size}}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

std::vector<ErrorCase> ErrorCases() {
  const TensorSpec x{"x", kF32, {2, 10}}, img{"x", kF32, {1, 8, 4, 4}};
  auto unfold = [&](int64_t dimension, int64_t size, int64_t step, TensorSpec in) {
    return Unary("u", in, "unfold.default",
                 {IntArg("dimension", dimension), IntArg("size", size), IntArg("step", step)},
                 {{"y", kF32, {2, 1, 1}}}, {})
        .program;
  };
  auto shuffle = [&](std::string target, std::string factor_arg, int64_t r, TensorSpec in) {
    return Unary("p", in, target, {IntArg(factor_arg, r)}, {{"y", kF32, {1, 2, 8, 8}}}, {})
        .program;
  };
  return {
      {"unfold_dimension_out_of_range", unfold(2, 2, 1, x), absl::StatusCode::kInvalidArgument,
       "dimension: dimension 2 is out of range"},
      {"unfold_size_exceeds_dim", unfold(1, 11, 1, x), absl::StatusCode::kInvalidArgument,
       "unfold size 11 exceeds the dimension's size 10"},
      {"unfold_step_zero", unfold(1, 2, 0, x), absl::StatusCode::kInvalidArgument,
       "step > 0"},
      {"unfold_0d_size_2", unfold(0, 2, 1, {"x", kF32, {}}), absl::StatusCode::kInvalidArgument,
       "needs size 0 or 1"},
      {"unfold_symbolic", unfold(1, 2, 1, {"x", kF32, {2, 10}, {"", "s0"}}),
       absl::StatusCode::kUnimplemented, "symbolic dimension"},
      {"pixel_shuffle_rank_5", shuffle("pixel_shuffle.default", "upscale_factor", 2,
                                       {"x", kF32, {1, 1, 8, 4, 4}}),
       absl::StatusCode::kUnimplemented, "rank-5"},
      {"pixel_shuffle_factor_zero", shuffle("pixel_shuffle.default", "upscale_factor", 0, img),
       absl::StatusCode::kInvalidArgument, "factor must be in [1, 2^31], got 0"},
      {"pixel_unshuffle_factor_huge",
       shuffle("pixel_unshuffle.default", "downscale_factor", int64_t{1} << 40, img),
       absl::StatusCode::kInvalidArgument, "factor must be in [1, 2^31]"},
  };
}

using ShapeOpsRejectedTest = ErrorCaseTest;

TEST_P(ShapeOpsRejectedTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Cases, ShapeOpsRejectedTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

TEST(ShapeOpsErrors, ReshapeSymbolicZeroAndInfer) {
  ProgramBuilder b;
  b.SymInput("x", kF32, {"s0", "4"});
  b.SymNode(Aten("sym_size.int"), {TensorArg("self", "x"), IntArg("dim", 0)}, "n");
  b.Node(Aten("view.default"), {TensorArg("self", "x"), SymIntsArg("size", {"n", "0", "-1"})},
         {{"y", kF32, {2, 0, 4}, {"s0", "", ""}}});
  b.Output("y");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(b.Build()), absl::StatusCode::kUnimplemented,
                        "both a 0 size and -1"));
}

// ---- Error paths: the message names the argument and the cause ----

absl::Status ConvertStatus(const Case& c) { return ConvertAndCheck(c.program.Build()).status(); }

TEST(ShapeOpsErrors, PermuteDimsOfWrongLength) {
  Case c = Unary("permute", {"x", kF32, {2, 3}}, "permute.default", {IntsArg("dims", {0})},
                 {{"y", kF32, {2, 3}}}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "permute dims [0] do not match rank 2"));
}

TEST(ShapeOpsErrors, MTOfVector) {
  Case c = Unary("mT", {"x", kF32, {3}}, "mT.default", {}, {{"y", kF32, {3}}}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "mT needs rank >= 2, got 1"));
}

TEST(ShapeOpsErrors, MovedimLengthMismatch) {
  Case c = Unary("movedim", {"x", kF32, {2, 3, 4}}, "movedim.intlist",
                 {IntsArg("source", {0, 1}), IntsArg("destination", {2})}, {{"y", kF32, {3, 4, 2}}},
                 {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "movedim source and destination differ in length"));
}

TEST(ShapeOpsErrors, CatAndStackOfNoTensors) {
  for (const char* op : {"cat.default", "stack.default"}) {
    ProgramBuilder b;
    b.Input("x", kF32, {2});
    b.Node(Aten(op), {TensorsArg("tensors", {}), IntArg("dim", 0)}, {{"y", kF32, {0}}});
    b.Output("y");
    EXPECT_TRUE(HasStatus(ConvertAndCheck(b.Build()), absl::StatusCode::kInvalidArgument,
                          "of an empty tensor list"))
        << op;
  }
}

TEST(SlicingOpsErrors, SplitSizeNotPositive) {
  Case c = Listed("split", {"x", kF32, {4, 2}}, "split.Tensor",
                  {IntArg("split_size", 0), IntArg("dim", 0)}, {{"a", kF32, {4, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "split_size must be positive, got 0"));
}

TEST(SlicingOpsErrors, SplitPieceCountDisagreesWithProgram) {
  Case c = Listed("split", {"x", kF32, {4, 2}}, "split.Tensor",
                  {IntArg("split_size", 2), IntArg("dim", 0)},
                  {{"a", kF32, {2, 2}}, {"b", kF32, {2, 2}}, {"c", kF32, {0, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "splitting size 4 by 2 gives 2 pieces, the program expects 3"));
}

TEST(SlicingOpsErrors, SplitIntoNoOutputs) {
  Case c = Listed("split", {"x", kF32, {4, 2}}, "split.Tensor",
                  {IntArg("split_size", 2), IntArg("dim", 0)}, {}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "split produces no tensors"));
}

TEST(SlicingOpsErrors, ChunksNotPositive) {
  Case c = Listed("chunk", {"x", kF32, {4, 2}}, "chunk.default",
                  {IntArg("chunks", -1), IntArg("dim", 0)}, {{"a", kF32, {4, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "chunks must be positive, got -1"));
}

TEST(SlicingOpsErrors, SliceStepNotPositive) {
  Case c = Unary("slice", {"x", kF32, {4, 2}}, "slice.Tensor",
                 {IntArg("dim", 0), IntArg("start", 0), IntArg("end", 4), IntArg("step", 0)},
                 {{"y", kF32, {4, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "slice step must be positive, got 0"));
}

TEST(SlicingOpsErrors, RollShiftsAndDims) {
  Case flat = Unary("roll", {"x", kF32, {4, 2}}, "roll.default",
                    {IntsArg("shifts", {1, 2}), IntsArg("dims", {})}, {{"y", kF32, {4, 2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertStatus(flat), absl::StatusCode::kInvalidArgument,
                        "roll without dims takes exactly one shift"));
  Case mismatch = Unary("roll", {"x", kF32, {4, 2}}, "roll.default",
                        {IntsArg("shifts", {1, 2}), IntsArg("dims", {0})}, {{"y", kF32, {4, 2}}},
                        {});
  EXPECT_TRUE(HasStatus(ConvertStatus(mismatch), absl::StatusCode::kInvalidArgument,
                        "roll shifts and dims differ in length"));
}

TEST(SlicingOpsErrors, DiagonalSameDims) {
  Case c = Unary("diagonal", {"x", kF32, {3, 3}}, "diagonal.default",
                 {IntArg("offset", 0), IntArg("dim1", 1), IntArg("dim2", -1)}, {{"y", kF32, {3}}},
                 {});
  EXPECT_TRUE(HasStatus(ConvertStatus(c), absl::StatusCode::kInvalidArgument,
                        "diagonal needs two distinct dimensions"));
}

}  // namespace
}  // namespace pt2onnx::testing
