// Tests for ops/indexing.cc: each case is a small program; it must convert,
// pass the ONNX checker and shape inference, infer the FX output shapes and
// dtypes, and (where given) emit the expected op types.
#include <cstdint>
#include <optional>
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

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types (Constants skipped); empty: unchecked
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// A `Tensor?[]` argument; "" entries are None.
pt2::NamedArgument OptionalTensorsArg(std::string arg, std::vector<std::string> values) {
  pt2::NamedArgument named;
  named.name = std::move(arg);
  named.arg.kind = pt2::Argument::Kind::kOptionalTensors;
  for (std::string& v : values) {
    named.arg.optional_names.push_back(v.empty() ? std::nullopt
                                                 : std::optional<std::string>(std::move(v)));
  }
  return named;
}

// Inputs -> one node -> its outputs.
Case OneNode(std::string name, std::vector<TensorSpec> inputs, std::string target,
             std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
             std::vector<std::string> ops) {
  return Case{std::move(name), OneNodeProgram(inputs, target, std::move(args), std::move(outs)),
              std::move(ops)};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  TensorSpec x{"x", kF32, {4, 5, 6}};

  // gathers
  add(OneNode("embedding", {{"w", kF32, {10, 4}}, {"i", kI64, {2, 3}}}, "embedding.default",
              {TensorArg("weight", "w"), TensorArg("indices", "i")}, {{"y", kF32, {2, 3, 4}}},
              {"Gather"}));
  add(OneNode("gather", {{"x", kF32, {3, 4}}, {"i", kI64, {3, 2}}}, "gather.default",
              {TensorArg("self", "x"), IntArg("dim", 1), TensorArg("index", "i")},
              {{"y", kF32, {3, 2}}}, {"GatherElements"}));
  add(OneNode("index_select", {{"x", kF32, {5, 4}}, {"i", kI64, {3}}}, "index_select.default",
              {TensorArg("self", "x"), IntArg("dim", -2), TensorArg("index", "i")},
              {{"y", kF32, {3, 4}}}, {"Gather"}));
  add(OneNode("take_along_dim", {{"x", kF32, {3, 4}}, {"i", kI64, {3, 2}}},
              "take_along_dim.default",
              {TensorArg("self", "x"), TensorArg("indices", "i"), IntArg("dim", 1)},
              {{"y", kF32, {3, 2}}}, {"GatherElements"}));
  add(OneNode("take_along_dim_broadcast", {{"x", kF32, {3, 4}}, {"i", kI64, {1, 2}}},
              "take_along_dim.default",
              {TensorArg("self", "x"), TensorArg("indices", "i"), IntArg("dim", 1)},
              {{"y", kF32, {3, 2}}}, {}));
  add(OneNode("take_along_dim_flat", {{"x", kF32, {3, 4}}, {"i", kI64, {5}}},
              "take_along_dim.default", {TensorArg("self", "x"), TensorArg("indices", "i")},
              {{"y", kF32, {5}}}, {"Reshape", "Reshape", "GatherElements"}));

  // advanced indexing
  add(OneNode("index_leading", {x, {"i", kI64, {3}}}, "index.Tensor",
              {TensorArg("self", "x"), TensorsArg("indices", {"i"})}, {{"y", kF32, {3, 5, 6}}},
              {"Gather"}));
  add(OneNode("index_second", {x, {"i", kI64, {2, 2}}}, "index.Tensor",
              {TensorArg("self", "x"), OptionalTensorsArg("indices", {"", "i"})},
              {{"y", kF32, {4, 2, 2, 6}}}, {"Gather"}));
  add(OneNode("index_adjacent_pair", {x, {"i", kI64, {3}}, {"j", kI64, {3}}}, "index.Tensor",
              {TensorArg("self", "x"), OptionalTensorsArg("indices", {"", "i", "j"})},
              {{"y", kF32, {4, 3}}},
              {"Transpose", "Unsqueeze", "Unsqueeze", "Concat", "GatherND", "Transpose"}));
  // Static index shapes: only the ones that differ from the broadcast expand.
  add(OneNode("index_leading_pair_broadcast", {x, {"i", kI64, {2, 1}}, {"j", kI64, {3}}},
              "index.Tensor", {TensorArg("self", "x"), TensorsArg("indices", {"i", "j"})},
              {{"y", kF32, {2, 3, 6}}},
              {"Expand", "Expand", "Unsqueeze", "Unsqueeze", "Concat", "GatherND"}));
  add(OneNode("index_split_pair", {x, {"i", kI64, {3}}, {"j", kI64, {3}}}, "index.Tensor",
              {TensorArg("self", "x"), OptionalTensorsArg("indices", {"i", "", "j"})},
              {{"y", kF32, {3, 5}}}, {}));

  // index_put
  add(OneNode("index_put", {{"x", kF32, {5, 4}}, {"i", kI64, {2}}, {"v", kF32, {2, 4}}},
              "index_put.default",
              {TensorArg("self", "x"), TensorsArg("indices", {"i"}), TensorArg("values", "v")},
              {{"y", kF32, {5, 4}}}, {}));
  add(OneNode("index_put_accumulate_scalar", {{"x", kF32, {5, 4}}, {"i", kI64, {3}}, {"v", kF32, {}}},
              "index_put.default",
              {TensorArg("self", "x"), TensorsArg("indices", {"i"}), TensorArg("values", "v"),
               BoolArg("accumulate", true)},
              {{"y", kF32, {5, 4}}}, {}));
  add(OneNode("index_put_second_axis", {{"x", kF32, {3, 5}}, {"i", kI64, {2}}, {"v", kF32, {3, 2}}},
              "index_put.default",
              {TensorArg("self", "x"), OptionalTensorsArg("indices", {"", "i"}),
               TensorArg("values", "v")},
              {{"y", kF32, {3, 5}}}, {}));
  // In place, as torch.export keeps `y[i] = v` on a clone.
  add(OneNode("index_put_inplace", {{"x", kF32, {4, 3}}, {"i", kI64, {2}}, {"v", kF32, {2, 3}}},
              "index_put_.default",
              {TensorArg("self", "x"), TensorsArg("indices", {"i"}), TensorArg("values", "v")},
              {{"y", kF32, {4, 3}}}, {}));

  // scatters
  auto scatter = [&](std::string name, std::string target, std::vector<int64_t> src_shape,
                     std::vector<pt2::NamedArgument> extra, std::vector<std::string> ops) {
    std::vector<pt2::NamedArgument> args = {TensorArg("self", "x"), IntArg("dim", 1),
                                            TensorArg("index", "i")};
    std::vector<TensorSpec> inputs = {{"x", kF32, {3, 4}}, {"i", kI64, {3, 2}}};
    if (!src_shape.empty()) {
      inputs.push_back({"s", kF32, src_shape});
      args.push_back(TensorArg("src", "s"));
    }
    for (auto& a : extra) args.push_back(a);
    add(OneNode(std::move(name), inputs, target, args, {{"y", kF32, {3, 4}}}, std::move(ops)));
  };
  scatter("scatter_src", "scatter.src", {3, 2}, {}, {"ScatterElements"});
  scatter("scatter_src_larger", "scatter.src", {3, 4}, {}, {"Shape", "Slice", "ScatterElements"});
  scatter("scatter_value", "scatter.value", {}, {FloatArg("value", 1.5)},
          {"Shape", "Expand", "ScatterElements"});
  scatter("scatter_reduce_multiply", "scatter.reduce", {3, 2},
          {StringArg("reduce", "multiply")}, {"ScatterElements"});
  scatter("scatter_add", "scatter_add.default", {3, 2}, {}, {"ScatterElements"});
  scatter("scatter_reduce_amax", "scatter_reduce.two", {3, 2}, {StringArg("reduce", "amax")},
          {"ScatterElements"});
  scatter("scatter_reduce_sum_exclude_self", "scatter_reduce.two", {3, 2},
          {StringArg("reduce", "sum"), BoolArg("include_self", false)},
          {"Shape", "Expand", "ScatterElements", "ScatterElements"});

  // index_add / index_copy / index_fill
  add(OneNode("index_add", {{"x", kF32, {5, 3}}, {"i", kI64, {2}}, {"s", kF32, {2, 3}}},
              "index_add.default",
              {TensorArg("self", "x"), IntArg("dim", 0), TensorArg("index", "i"),
               TensorArg("source", "s"), FloatArg("alpha", 2)},
              {{"y", kF32, {5, 3}}}, {"Reshape", "Mul", "ScatterND"}));
  add(OneNode("index_copy_dim1", {{"x", kF32, {3, 5}}, {"i", kI64, {2}}, {"s", kF32, {3, 2}}},
              "index_copy.default",
              {TensorArg("self", "x"), IntArg("dim", 1), TensorArg("index", "i"),
               TensorArg("source", "s")},
              {{"y", kF32, {3, 5}}}, {"Transpose", "Reshape", "Transpose", "ScatterND", "Transpose"}));
  add(OneNode("index_fill_inplace", {{"x", kF32, {4, 3}}, {"i", kI64, {2}}},
              "index_fill_.int_Scalar",
              {TensorArg("self", "x"), IntArg("dim", 1), TensorArg("index", "i"),
               FloatArg("value", 0.5)},
              {{"y", kF32, {4, 3}}}, {}));

  // slice_scatter / select_scatter
  add(OneNode("slice_scatter", {{"x", kF32, {8, 4}}, {"s", kF32, {2, 4}}},
              "slice_scatter.default",
              {TensorArg("self", "x"), TensorArg("src", "s"), IntArg("start", 2),
               IntArg("end", 6), IntArg("step", 2)},
              {{"y", kF32, {8, 4}}}, {}));
  add(OneNode("slice_scatter_dim1_open", {{"x", kF32, {2, 6}}, {"s", kF32, {2, 3}}},
              "slice_scatter.default",
              {TensorArg("self", "x"), TensorArg("src", "s"), IntArg("dim", 1),
               IntArg("start", -3), NoneArg("end")},
              {{"y", kF32, {2, 6}}}, {}));
  add(OneNode("select_scatter", {{"x", kF32, {3, 4}}, {"s", kF32, {4}}},
              "select_scatter.default",
              {TensorArg("self", "x"), TensorArg("src", "s"), IntArg("dim", 0),
               IntArg("index", -1)},
              {{"y", kF32, {3, 4}}}, {"Unsqueeze", "Reshape", "Shape", "Expand", "ScatterElements"}));
  return cases;
}

class IndexingOpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(IndexingOpsTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  ConvertAndExpect(c.program.Build(), c.ops, {20, {}, /*empty_ops_unchecked=*/true});
}

INSTANTIATE_TEST_SUITE_P(Indexing, IndexingOpsTest, ::testing::ValuesIn(Cases()), CaseName());

TEST(IndexingOpsErrors, ScatterReduceUnknownReduction) {
  Case c = OneNode("scatter_reduce",
                   {{"x", kF32, {3, 4}}, {"i", kI64, {3, 2}}, {"s", kF32, {3, 2}}},
                   "scatter_reduce.two",
                   {TensorArg("self", "x"), IntArg("dim", 1), TensorArg("index", "i"),
                    TensorArg("src", "s"), StringArg("reduce", "median")},
                   {{"y", kF32, {3, 4}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "reduce='median'; sum, prod, mean, amax and amin are supported"));
}

TEST(IndexingOpsErrors, IndexWithOnlyNone) {
  Case c = OneNode("index", {{"x", kF32, {3, 4}}}, "index.Tensor",
                   {TensorArg("self", "x"), OptionalTensorsArg("indices", {"", ""})},
                   {{"y", kF32, {3, 4}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "only None"));
}

TEST(IndexingOpsErrors, TakeAlongDimRankMismatch) {
  Case c = OneNode("take_along_dim", {{"x", kF32, {3, 4}}, {"i", kI64, {4}}}, "take_along_dim.default",
                   {TensorArg("self", "x"), TensorArg("indices", "i"), IntArg("dim", 1)},
                   {{"y", kF32, {3, 4}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "take_along_dim with indices of a different rank"));
}

TEST(IndexingOpsErrors, TooManyIndices) {
  Case c = OneNode("index", {{"x", kF32, {3}}, {"i", kI64, {2}}, {"j", kI64, {2}}}, "index.Tensor",
                   {TensorArg("self", "x"), OptionalTensorsArg("indices", {"i", "j"})},
                   {{"y", kF32, {2}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                        "too many indices (2) for a rank-1 tensor"));
}

TEST(IndexingOpsErrors, ScatterIntoZeroDim) {
  Case c = OneNode("scatter", {{"x", kF32, {}}, {"i", kI64, {}}, {"s", kF32, {}}}, "scatter.src",
                   {TensorArg("self", "x"), IntArg("dim", 0), TensorArg("index", "i"),
                    TensorArg("src", "s")},
                   {{"y", kF32, {}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "scatter into a 0-d tensor"));
}

TEST(IndexingOpsErrors, ScatterLegacyReduceName) {
  Case c = OneNode("scatter", {{"x", kF32, {3, 4}}, {"i", kI64, {3, 2}}, {"s", kF32, {3, 2}}},
                   "scatter.reduce",
                   {TensorArg("self", "x"), IntArg("dim", 1), TensorArg("index", "i"),
                    TensorArg("src", "s"), StringArg("reduce", "max")},
                   {{"y", kF32, {3, 4}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "scatter reduce='max'; use add or multiply"));
}

TEST(IndexingOpsErrors, ScatterReduceMeanOfBools) {
  Case c = OneNode("scatter_reduce",
                   {{"x", kBool, {3, 4}}, {"i", kI64, {3, 2}}, {"s", kBool, {3, 2}}},
                   "scatter_reduce.two",
                   {TensorArg("self", "x"), IntArg("dim", 1), TensorArg("index", "i"),
                    TensorArg("src", "s"), StringArg("reduce", "mean")},
                   {{"y", kBool, {3, 4}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "scatter_reduce mean of bool tensors"));
}

// A 0-d self is one row: index_add/copy/fill convert and keep the 0-d shape.
TEST(IndexingOps, IndexAddOnZeroDim) {
  for (const char* overload : {"index_add.default", "index_copy.default"}) {
    Case c = OneNode("index_add", {{"x", kF32, {}}, {"i", kI64, {1}}, {"s", kF32, {}}}, overload,
                     {TensorArg("self", "x"), IntArg("dim", -1), TensorArg("index", "i"),
                      TensorArg("source", "s")},
                     {{"y", kF32, {}}}, {});
    pt2::ExportedProgram program = c.program.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
  }
}

}  // namespace
}  // namespace pt2onnx::testing
