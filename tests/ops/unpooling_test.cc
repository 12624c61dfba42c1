// Tests for ops/unpooling.cc: max_unpool2d / max_unpool3d convert (checker +
// shape inference) for batched and unbatched inputs of any dtype, with
// symbolic batch sizes, as a plane-wise ScatterElements; malformed arguments
// are refused. Numerics (repeated and edge indices, int and bool values):
// tests/fixtures/ops/unpooling.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Unpool2d(DataType dtype, std::vector<int64_t> in, std::vector<int64_t> out,
                              std::vector<int64_t> output_size) {
  return OneNodeProgram({{"x", dtype, in}, {"i", kI64, in}}, "max_unpool2d.default",
                        {TensorArg("self", "x"), TensorArg("indices", "i"), IntsArg("output_size", output_size)},
                        {{"y", dtype, out}})
      .Build();
}

TEST(Unpooling, Unpool2dScattersPerPlane) {
  for (DataType dtype : {kF32, kI64, kBool}) {
    pt2::ExportedProgram program = Unpool2d(dtype, {2, 3, 2, 2}, {2, 3, 4, 5}, {4, 5});
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    const ir::Node* scatter = FindNode(got->model, "ScatterElements");
    ASSERT_NE(scatter, nullptr);
  }
  pt2::ExportedProgram unbatched = Unpool2d(kF32, {3, 2, 2}, {3, 4, 4}, {4, 4});
  absl::StatusOr<Converted> got = ConvertAndCheck(unbatched);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(unbatched, *got));
}

TEST(Unpooling, Unpool3dAndEmptyPlanes) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {1, 2, 1, 2, 2}}, {"i", kI64, {1, 2, 1, 2, 2}}}, "max_unpool3d.default",
                     {TensorArg("self", "x"), TensorArg("indices", "i"), IntsArg("output_size", {2, 4, 3}),
                      IntsArg("stride", {2, 2, 2}), IntsArg("padding", {0, 0, 0})},
                     {{"y", kF32, {1, 2, 2, 4, 3}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  pt2::ExportedProgram empty = Unpool2d(kF32, {0, 3, 2, 2}, {0, 3, 4, 4}, {4, 4});
  got = ConvertAndCheck(empty);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(empty, *got));
}

TEST(Unpooling, SymbolicBatch) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {2, 3, 2, 2}, {"s0", "", "", ""}}, {"i", kI64, {2, 3, 2, 2}, {"s0", "", "", ""}}},
                     "max_unpool2d.default",
                     {TensorArg("self", "x"), TensorArg("indices", "i"), IntsArg("output_size", {4, 4})},
                     {{"y", kF32, {2, 3, 4, 4}, {"s0", "", "", ""}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(Unpooling, Refusals) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unpool2d(kF32, {2, 2}, {4, 4}, {4, 4})), absl::StatusCode::kInvalidArgument,
                        "self must have rank 3 or 4"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unpool2d(kF32, {1, 2, 2}, {1, 4, 4}, {4, 4, 4})),
                        absl::StatusCode::kInvalidArgument, "output_size needs 2 entries"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unpool2d(kF32, {1, 2, 2}, {1, 4, 4}, {4, -4})),
                        absl::StatusCode::kInvalidArgument, "is negative"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unpool2d(kF32, {1, 2, 2}, {1, 4, 4}, {int64_t{1} << 40, 1 << 20})),
                        absl::StatusCode::kInvalidArgument, "plane is too large"));
  pt2::ExportedProgram mismatched =
      OneNodeProgram({{"x", kF32, {1, 2, 2}}, {"i", kI64, {1, 2, 3}}}, "max_unpool2d.default",
                     {TensorArg("self", "x"), TensorArg("indices", "i"), IntsArg("output_size", {4, 4})},
                     {{"y", kF32, {1, 4, 4}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(mismatched), absl::StatusCode::kInvalidArgument,
                        "indices must have the shape of self"));
  pt2::ExportedProgram zero_stride =
      OneNodeProgram({{"x", kF32, {1, 1, 1, 2}}, {"i", kI64, {1, 1, 1, 2}}}, "max_unpool3d.default",
                     {TensorArg("self", "x"), TensorArg("indices", "i"), IntsArg("output_size", {2, 2, 2}),
                      IntsArg("stride", {0, 2, 2}), IntsArg("padding", {0, 0, 0})},
                     {{"y", kF32, {1, 2, 2, 2}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(zero_stride), absl::StatusCode::kInvalidArgument,
                        "stride must be positive"));
}

}  // namespace
}  // namespace pt2onnx::testing
