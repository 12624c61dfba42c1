// File: reference/bit_shift.cc
// -----------------------------------------------------------------------------
// Reference kernels for bitwise_left_shift / bitwise_right_shift (Tensor,
// Tensor_Scalar, Scalar_Tensor), with ATen's handling of out-of-range shift
// amounts (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp): a left shift by a
// negative amount or by the width or more gives 0, a right shift by those
// gives a >> (width - 1) (0 for unsigned types). Values are shifted at the dtype's own width.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

bool IsUnsigned(DataType dtype) {
  return dtype == DataType::kUint8 || dtype == DataType::kUint16 || dtype == DataType::kUint32 ||
         dtype == DataType::kUint64;
}

absl::Status ShiftImpl(RefCall& call, bool in_place, bool left) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "other"}));
  if (IsFloatLike(dtype) || dtype == DataType::kBool) {
    return call.Invalid(absl::StrCat("bit shifts of ", DataTypeName(dtype), " tensors"));
  }
  const int64_t width = 8 * ElementSize(dtype);
  const bool is_unsigned = IsUnsigned(dtype);
  auto shift = [width, is_unsigned, left](int64_t a, int64_t b) -> absl::StatusOr<int64_t> {
    const bool out_of_range = (!is_unsigned && b < 0) || static_cast<uint64_t>(b) >= static_cast<uint64_t>(width);
    if (left) return out_of_range ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b);
    // Unsigned: no sign to fill, so the width or more shifts everything out.
    if (out_of_range && is_unsigned) return 0;
    // a holds the value at its dtype (unsigned ones non-negative), so an
    // arithmetic shift of the int64 is the dtype's shift.
    return a >> (out_of_range ? width - 1 : b);
  };
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, other, dtype, dtype, [](double, double) { return 0.0; }, shift));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

// aten::bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor (and
// Tensor_Scalar, Scalar_Tensor; right shifts alike)
absl::Status LeftShift(RefCall& call) { return ShiftImpl(call, false, true); }
absl::Status LeftShiftInPlace(RefCall& call) { return ShiftImpl(call, true, true); }
absl::Status RightShift(RefCall& call) { return ShiftImpl(call, false, false); }
absl::Status RightShiftInPlace(RefCall& call) { return ShiftImpl(call, true, false); }

}  // namespace

void RegisterBitShiftRef(RefRegistry& r) {
  r.Add("aten::bitwise_left_shift.Tensor", LeftShift);
  r.Add("aten::bitwise_left_shift_.Tensor", LeftShiftInPlace);
  r.Add("aten::bitwise_left_shift.Tensor_Scalar", LeftShift);
  r.Add("aten::bitwise_left_shift_.Tensor_Scalar", LeftShiftInPlace);
  r.Add("aten::bitwise_left_shift.Scalar_Tensor", LeftShift);
  r.Add("aten::bitwise_right_shift.Tensor", RightShift);
  r.Add("aten::bitwise_right_shift_.Tensor", RightShiftInPlace);
  r.Add("aten::bitwise_right_shift.Tensor_Scalar", RightShift);
  r.Add("aten::bitwise_right_shift_.Tensor_Scalar", RightShiftInPlace);
  r.Add("aten::bitwise_right_shift.Scalar_Tensor", RightShift);
}

}  // namespace pt2onnx::reference
