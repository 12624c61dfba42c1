// File: reference/loss_reduction.cc
// -----------------------------------------------------------------------------
#include "reference/loss_reduction.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"

namespace pt2onnx::reference {

absl::StatusOr<int64_t> ReadReduction(const RefCall& call) {
  int64_t reduction = 1;
  if (call.Has("reduction")) {
    PT2ONNX_ASSIGN_OR_RETURN(reduction, call.Int("reduction"));
  }
  if (reduction < 0 || reduction > 2) return call.Invalid(absl::StrCat("reduction ", reduction));
  return reduction;
}

absl::Status SetReduced(RefCall& call, DataType dtype, const Dims& dims, const std::vector<double>& v,
                        int64_t reduction) {
  if (reduction == 0) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(dtype, dims, v));
    return call.SetTensor(std::move(out));
  }
  double sum = 0;
  for (double e : v) sum += e;
  const double value = reduction == 1 ? sum / static_cast<double>(v.size()) : sum;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, ScalarTensor(dtype, value));
  return call.SetTensor(std::move(out));
}

}  // namespace pt2onnx::reference
