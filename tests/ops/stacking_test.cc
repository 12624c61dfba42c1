// Tests for ops/stacking.cc: hstack, vstack, dstack and column_stack raise each input
// to a common rank before one Concat (mixed dtypes promoted); fliplr, flipud
// and rot90 reverse with Slice and swap with Transpose; view_as reshapes to
// the other tensor's (possibly symbolic) shape. Numerics:
// tests/fixtures/ops/stacking.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Joined(const std::string& overload, std::vector<TensorSpec> inputs, TensorSpec out) {
  std::vector<std::string> names;
  for (const TensorSpec& t : inputs) names.push_back(t.name);
  return OneNodeProgram(inputs, overload, {TensorsArg("tensors", names)}, {out}).Build();
}

TEST(Stacking, JoinsRaiseRanks) {
  struct Row {
    std::string overload;
    std::vector<TensorSpec> inputs;
    TensorSpec out;
  };
  const std::vector<Row> rows = {
      {"hstack.default", {{"a", kF32, {3}}, {"b", kF32, {}}}, {"y", kF32, {4}}},
      {"hstack.default", {{"a", kF32, {2, 3}}, {"b", kI64, {2, 1}}}, {"y", kF32, {2, 4}}},
      {"dstack.default", {{"a", kF32, {3}}, {"b", kF32, {1, 3, 2}}}, {"y", kF32, {1, 3, 3}}},
      {"dstack.default", {{"a", kBool, {2, 3}}, {"b", kBool, {2, 3, 2}}}, {"y", kBool, {2, 3, 3}}},
      {"dstack.default", {{"a", kI64, {}}, {"b", kI64, {}}}, {"y", kI64, {1, 1, 2}}},
      {"vstack.default", {{"a", kF32, {3}}, {"b", kF32, {2, 3}}}, {"y", kF32, {3, 3}}},
      {"vstack.default", {{"a", kI64, {}}, {"b", kF32, {}}}, {"y", kF32, {2, 1}}},
      {"row_stack.default", {{"a", kF32, {2, 2}}, {"b", kF32, {1, 2}}}, {"y", kF32, {3, 2}}},
      {"column_stack.default", {{"a", kF32, {3}}, {"b", kF32, {3, 2}}}, {"y", kF32, {3, 3}}},
      {"column_stack.default", {{"a", kI64, {}}}, {"y", kI64, {1, 1}}},
  };
  for (const Row& row : rows) {
    pt2::ExportedProgram program = Joined(row.overload, row.inputs, row.out);
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << row.overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << row.overload;
  }
}

TEST(Stacking, FlipsAndRotations) {
  for (const char* overload : {"fliplr.default", "flipud.default"}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kI64, {2, 3}}}, overload, {TensorArg("self", "x")}, {{"y", kI64, {2, 3}}}).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OpTypesAre(got->model, {"Slice"}));
  }
  for (int64_t k : {-1, 1, 2, 3, 4}) {
    const std::vector<int64_t> out = k % 2 == 0 ? std::vector<int64_t>{2, 3, 4} : std::vector<int64_t>{4, 3, 2};
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {2, 3, 4}}}, "rot90.default",
                       {TensorArg("self", "x"), IntArg("k", k), IntsArg("dims", {-1, 0})}, {{"y", kF32, out}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << k << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << k;
  }
}

TEST(Stacking, ViewAsSymbolic) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {2, 6}, {"s0", ""}}, {"o", kF32, {2, 3, 2}, {"s0", "", ""}}}, "view_as.default",
                     {TensorArg("self", "x"), TensorArg("other", "o")}, {{"y", kF32, {2, 3, 2}, {"s0", "", ""}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(Stacking, Refusals) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3}}}, "fliplr.default", {TensorArg("self", "x")},
                                                       {{"y", kF32, {3}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "at least 2 dims"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3, 3}}}, "rot90.default",
                                                       {TensorArg("self", "x"), IntsArg("dims", {1, -1})},
                                                       {{"y", kF32, {3, 3}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "rotation dims to be different"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Joined("hstack.default", {{"a", kF32, {2, 3}}, {"b", kF32, {3}}},
                                               {"y", kF32, {2, 6}})),
                        absl::StatusCode::kInvalidArgument, "cannot be joined"));
}

}  // namespace
}  // namespace pt2onnx::testing
