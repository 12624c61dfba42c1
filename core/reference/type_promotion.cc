#include "core/reference/type_promotion.h"

namespace pt2onnx::reference {
namespace {

bool IsUnsignedInt(DataType t) {
  return t == DataType::kUint8 || t == DataType::kUint16 || t == DataType::kUint32 ||
         t == DataType::kUint64;
}

DataType SignedInt(int bytes) {
  if (bytes <= 1) return DataType::kInt8;
  if (bytes == 2) return DataType::kInt16;
  if (bytes == 4) return DataType::kInt32;
  return DataType::kInt64;
}

}  // namespace

DataType PromoteTypes(DataType a, DataType b) {
  if (a == DataType::kUndefined) return b;
  if (b == DataType::kUndefined || a == b) return a;
  if (a == DataType::kBool) return b;
  if (b == DataType::kBool) return a;
  const bool fa = IsFloatingPoint(a), fb = IsFloatingPoint(b);
  if (fa && fb) {
    if (ElementSize(a) == 2 && ElementSize(b) == 2) return DataType::kFloat;  // half vs bfloat16
    return ElementSize(a) >= ElementSize(b) ? a : b;
  }
  if (fa != fb) return fa ? a : b;
  if (IsUnsignedInt(a) == IsUnsignedInt(b)) return ElementSize(a) >= ElementSize(b) ? a : b;
  const DataType s = IsUnsignedInt(a) ? b : a, u = IsUnsignedInt(a) ? a : b;
  return ElementSize(s) > ElementSize(u) ? s : SignedInt(2 * ElementSize(u));
}

// combine_categories: a lower-ranked operand only raises the category.
DataType CombineCategories(DataType higher, DataType lower) {
  if (IsFloatingPoint(higher)) return higher;
  if (higher == DataType::kBool || IsFloatingPoint(lower)) return PromoteTypes(higher, lower);
  return higher != DataType::kUndefined ? higher : lower;
}

DataType ResultType(const std::vector<PromotionOperand>& operands) {
  DataType by_rank[3] = {DataType::kUndefined, DataType::kUndefined, DataType::kUndefined};
  for (const PromotionOperand& op : operands) {
    DataType& slot = by_rank[static_cast<int>(op.rank)];
    slot = PromoteTypes(slot, op.dtype);
  }
  return CombineCategories(by_rank[0], CombineCategories(by_rank[1], by_rank[2]));
}

}  // namespace pt2onnx::reference
