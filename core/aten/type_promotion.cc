#include "core/aten/type_promotion.h"

namespace pt2onnx::aten {
namespace {

bool IsUnsigned(DataType t) {
  return t == DataType::kUint8 || t == DataType::kUint16 || t == DataType::kUint32 ||
         t == DataType::kUint64;
}

DataType SignedOfSize(int bytes) {
  if (bytes <= 1) return DataType::kInt8;
  if (bytes == 2) return DataType::kInt16;
  if (bytes == 4) return DataType::kInt32;
  return DataType::kInt64;
}

// A lower-priority operand changes the result only by raising its category
// (bool < integer < floating), as in torch's combine_categories.
DataType CombineCategories(DataType higher, DataType lower) {
  if (IsFloatingPoint(higher)) return higher;
  if (higher == DataType::kBool || IsFloatingPoint(lower)) return PromoteTypes(higher, lower);
  return higher != DataType::kUndefined ? higher : lower;
}

}  // namespace

DataType PromoteTypes(DataType a, DataType b) {
  if (a == DataType::kUndefined) return b;
  if (b == DataType::kUndefined || a == b) return a;
  if (a == DataType::kBool) return b;
  if (b == DataType::kBool) return a;
  bool fa = IsFloatingPoint(a), fb = IsFloatingPoint(b);
  if (fa && fb) {
    if (ElementSize(a) == 2 && ElementSize(b) == 2) return DataType::kFloat;  // f16 vs bf16
    return ElementSize(a) >= ElementSize(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  if (IsUnsigned(a) == IsUnsigned(b)) return ElementSize(a) >= ElementSize(b) ? a : b;
  DataType s = IsUnsigned(a) ? b : a;
  DataType u = IsUnsigned(a) ? a : b;
  if (ElementSize(s) > ElementSize(u)) return s;
  return SignedOfSize(2 * ElementSize(u));
}

DataType ResultType(absl::Span<const ResultTypeOperand> operands) {
  DataType dim = DataType::kUndefined, zero_dim = DataType::kUndefined,
           wrapped = DataType::kUndefined;
  for (const ResultTypeOperand& operand : operands) {
    DataType& slot = operand.kind == OperandKind::kTensor          ? dim
                     : operand.kind == OperandKind::kZeroDimTensor ? zero_dim
                                                                   : wrapped;
    slot = PromoteTypes(slot, operand.dtype);
  }
  return CombineCategories(dim, CombineCategories(zero_dim, wrapped));
}

}  // namespace pt2onnx::aten
