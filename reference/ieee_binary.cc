// File: reference/ieee_binary.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/ieee_binary.cc: fmax, fmin, copysign, hypot,
// ldexp and float_power, in double with <cmath>'s own functions (std::fmax,
// std::copysign, std::hypot, std::pow), not the ONNX expansions.
#include <cmath>
#include <utility>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// f over self and `other_arg` (either may be a Scalar) in the program's
// output dtype; integer outputs (fmax / fmin of ints) compute `fi`.
absl::Status Binary(RefCall& call, absl::string_view other_arg, const DoubleBinary& fd, const IntBinary& fi) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, other_arg));
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) {
    PT2ONNX_ASSIGN_OR_RETURN(dtype, call.ResultType({"self", other_arg}));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BinaryMap(self, other, dtype, dtype, fd, fi));
  return call.SetTensor(std::move(out));
}

absl::StatusOr<int64_t> NoInt(int64_t, int64_t) { return absl::InvalidArgumentError("integer operands"); }

// aten::fmax(Tensor self, Tensor other) -> Tensor
absl::Status Fmax(RefCall& call) {
  return Binary(call, "other", [](double a, double b) { return std::fmax(a, b); },
                [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a > b ? a : b; });
}
// aten::fmin(Tensor self, Tensor other) -> Tensor
absl::Status Fmin(RefCall& call) {
  return Binary(call, "other", [](double a, double b) { return std::fmin(a, b); },
                [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a < b ? a : b; });
}
// aten::copysign.Tensor(Tensor self, Tensor other) -> Tensor (and .Scalar)
absl::Status Copysign(RefCall& call) {
  return Binary(call, "other", [](double a, double b) { return std::copysign(a, b); }, NoInt);
}
// aten::hypot(Tensor self, Tensor other) -> Tensor
absl::Status Hypot(RefCall& call) {
  return Binary(call, "other", [](double a, double b) { return std::hypot(a, b); }, NoInt);
}
// aten::ldexp.Tensor(Tensor self, Tensor other) -> Tensor
absl::Status Ldexp(RefCall& call) {
  return Binary(call, "other", [](double a, double b) { return a * std::pow(2.0, b); }, NoInt);
}
// aten::float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
// (and .Tensor_Scalar, .Scalar), in double.
absl::Status FloatPower(RefCall& call) {
  return Binary(call, "exponent", [](double a, double b) { return std::pow(a, b); }, NoInt);
}

}  // namespace

void RegisterIeeeBinaryRef(RefRegistry& r) {
  r.Add("aten::fmax.default", Fmax);
  r.Add("aten::fmin.default", Fmin);
  r.Add("aten::copysign.Tensor", Copysign);
  r.Add("aten::copysign.Scalar", Copysign);
  r.Add("aten::hypot.default", Hypot);
  r.Add("aten::ldexp.Tensor", Ldexp);
  r.Add("aten::float_power.Tensor_Tensor", FloatPower);
  r.Add("aten::float_power.Tensor_Scalar", FloatPower);
  r.Add("aten::float_power.Scalar", FloatPower);
}

}  // namespace pt2onnx::reference
