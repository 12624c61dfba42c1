// File: reference/resize.cc
// -----------------------------------------------------------------------------
// Reference kernels for resize_, resize_as_ and resize_as
// (aten/src/ATen/native/Resize.cpp): new sizes over the same storage. The
// interpreter's tensors are contiguous, so the result holds the first
// numel(new) elements in row-major order; growing would expose uninitialized
// memory, so it is an error here.
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

absl::Status ResizeTo(RefCall& call, const Dims& size) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  int64_t numel = 1;
  for (int64_t s : size) {
    if (s < 0) return call.Invalid("resize_: negative size");
    numel *= s;
  }
  if (numel > self.numel()) {
    return call.Invalid(absl::StrCat("resize_ from ", self.numel(), " to ", numel,
                                     " elements leaves the new ones uninitialized"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), size));
  if (numel > 0) std::memcpy(out.raw(), self.raw(), numel * ElementSize(self.dtype()));
  return call.SetTensor(std::move(out));
}

// aten::resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
absl::Status ResizeInPlace(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  return ResizeTo(call, Dims(size.begin(), size.end()));
}

// aten::resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) -> Tensor(a!)
absl::Status ResizeAs(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor the_template, call.Input("the_template"));
  return ResizeTo(call, the_template.dims());
}

}  // namespace

void RegisterResizeRef(RefRegistry& r) {
  r.Add("aten::resize_.default", ResizeInPlace);
  r.Add("aten::resize_as_.default", ResizeAs);
  r.Add("aten::resize_as.default", ResizeAs);
}

}  // namespace pt2onnx::reference
