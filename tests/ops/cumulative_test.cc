// Tests for ops/cumulative.cc: diff's structure and error paths. Numerics:
// tests/fixtures/ops/diff, diff_dynamic.
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

pt2::ExportedProgram Diff(TensorSpec in, std::vector<pt2::NamedArgument> args, TensorSpec out) {
  args.insert(args.begin(), TensorArg("self", in.name));
  out.name = "y";
  return OneNodeProgram({in}, "diff.default", std::move(args), {out}).Build();
}

TEST(Diff, OrderAboveTheLengthStopsAtTheLength) {
  pt2::ExportedProgram program = Diff({"x", kF32, {2, 3}}, {IntArg("n", 1000)}, {"", kF32, {2, 0}});
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Slice", "Slice", "Sub", "Slice", "Slice", "Sub", "Slice",
                                      "Slice", "Sub"}));
}

TEST(Diff, BoolUsesXor) {
  pt2::ExportedProgram program = Diff({"x", kBool, {5}}, {}, {"", kBool, {4}});
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OpTypesAre(got->model, {"Slice", "Slice", "Xor"}));
}

TEST(Diff, Errors) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Diff({"x", kF32, {3}}, {IntArg("n", -1)}, {"", kF32, {3}})),
                        absl::StatusCode::kInvalidArgument, "non-negative"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Diff({"x", kF32, {}}, {}, {"", kF32, {}})),
                        absl::StatusCode::kInvalidArgument, "at least one-dimensional"));
  EXPECT_TRUE(HasStatus(
      ConvertAndCheck(Diff({"x", kF32, {3}}, {IntArg("dim", 1)}, {"", kF32, {2}})),
                        absl::StatusCode::kInvalidArgument, "dim of aten::diff"));
  TensorSpec symbolic{"x", kF32, {4}, {"s0"}};
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Diff(symbolic, {IntArg("n", 65)}, {"", kF32, {0}, {"s1"}})),
                        absl::StatusCode::kUnimplemented, "order n=65"));
}

TEST(Cummax, ScalarInputHasIndexZero) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {}}}, "cummax.default",
                     {TensorArg("self", "x"), IntArg("dim", 0)},
                     {{"values", kF32, {}}, {"indices", kI64, {}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(Scans, RoundsFollowTheLength) {
  // 5 elements: 3 rounds of one Mul each.
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {2, 5}}}, "cumprod.default",
                     {TensorArg("self", "x"), IntArg("dim", 1)},
                     {{"y", kF32, {2, 5}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  int muls = 0;
  for (const std::string& op : OpTypes(got->model)) muls += op == "Mul";
  EXPECT_EQ(muls, 3);
}

TEST(Scans, CumprodIsOneCumProdFromOpset26) {
  // Float64 (torch's accumulator) in and out; a 0-d tensor is its own product.
  for (bool scalar : {false, true}) {
    const std::vector<int64_t> dims = scalar ? std::vector<int64_t>{} : std::vector<int64_t>{2, 5};
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, dims}}, "cumprod.default",
                       {TensorArg("self", "x"), IntArg("dim", scalar ? 0 : 1)}, {{"y", kF32, dims}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program, 26);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    if (!scalar) {
      EXPECT_TRUE(OpTypesAre(got->model, {"Cast", "CumProd", "Cast"}));
    }
  }
}

TEST(Scans, Errors) {
  pt2::ExportedProgram bad_dim =
      OneNodeProgram({{"x", kF32, {2, 5}}}, "cummin.default",
                     {TensorArg("self", "x"), IntArg("dim", 2)},
                     {{"values", kF32, {2, 5}}, {"indices", kI64, {2, 5}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(bad_dim), absl::StatusCode::kInvalidArgument,
                        "dim of aten::cummin.default"));
  pt2::ExportedProgram int_lse =
      OneNodeProgram({{"x", kI64, {4}}}, "logcumsumexp.default",
                     {TensorArg("self", "x"), IntArg("dim", 0)},
                     {{"y", kI64, {4}}})
          .Build();
  EXPECT_TRUE(
      HasStatus(ConvertAndCheck(int_lse), absl::StatusCode::kUnimplemented, "int64 result"));
}

}  // namespace
}  // namespace pt2onnx::testing
