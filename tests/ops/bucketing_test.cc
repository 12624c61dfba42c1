// Tests for ops/bucketing.cc: the number of binary-search steps follows the
// sequence length, and the error paths. Numerics: tests/fixtures/ops/
// searchsorted, bucketize, searchsorted_dynamic.
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

pt2::ExportedProgram Search(std::vector<int64_t> seq_shape, std::vector<pt2::NamedArgument> extra,
                            DataType out = kI64) {
  std::vector<pt2::NamedArgument> args = {TensorArg("sorted_sequence", "seq"),
                                          TensorArg("self", "v")};
  args.insert(args.end(), extra.begin(), extra.end());
  return OneNodeProgram({{"seq", kF32, seq_shape}, {"v", kF32, {3}}}, "searchsorted.Tensor",
                        std::move(args), {{"y", out, {3}}})
      .Build();
}

TEST(Searchsorted, OneSearchStepPerBitOfTheLength) {
  pt2::ExportedProgram program = Search({5}, {});  // 5 = 0b101: three steps
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  int gathers = 0;
  for (const std::string& op : OpTypes(got->model)) gathers += op == "Gather";
  EXPECT_EQ(gathers, 3);
}

TEST(Searchsorted, EmptySequenceGivesZeros) {
  pt2::ExportedProgram program = Search({0}, {BoolArg("out_int32", true)}, kI32);
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OpTypesAre(got->model, {"Expand"}));
}

TEST(Searchsorted, Errors) {
  EXPECT_TRUE(HasStatus(
      ConvertAndCheck(Search({4}, {BoolArg("right", true), StringArg("side", "left")})),
                        absl::StatusCode::kInvalidArgument, "opposites"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Search({4}, {StringArg("side", "middle")})),
                        absl::StatusCode::kInvalidArgument, "'left' or 'right'"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Search({2, 4}, {})), absl::StatusCode::kInvalidArgument,
                        "same number of dimensions"));
}

TEST(Bucketize, BoundariesMustBeOneDimensional) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"v", kF32, {3}}, {"b", kF32, {2, 2}}}, "bucketize.Tensor",
                     {TensorArg("self", "v"), TensorArg("boundaries", "b")}, {{"y", kI64, {3}}})
          .Build();
  EXPECT_TRUE(
      HasStatus(ConvertAndCheck(program), absl::StatusCode::kInvalidArgument, "1 dimension"));
}

}  // namespace
}  // namespace pt2onnx::testing
