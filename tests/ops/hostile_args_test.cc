// Hostile dim and size arguments across families: every out-of-range dim is
// an InvalidArgument naming the argument (never an out-of-bounds access, which
// ASan would report), and integer arguments whose sums or products overflow
// int64 are refused instead of wrapping.
#include <cmath>
#include <cstdint>
#include <limits>
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

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

struct DimCase {
  std::string name;
  std::string target;
  std::string dim_arg;
  bool is_list = false;
  std::vector<pt2::NamedArgument> other_args;
  std::vector<TensorSpec> extra_inputs;  // named in other_args
  bool list_output = false;              // Tensor[] output (split family)
  int64_t extra_rank = 0;                // 1 when the op adds an axis (unsqueeze, stack)
};

std::ostream& operator<<(std::ostream& os, const DimCase& c) { return os << c.name; }

// The x [2, 3, 4] program with `dim_arg` set to `dim`.
pt2::ExportedProgram Program(const DimCase& c, int64_t dim) {
  ProgramBuilder b;
  b.Input("x", kF32, {2, 3, 4});
  for (const TensorSpec& t : c.extra_inputs) b.Input(t.name, t.dtype, t.shape);
  std::vector<pt2::NamedArgument> args;
  if (c.target == "cat.default" || c.target == "stack.default") {
    args.push_back(TensorsArg("tensors", {"x", "x"}));
  } else {
    args.push_back(TensorArg("self", "x"));
  }
  args.push_back(c.is_list ? IntsArg(c.dim_arg, {dim}) : IntArg(c.dim_arg, dim));
  for (const pt2::NamedArgument& a : c.other_args) args.push_back(a);
  std::vector<int64_t> out_shape = {2, 3, 4};
  if (c.extra_rank) out_shape.push_back(1);
  if (c.list_output) {
    b.ListNode(Aten(c.target), args, {{"y0", kF32, out_shape}, {"y1", kF32, out_shape}});
    b.Output("y0");
    b.Output("y1");
  } else {
    b.Node(Aten(c.target), args, {{"y", kF32, out_shape}});
    b.Output("y");
  }
  return b.Build();
}

class HostileDimTest : public ::testing::TestWithParam<DimCase> {};

TEST_P(HostileDimTest, OutOfRangeDimIsInvalidArgument) {
  const DimCase& c = GetParam();
  const int64_t rank = 3 + c.extra_rank;
  for (int64_t dim : {rank, rank + 3, -rank - 1, int64_t{1} << 32, kMax, kMin}) {
    SCOPED_TRACE(dim);
    absl::StatusOr<Converted> got = ConvertAndCheck(Program(c, dim));
    EXPECT_TRUE(HasStatus(got, absl::StatusCode::kInvalidArgument, "out of range"))
        << got.status();
    if (!got.ok()) {
      EXPECT_NE(got.status().message().find(c.dim_arg), std::string::npos);
    }
  }
}

std::vector<DimCase> DimCases() {
  TensorSpec index{"i", DataType::kInt64, {2}};
  return {
      {"transpose", "transpose.int", "dim0", false, {IntArg("dim1", 0)}},
      {"swapaxes", "swapaxes.default", "axis1", false, {IntArg("axis0", 0)}},
      {"flatten", "flatten.using_ints", "end_dim", false, {IntArg("start_dim", 0)}},
      {"unflatten", "unflatten.int", "dim", false, {IntsArg("sizes", {1, -1})}},
      {"movedim", "movedim.int", "source", false, {IntArg("destination", 0)}},
      {"unsqueeze", "unsqueeze.default", "dim", false, {}, {}, false, 1},
      {"squeeze_dim", "squeeze.dim", "dim"},
      {"squeeze_dims", "squeeze.dims", "dim", true},
      {"cat", "cat.default", "dim"},
      {"stack", "stack.default", "dim", false, {}, {}, false, 1},
      {"split", "split.Tensor", "dim", false, {IntArg("split_size", 2)}, {}, true},
      {"chunk", "chunk.default", "dim", false, {IntArg("chunks", 2)}, {}, true},
      {"unbind", "unbind.int", "dim", false, {}, {}, true},
      {"slice", "slice.Tensor", "dim", false, {IntArg("start", 0), IntArg("end", 1)}},
      {"select", "select.int", "dim", false, {IntArg("index", 0)}},
      {"narrow", "narrow.default", "dim", false, {IntArg("start", 0), IntArg("length", 1)}},
      {"flip", "flip.default", "dims", true},
      {"roll", "roll.default", "dims", true, {IntsArg("shifts", {1})}},
      {"diagonal", "diagonal.default", "dim2", false, {IntArg("dim1", 0)}},
      {"unfold", "unfold.default", "dimension", false, {IntArg("size", 1), IntArg("step", 1)}},
      {"gather", "gather.default", "dim", false, {TensorArg("index", "i")}, {index}},
      {"index_select", "index_select.default", "dim", false, {TensorArg("index", "i")}, {index}},
      {"index_fill", "index_fill.int_Scalar", "dim", false,
       {TensorArg("index", "i"), FloatArg("value", 1)}, {index}},
      {"index_copy", "index_copy.default", "dim", false,
       {TensorArg("index", "i"), TensorArg("source", "x")}, {index}},
      {"cumsum", "cumsum.default", "dim"},
      {"sum_dims", "sum.dim_IntList", "dim", true},
      {"var", "var.correction", "dim", true},
      {"max_dim", "max.dim", "dim"},
      {"argmax", "argmax.default", "dim"},
      {"prod_dim", "prod.dim_int", "dim"},
      {"sym_size", "sym_size.int", "dim"},
  };
}

