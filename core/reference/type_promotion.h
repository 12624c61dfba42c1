// File: core/reference/type_promotion.h
// -----------------------------------------------------------------------------
// torch's type promotion (c10 promoteTypes, ATen result_type) for the
// reference interpreter. Operands are ranked: tensors with dims outrank 0-d
// tensors, which outrank Python scalars ("wrapped numbers"); a lower rank
// changes the result only by raising its category (bool < int < float).
#ifndef PT2ONNX_CORE_REFERENCE_TYPE_PROMOTION_H_
#define PT2ONNX_CORE_REFERENCE_TYPE_PROMOTION_H_

#include <vector>

#include "core/dtype.h"

namespace pt2onnx::reference {

struct PromotionOperand {
  enum class Rank { kDimensioned, kZeroDim, kWrappedNumber };
  Rank rank = Rank::kDimensioned;
  DataType dtype = DataType::kUndefined;  // wrapped numbers: int64, float32 or bool
};

DataType PromoteTypes(DataType a, DataType b);
DataType ResultType(const std::vector<PromotionOperand>& operands);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_CORE_REFERENCE_TYPE_PROMOTION_H_
