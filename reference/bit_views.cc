// Reference kernel: aten::view.dtype, the same bytes read as another dtype
// (ATen's view_dtype, aten/src/ATen/native/TensorConversions.cpp): equal
// widths keep the shape; otherwise the last dim is scaled by the ratio of the
// element sizes (it must divide when the new dtype is wider). Values are
// row-major, so the bytes are copied as they are.
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// aten::view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)
absl::Status ViewDtype(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> target, call.Dtype("dtype"));
  if (!target) return call.Invalid("view(dtype) without a dtype");
  const DataType to = *target;
  const int in_bytes = ElementSize(self.dtype()), out_bytes = ElementSize(to);
  if (in_bytes == 0 || out_bytes == 0 || IsComplex(self.dtype()) || IsComplex(to)) {
    return call.Unsupported(absl::StrCat("view(dtype) from ", DataTypeName(self.dtype()), " to ", DataTypeName(to)));
  }
  Dims dims = self.dims();
  if (in_bytes != out_bytes) {
    if (dims.empty()) return call.Invalid("view(dtype): a 0-d tensor cannot change its element size");
    if (in_bytes > out_bytes) {
      dims.back() *= in_bytes / out_bytes;
    } else if (dims.back() % (out_bytes / in_bytes) != 0) {
      return call.Invalid(absl::StrCat("view(dtype): the last dim (", dims.back(), ") is not divisible by ",
                                       out_bytes / in_bytes));
    } else {
      dims.back() /= out_bytes / in_bytes;
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(to, dims, nullptr));
  if (out.byte_size() > 0) std::memcpy(out.raw(), self.raw(), out.byte_size());
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterBitViewRef(RefRegistry& r) { r.Add("aten::view.dtype", ViewDtype); }

}  // namespace pt2onnx::reference
