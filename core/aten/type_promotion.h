// File: core/aten/type_promotion.h
// -----------------------------------------------------------------------------
// torch's type promotion on dtypes alone: promoteTypes (c10/core/ScalarType.h)
// and result_type (aten/src/ATen/native/TypeProperties.cpp). Translations
// wrap it with the operands of an FX node (ops/op_helpers.h); an ATen
// interpreter can call it with the tensors it holds.
//
//   DataType t = aten::ResultType({{DataType::kInt32, aten::OperandKind::kTensor},
//                                  {DataType::kFloat, aten::OperandKind::kScalar}});
//   // t == kFloat: a float scalar raises int32 to the default float dtype.
#ifndef PT2ONNX_CORE_ATEN_TYPE_PROMOTION_H_
#define PT2ONNX_CORE_ATEN_TYPE_PROMOTION_H_

#include "absl/types/span.h"
#include "core/dtype.h"

namespace pt2onnx::aten {

// promoteTypes: the smallest dtype both values fit in, by torch's table
// (bool < unsigned/signed integers < floating; f16 with bf16 gives float32;
// uint8 with int8 gives int16). kUndefined is the identity.
DataType PromoteTypes(DataType a, DataType b);

// result_type's priority classes: dimensioned tensors outrank 0-d tensors,
// which outrank wrapped Python scalars.
enum class OperandKind { kTensor, kZeroDimTensor, kScalar };

struct ResultTypeOperand {
  // For kScalar, the dtype of the Python value as torch wraps it: kInt64 for
  // an int, kFloat (the default dtype) for a float, kBool for a bool.
  DataType dtype = DataType::kUndefined;
  OperandKind kind = OperandKind::kTensor;
};

// torch.result_type: operands of one class are promoted together; a lower
// class changes the result only by raising its category (bool < integer <
// floating), as combine_categories does. kUndefined for no operands.
DataType ResultType(absl::Span<const ResultTypeOperand> operands);

}  // namespace pt2onnx::aten

#endif  // PT2ONNX_CORE_ATEN_TYPE_PROMOTION_H_