INSTANTIATE_TEST_SUITE_P(Dims, HostileDimTest, ::testing::ValuesIn(DimCases()),
                         [](const ::testing::TestParamInfo<DimCase>& info) {
                           return info.param.name;
                         });

pt2::ExportedProgram Unary(absl::string_view target, std::vector<int64_t> shape,
                           std::vector<pt2::NamedArgument> args, std::vector<int64_t> out_shape) {
  args.insert(args.begin(), TensorArg("self", "x"));
  return OneNodeProgram({{"x", kF32, shape}}, target, std::move(args),
                        {{"y", kF32, std::move(out_shape)}})
      .Build();
}

TEST(HostileDimLists, DuplicateDimsAreRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("permute.default", {2, 3},
                                              {IntsArg("dims", {0, 0})}, {2, 3})),
                        absl::StatusCode::kInvalidArgument, "more than once"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("sum.dim_IntList", {2, 3},
                                              {IntsArg("dim", {1, -1})}, {2})),
                        absl::StatusCode::kInvalidArgument, "more than once"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("permute.default", {2, 3},
                                              {IntsArg("dims", {0, 7})}, {2, 3})),
                        absl::StatusCode::kInvalidArgument, "out of range"));
}

TEST(HostileIntegers, NarrowStartPlusLengthOverflowIsRefused) {
  EXPECT_TRUE(HasStatus(
      ConvertAndCheck(Unary("narrow.default", {4},
                            {IntArg("dim", 0), IntArg("start", kMax), IntArg("length", 2)}, {2})),
      absl::StatusCode::kInvalidArgument, "overflows"));
}

TEST(HostileIntegers, FlattenStartAfterEndIsRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("flatten.using_ints", {2, 3, 4},
                                              {IntArg("start_dim", 2), IntArg("end_dim", 0)},
                                              {24})),
                        absl::StatusCode::kInvalidArgument, "start_dim comes after end_dim"));
}

TEST(HostileIntegers, ChunkOfHugeCountDoesNotOverflow) {
  ProgramBuilder b;
  b.Input("x", kF32, {4});
  b.ListNode(Aten("chunk.default"), {TensorArg("self", "x"), IntArg("chunks", kMax)},
             {{"y0", kF32, {1}}, {"y1", kF32, {1}}, {"y2", kF32, {1}}, {"y3", kF32, {1}}});
  for (const char* y : {"y0", "y1", "y2", "y3"}) b.Output(y);
  EXPECT_TRUE(ConvertAndCheck(b.Build()).ok());
}

TEST(HostileIntegers, PoolPaddingBeyondHalfKernelIsRefused) {
  EXPECT_TRUE(HasStatus(
      ConvertAndCheck(Unary("max_pool2d.default", {1, 1, 4, 4},
                            {IntsArg("kernel_size", {2, 2}), IntsArg("stride", {1, 1}),
                             IntsArg("padding", {kMax, kMax}), BoolArg("ceil_mode", true)},
                            {1, 1, 4, 4})),
      absl::StatusCode::kInvalidArgument, "padding"));
}

// 2^40 windows: the gathered positions are computed by the model (Range),
// never folded into a constant of that size.
TEST(HostileIntegers, UnfoldOfHugeDimensionIsComputedAtRunTime) {
  absl::StatusOr<Converted> got =
      ConvertAndCheck(Unary("unfold.default", {int64_t{1} << 40},
                            {IntArg("dimension", 0), IntArg("size", 2), IntArg("step", 1)},
                            {(int64_t{1} << 40) - 1, 2}));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_NE(FindNode(got->model, "Range"), nullptr);
  for (const ir::Node& node : got->model.graph.nodes) {
    for (const ir::Attribute& a : node.attributes) {
      if (a.name == "value") EXPECT_LE(a.t().numel(), 8) << node.name;
    }
  }
}

