// Tests for ops/diagonals.cc: linalg_diagonal, trace and diag of a matrix
// gather the diagonal at run time (symbolic sizes too); diag of a vector,
// diagflat and diag_embed place it with a mask; out-of-range offsets and
// equal dims are refused. Numerics: tests/fixtures/ops/diagonals.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(Diagonals, ShapesFollowTorch) {
  struct Row {
    std::string overload;
    TensorSpec in;
    std::vector<pt2::NamedArgument> args;
    TensorSpec out;
    const char* input_arg = "self";
  };
  const std::vector<Row> rows = {
      {"linalg_diagonal.default", {"x", kF32, {2, 3, 4}}, {IntArg("offset", 1)}, {"y", kF32, {2, 3}}, "A"},
      {"linalg_diagonal.default", {"x", kF32, {2, 3, 4}}, {IntArg("offset", -2), IntArg("dim1", 0), IntArg("dim2", 2)},
       {"y", kF32, {3, 0}}, "A"},
      {"trace.default", {"x", kI64, {3, 4}}, {}, {"y", kI64, {}}},
      {"diag.default", {"x", kF32, {3}}, {IntArg("diagonal", -1)}, {"y", kF32, {4, 4}}},
      {"diag.default", {"x", kBool, {3, 5}}, {IntArg("diagonal", 3)}, {"y", kBool, {2}}},
      {"diagflat.default", {"x", kF32, {2, 2}}, {IntArg("offset", 1)}, {"y", kF32, {5, 5}}},
      {"diag_embed.default", {"x", kF32, {2, 3}}, {IntArg("offset", 1), IntArg("dim1", 0), IntArg("dim2", 2)},
       {"y", kF32, {4, 2, 4}}},
  };
  for (const Row& row : rows) {
    std::vector<pt2::NamedArgument> args = {TensorArg(row.input_arg, "x")};
    args.insert(args.end(), row.args.begin(), row.args.end());
    pt2::ExportedProgram program = OneNodeProgram({row.in}, row.overload, args, {row.out}).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << row.overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true})) << row.overload;
  }
}

TEST(Diagonals, SymbolicMatrix) {
  pt2::ExportedProgram program = OneNodeProgram({{"x", kF32, {3, 3}, {"s0", "s0"}}}, "trace.default",
                                                {TensorArg("self", "x")}, {{"y", kF32, {}}})
                                     .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_NE(FindNode(got->model, "Gather"), nullptr);
}

TEST(Diagonals, Refusals) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3}}}, "trace.default", {TensorArg("self", "x")},
                                                       {{"y", kF32, {}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "trace expects a matrix"));
  EXPECT_TRUE(HasStatus(
      ConvertAndCheck(OneNodeProgram({{"x", kF32, {3}}}, "diagflat.default",
                                     {TensorArg("self", "x"), IntArg("offset", int64_t{1} << 62)}, {{"y", kF32, {3, 3}}})
                          .Build()),
      absl::StatusCode::kInvalidArgument, "out of range"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(OneNodeProgram({{"x", kF32, {3, 3}}}, "diag_embed.default",
                                                       {TensorArg("self", "x"), IntArg("dim1", 0), IntArg("dim2", -3)},
                                                       {{"y", kF32, {3, 3, 3}}})
                                            .Build()),
                        absl::StatusCode::kInvalidArgument, "cannot be identical"));
}

}  // namespace
}  // namespace pt2onnx::testing
