// File: reference/float_representation.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/float_representation.cc: nextafter and
// frexp.Tensor through <cmath>'s std::nextafter / std::frexp in the
// operands' own precision (float for float32, double for float64).
#include <cmath>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// aten::nextafter(Tensor self, Tensor other) -> Tensor
absl::Status Nextafter(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) {
    PT2ONNX_ASSIGN_OR_RETURN(dtype, call.ResultType({"self", "other"}));
  }
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) return call.Invalid("nextafter: float32 / float64 only");
  const bool wide = dtype == DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, other, DataType::kDouble, dtype,
                            [wide](double x, double y) -> double {
                              if (wide) return std::nextafter(x, y);
                              return std::nextafter(static_cast<float>(x), static_cast<float>(y));
                            },
                            [](int64_t, int64_t) -> absl::StatusOr<int64_t> {
                              return absl::InvalidArgumentError("nextafter has a float result");
                            }));
  return call.SetTensor(std::move(out));
}

// aten::frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)
absl::Status Frexp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (!IsFloatLike(self.dtype())) return call.Invalid("frexp only supports floating-point dtypes");
  const std::vector<double> x = ToDoubles(self);
  std::vector<double> mantissa(x.size()), exponent(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    int e = 0;
    mantissa[i] = std::frexp(x[i], &e);
    if (!std::isfinite(x[i])) e = 0;
    exponent[i] = e;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, FromDoubles(self.dtype(), self.dims(), mantissa));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor e, FromDoubles(DataType::kInt32, self.dims(), exponent));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(m)));
  return call.SetTensor(std::move(e));
}

}  // namespace

void RegisterFloatRepresentationRef(RefRegistry& r) {
  r.Add("aten::nextafter.default", Nextafter);
  r.Add("aten::frexp.Tensor", Frexp);
}

}  // namespace pt2onnx::reference
