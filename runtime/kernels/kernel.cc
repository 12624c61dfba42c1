#include "runtime/kernels/kernel.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {

absl::StatusOr<const Tensor*> KernelContext::RequiredInput(size_t i) const {
  const Tensor* t = input(i);
  if (t == nullptr) return absl::InvalidArgumentError(absl::StrCat("input ", i, " is required"));
  return t;
}

absl::StatusOr<Tensor*> KernelContext::AllocateOutput(size_t i, DataType dtype, Dims dims) {
  if (i >= outputs_.size()) return absl::InternalError(absl::StrCat("output ", i, " out of range"));
  PT2ONNX_ASSIGN_OR_RETURN(auto t, Tensor::Allocate(dtype, std::move(dims), pool_));
  outputs_[i] = std::move(t);
  return &outputs_[i];
}

}  // namespace pt2onnx::runtime
