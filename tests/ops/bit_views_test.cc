// Tests for ops/bit_views.cc: view(dtype) at opset 26 as BitCast (equal
// widths), split or joined bytewise (other widths), bool through Cast; below
// opset 26 refused naming the opset. Bit-exact values against torch: the
// ops/view_dtype fixture.
#include <cstdint>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram ViewAs(DataType from, std::vector<int64_t> in_dims, DataType to, std::vector<int64_t> out_dims) {
  return OneNodeProgram({{"a", from, in_dims}}, "view.dtype", {TensorArg("self", "a"), DtypeArg("dtype", to)},
                        {{"y", to, out_dims}})
      .Build();
}

TEST(BitViews, EqualWidthsAreOneBitCast) {
  absl::StatusOr<Converted> got = ConvertAndCheck(ViewAs(kF32, {2, 3}, kI32, {2, 3}), 26);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_NE(FindNode(got->model, "BitCast"), nullptr);
  EXPECT_EQ(FindNode(got->model, "BitShift"), nullptr);
}

TEST(BitViews, OtherWidthsSplitOrJoinTheLastDim) {
  for (const auto& [from, in_dims, to, out_dims] :
       std::vector<std::tuple<DataType, std::vector<int64_t>, DataType, std::vector<int64_t>>>{
           {kF32, {2, 3}, DataType::kUint8, {2, 12}},
           {DataType::kUint8, {2, 8}, kF32, {2, 2}},
           {kF16, {4}, DataType::kInt64, {1}},
           {DataType::kBool, {2, 4}, kF32, {2, 1}},
           {kF64, {3}, DataType::kBool, {24}}}) {
    absl::StatusOr<Converted> got = ConvertAndCheck(ViewAs(from, in_dims, to, out_dims), 26);
    ASSERT_TRUE(got.ok()) << DataTypeName(from) << " -> " << DataTypeName(to) << ": " << got.status();
    EXPECT_NE(FindNode(got->model, "BitShift"), nullptr);
  }
}

TEST(BitViews, BelowOpset26Refused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(ViewAs(kF32, {2, 3}, kI32, {2, 3}), 25),
                        absl::StatusCode::kUnimplemented, "--opset 26"));
  // The same dtype is no reinterpretation: every opset.
  EXPECT_TRUE(ConvertAndCheck(ViewAs(kF32, {2, 3}, kF32, {2, 3}), 18).ok());
}

TEST(BitViews, ZeroDimWidthChangeRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(ViewAs(kF32, {}, DataType::kUint8, {4}), 26),
                        absl::StatusCode::kInvalidArgument, "0-d"));
}

}  // namespace
}  // namespace pt2onnx::testing
