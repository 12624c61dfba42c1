// torch's promotion table, spot-checked against torch.promote_types and
// torch.result_type.
#include "core/aten/type_promotion.h"

#include "gtest/gtest.h"

namespace pt2onnx::aten {
namespace {

TEST(PromoteTypesTest, FollowsTorchTable) {
  EXPECT_EQ(PromoteTypes(DataType::kUint8, DataType::kInt8), DataType::kInt16);
  EXPECT_EQ(PromoteTypes(DataType::kUint8, DataType::kInt16), DataType::kInt16);
  EXPECT_EQ(PromoteTypes(DataType::kInt32, DataType::kInt64), DataType::kInt64);
  EXPECT_EQ(PromoteTypes(DataType::kBool, DataType::kUint8), DataType::kUint8);
  EXPECT_EQ(PromoteTypes(DataType::kInt64, DataType::kFloat16), DataType::kFloat16);
  EXPECT_EQ(PromoteTypes(DataType::kFloat16, DataType::kBFloat16), DataType::kFloat);
  EXPECT_EQ(PromoteTypes(DataType::kFloat, DataType::kDouble), DataType::kDouble);
  EXPECT_EQ(PromoteTypes(DataType::kUndefined, DataType::kInt32), DataType::kInt32);
}

TEST(ResultTypeTest, ScalarsOnlyRaiseTheCategory) {
  // int32 tensor + 2.5 -> float32 (the default dtype), not float64.
  EXPECT_EQ(ResultType({{DataType::kInt32, OperandKind::kTensor},
                        {DataType::kFloat, OperandKind::kScalar}}),
            DataType::kFloat);
  // int8 tensor + int scalar stays int8.
  EXPECT_EQ(ResultType({{DataType::kInt8, OperandKind::kTensor},
                        {DataType::kInt64, OperandKind::kScalar}}),
            DataType::kInt8);
  // float16 tensor + float64 0-d tensor stays float16.
  EXPECT_EQ(ResultType({{DataType::kFloat16, OperandKind::kTensor},
                        {DataType::kDouble, OperandKind::kZeroDimTensor}}),
            DataType::kFloat16);
  // int32 tensor + float64 0-d tensor -> the 0-d tensor's dtype.
  EXPECT_EQ(ResultType({{DataType::kInt32, OperandKind::kTensor},
                        {DataType::kDouble, OperandKind::kZeroDimTensor}}),
            DataType::kDouble);
  // bool tensor + int scalar -> int64.
  EXPECT_EQ(ResultType({{DataType::kBool, OperandKind::kTensor},
                        {DataType::kInt64, OperandKind::kScalar}}),
            DataType::kInt64);
  // Only 0-d tensors: they promote among themselves.
  EXPECT_EQ(ResultType({{DataType::kUint8, OperandKind::kZeroDimTensor},
                        {DataType::kInt8, OperandKind::kZeroDimTensor}}),
            DataType::kInt16);
  EXPECT_EQ(ResultType({}), DataType::kUndefined);
}

}  // namespace
}  // namespace pt2onnx::aten