// steps = 2^32 is computed by the model (Range), not folded into 16 GiB.
TEST(HostileIntegers, HugeLinspaceIsComputedAtRunTime) {
  ProgramBuilder b;
  b.Node(Aten("linspace.default"),
         {FloatArg("start", 0), FloatArg("end", 1), IntArg("steps", int64_t{1} << 32)},
         {{"y", kF32, {int64_t{1} << 32}}});
  b.Output("y");
  absl::StatusOr<Converted> got = ConvertAndCheck(b.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_NE(FindNode(got->model, "Range"), nullptr);
}

// An einsum equation that disagrees with its operands is refused with torch's
// reason (the browser build has no ONNX shape inference to catch it later).
TEST(HostileEinsum, EquationMustMatchTheOperands) {
  auto einsum = [](std::string equation, std::vector<std::string> tensors) {
    return ConvertAndCheck(OneNodeProgram({{"a", kF32, {3, 4}}, {"b", kF32, {4, 5}}}, "einsum.default",
                                          {StringArg("equation", std::move(equation)),
                                           TensorsArg("tensors", std::move(tensors))},
                                          {{"y", kF32, {3, 5}}})
                               .Build());
  };
  const absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_TRUE(HasStatus(einsum("ij,jk->ik", {}), kInvalid, "at least one tensor"));
  EXPECT_TRUE(HasStatus(einsum("ij,jk->ik", {"a"}), kInvalid, "2 operand term(s) but 'tensors' holds 1"));
  EXPECT_TRUE(HasStatus(einsum("ij->ij", {"a", "b"}), kInvalid, "1 operand term(s)"));
  EXPECT_TRUE(HasStatus(einsum("ijk,jk->ik", {"a", "b"}), kInvalid, "names 3 dims but operand 0 has 2"));
  EXPECT_TRUE(HasStatus(einsum("i,jk->ik", {"a", "b"}), kInvalid, "names 1 dims"));
  EXPECT_TRUE(HasStatus(einsum("i1,jk->ik", {"a", "b"}), kInvalid, "only letters"));
  EXPECT_TRUE(HasStatus(einsum("ij,jk->iz", {"a", "b"}), kInvalid, "'z' is not in any input"));
  EXPECT_TRUE(HasStatus(einsum("ij,jk->ii", {"a", "b"}), kInvalid, "appears twice"));
  EXPECT_TRUE(HasStatus(einsum("ij,jk->...ik", {"a", "b"}), kInvalid, "no input has"));
  EXPECT_TRUE(HasStatus(einsum("ij,jk->ik->k", {"a", "b"}), kInvalid, "only letters"));
  EXPECT_TRUE(einsum("ij,jk->ik", {"a", "b"}).ok());
  EXPECT_TRUE(einsum("...j,jk->...k", {"a", "b"}).ok());
}

// An int bound beyond 2^53 stays exact (no trip through double, whose cast
// back to int64 is undefined behaviour for 2^63 - 1; found by UBSan on the
// dim sweep); a double outside int64 becomes INT64_MIN as on x86. A range
// of 2^63 - 1 elements is refused by the checker before ONNX's shape
// inference overflows on it (found by the sanitized e2e suite).
TEST(HostileIntegers, HugeArangeEndIsExact) {
  ProgramBuilder b;
  b.Node(Aten("arange.start"), {IntArg("start", kMax - 5), IntArg("end", kMax)}, {{"y", kI64, {5}}});
  b.Output("y");
  absl::StatusOr<Converted> got = ConvertAndCheck(b.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  bool found = false;
  for (const ir::Node& node : got->model.graph.nodes) {
    for (const ir::Attribute& a : node.attributes) {
      if (a.name == "value" && a.t().dtype() == kI64 && a.t().numel() == 1 && a.t().GetInt64(0) == kMax) found = true;
    }
  }
  EXPECT_TRUE(found);
  ProgramBuilder huge;
  huge.Node(Aten("arange.default"), {IntArg("end", kMax)}, {{"y", kI64, {kMax}}});
  huge.Output("y");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(huge.Build()), absl::StatusCode::kInvalidArgument,
                        "more than 2^62 elements"));
  EXPECT_EQ(ir::Tensor::Scalar(kI64, 1e19).GetInt64(0), kMin);
  EXPECT_EQ(ir::Tensor::Scalar(kI64, std::nan("")).GetInt64(0), kMin);
  EXPECT_EQ(ir::Tensor::Scalar(kI64, -3.7).GetInt64(0), -3);
}

}  // namespace
}  // namespace pt2onnx::testing
