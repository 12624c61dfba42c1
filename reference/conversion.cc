// Reference kernels: dtype conversions (to.*, _to_copy, type_as). torch's
// .to() returns self itself when nothing changes and copy=False, so later
// in-place ops write through; a real conversion is a new tensor.
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::Status ConvertTo(RefCall& call, std::optional<DataType> dtype, bool force_copy) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  bool copy = force_copy;
  if (call.Has("copy")) {
    PT2ONNX_ASSIGN_OR_RETURN(bool c, call.Bool("copy"));
    copy = copy || c;
  }
  const DataType target = dtype.value_or(self.dtype());
  if (target == self.dtype()) {
    if (!copy) return call.SetTensor(self);
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
    return call.SetTensor(std::move(out));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CastTensor(self, target));
  return call.SetTensor(std::move(out));
}

// aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
// aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, ...) -> Tensor(a)
// aten::to.device(Tensor(a) self, Device device, ScalarType dtype, ...) -> Tensor(a)
absl::Status ToDtype(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  return ConvertTo(call, dtype, false);
}
// aten::_to_copy(Tensor self, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status ToCopy(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  return ConvertTo(call, dtype, true);
}
// aten::to.other(Tensor(a) self, Tensor other, ...) -> Tensor(a); aten::type_as(Tensor self, Tensor other) -> Tensor
absl::Status ToOther(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  return ConvertTo(call, other.dtype(), false);
}

// aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor: src
// broadcast to self's shape, in self's dtype.
absl::Status CopyImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src, call.Input("src"));
  if (in_place) {
    PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, src));
    return call.SetTensor(self);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), self.dims()));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(out, src));
  return call.SetTensor(std::move(out));
}
absl::Status Copy(RefCall& call) { return CopyImpl(call, false); }
// aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
absl::Status CopyInPlace(RefCall& call) { return CopyImpl(call, true); }

}  // namespace

void RegisterConversionRef(RefRegistry& r) {
  r.Add("aten::to.dtype", ToDtype);
  r.Add("aten::to.dtype_layout", ToDtype);
  r.Add("aten::to.device", ToDtype);
  r.Add("aten::to.other", ToOther);
  r.Add("aten::type_as.default", ToOther);
  r.Add("aten::_to_copy.default", ToCopy);
  r.Add("aten::copy.default", Copy);
  r.Add("aten::copy_.default", CopyInPlace);
}

}  // namespace pt2onnx::reference
