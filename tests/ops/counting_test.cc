// Tests for ops/counting.cc: repeat_interleave (int and tensor counts,
// dim=None, symbolic sizes), histc (given and data ranges) and bincount,
// and their argument errors. Numerics: tests/fixtures/ops/repeat_interleave_*,
// histc, histc_moe, bincount.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

int Count(const ir::Model& model, const std::string& op) {
  int n = 0;
  for (const std::string& t : OpTypes(model)) n += t == op;
  return n;
}

// An int count repeats each slice by Tile + Reshape, with static shapes inferred.
TEST(Counting, IntRepeatsTileAndMerge) {
  std::vector<pt2::ExportedProgram> programs = {
      OneNodeProgram({{"x", kF32, {3, 4, 2}}}, "repeat_interleave.self_int",
                     {TensorArg("self", "x"), IntArg("repeats", 2), IntArg("dim", 1)}, {{"y", kF32, {3, 8, 2}}})
          .Build(),
      OneNodeProgram({{"x", kI64, {2, 3}}}, "repeat_interleave.self_int",
                     {TensorArg("self", "x"), IntArg("repeats", 3)}, {{"y", kI64, {18}}})
          .Build(),
  };
  for (const pt2::ExportedProgram& program : programs) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {true}));
    EXPECT_EQ(Count(got->model, "Tile"), 1);
    EXPECT_EQ(Count(got->model, "ScatterElements"), 0);
  }
}

// histc with a given range bins without reducing the data.
TEST(Counting, HistcGivenRangeNeedsNoExtrema) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {4, 5}}}, "histc.default",
                     {TensorArg("self", "x"), IntArg("bins", 6), FloatArg("min", -1), FloatArg("max", 1)},
                     {{"y", kF32, {6}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {true}));
  EXPECT_EQ(Count(got->model, "ReduceMin"), 0);
  EXPECT_EQ(Count(got->model, "ScatterElements"), 1);
}

// Sizes that depend on values: only the rank and dtype are known.
TEST(Counting, DataDependentSizesConvert) {
  OutputCheckOptions dynamic{true};
  std::vector<pt2::ExportedProgram> programs = {
      OneNodeProgram({{"x", kF32, {4, 3}}, {"r", kI64, {4}}}, "repeat_interleave.self_Tensor",
                     {TensorArg("self", "x"), TensorArg("repeats", "r"), IntArg("dim", 0)},
                     {{"y", kF32, {7, 3}, {"u0", ""}}})
          .Build(),
      OneNodeProgram({{"x", kF32, {4, 3}}, {"r", kI64, {1}}}, "repeat_interleave.self_Tensor",
                     {TensorArg("self", "x"), TensorArg("repeats", "r"), IntArg("dim", 1)},
                     {{"y", kF32, {4, 6}, {"", "u0"}}})
          .Build(),
      OneNodeProgram({{"r", kI32, {4}}}, "repeat_interleave.Tensor", {TensorArg("repeats", "r")},
                     {{"y", kI32, {7}, {"u0"}}})
          .Build(),
      OneNodeProgram({{"x", kI64, {9}}, {"w", kF32, {9}}}, "bincount.default",
                     {TensorArg("self", "x"), TensorArg("weights", "w"), IntArg("minlength", 3)},
                     {{"y", kF32, {5}, {"u0"}}})
          .Build(),
      OneNodeProgram({{"x", kF64, {7}}}, "histc.default", {TensorArg("self", "x"), IntArg("bins", 4)},
                     {{"y", kF64, {4}}})
          .Build(),
  };
  for (const pt2::ExportedProgram& program : programs) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, dynamic));
    int scatters = 0;
    for (const std::string& op : OpTypes(got->model)) scatters += op == "ScatterElements";
    EXPECT_EQ(scatters, 1);  // one counting scatter each
  }
}

TEST(Counting, Errors) {
  std::vector<ErrorCase> cases = {
      {"histc_min_above_max",
       OneNodeProgram({{"x", kF32, {4}}}, "histc.default",
                      {TensorArg("self", "x"), IntArg("bins", 3), FloatArg("min", 2), FloatArg("max", 1)},
                      {{"y", kF32, {3}}}),
       absl::StatusCode::kInvalidArgument, "max must be larger than min"},
      {"histc_no_bins",
       OneNodeProgram({{"x", kF32, {4}}}, "histc.default", {TensorArg("self", "x"), IntArg("bins", 0)},
                      {{"y", kF32, {0}}}),
       absl::StatusCode::kInvalidArgument, "bins must be in"},
      {"bincount_2d",
       OneNodeProgram({{"x", kI64, {2, 2}}}, "bincount.default", {TensorArg("self", "x")}, {{"y", kI64, {3}}}),
       absl::StatusCode::kInvalidArgument, "1-d"},
      {"bincount_float",
       OneNodeProgram({{"x", kF32, {3}}}, "bincount.default", {TensorArg("self", "x")}, {{"y", kI64, {3}}}),
       absl::StatusCode::kInvalidArgument, "integer input"},
      {"repeats_2d",
       OneNodeProgram({{"x", kF32, {2}}, {"r", kI64, {1, 2}}}, "repeat_interleave.self_Tensor",
                      {TensorArg("self", "x"), TensorArg("repeats", "r")}, {{"y", kF32, {3}}}),
       absl::StatusCode::kInvalidArgument, "0-D or 1-D"},
      {"bad_dim",
       OneNodeProgram({{"x", kF32, {2}}}, "repeat_interleave.self_int",
                      {TensorArg("self", "x"), IntArg("repeats", 2), IntArg("dim", 3)}, {{"y", kF32, {4}}}),
       absl::StatusCode::kInvalidArgument, "dim"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

}  // namespace
}  // namespace pt2onnx::testing
