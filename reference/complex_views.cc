// File: reference/complex_views.cc
// -----------------------------------------------------------------------------
// Reference kernels for polar, complex, view_as_complex, real, conj / _conj and
// resolve_conj / resolve_neg (ops/complex_views.cc). Complex tensors are
// complex64 / complex128 with interleaved real and imaginary parts, torch's
// layout, so view_as_complex copies the bytes of a (..., 2) real tensor.
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// A complex tensor from two real ones broadcast together: (a, b) -> parts(a, b).
absl::Status FromParts(RefCall& call, absl::string_view a_arg, absl::string_view b_arg, bool polar) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor abs, call.Input(a_arg));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor angle, call.Input(b_arg));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(abs.dims(), angle.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor ab, BroadcastTo(abs, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor an, BroadcastTo(angle, dims));
  const std::vector<double> r = ToDoubles(ab), theta = ToDoubles(an);
  const DataType dtype = abs.dtype() == DataType::kDouble ? DataType::kComplex128 : DataType::kComplex64;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  for (size_t i = 0; i < r.size(); ++i) {
    const double re = polar ? r[i] * std::cos(theta[i]) : r[i];
    const double im = polar ? r[i] * std::sin(theta[i]) : theta[i];
    if (dtype == DataType::kComplex64) {
      float* p = out.data<float>();
      p[2 * i] = static_cast<float>(re);
      p[2 * i + 1] = static_cast<float>(im);
    } else {
      double* p = out.data<double>();
      p[2 * i] = re;
      p[2 * i + 1] = im;
    }
  }
  return call.SetTensor(std::move(out));
}
// aten::polar(Tensor abs, Tensor angle) -> Tensor
absl::Status Polar(RefCall& call) { return FromParts(call, "abs", "angle", true); }
// aten::complex(Tensor real, Tensor imag) -> Tensor
absl::Status ComplexOp(RefCall& call) { return FromParts(call, "real", "imag", false); }

// aten::view_as_complex(Tensor(a) self) -> Tensor(a): (..., 2) floats as complex.
absl::Status ViewAsComplex(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.rank() == 0 || self.dims().back() != 2) return call.Invalid("Tensor must have a last dimension of size 2");
  if (self.dtype() != DataType::kFloat && self.dtype() != DataType::kDouble) {
    return call.Invalid(absl::StrCat("view_as_complex of ", DataTypeName(self.dtype())));
  }
  Dims dims = self.dims();
  dims.pop_back();
  const DataType dtype = self.dtype() == DataType::kDouble ? DataType::kComplex128 : DataType::kComplex64;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  if (out.byte_size() > 0) std::memcpy(out.raw(), self.raw(), out.byte_size());
  return call.SetTensor(std::move(out));
}

// aten::resolve_conj(Tensor(a) self) -> Tensor(a) (and resolve_neg): the same values.
absl::Status Resolve(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  return call.SetTensor(std::move(out));
}

// aten::conj(Tensor(a) self) -> Tensor(a) (and _conj): imaginary parts negated.
absl::Status Conj(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  if (out.dtype() == DataType::kComplex64) {
    float* p = out.data<float>();
    for (int64_t i = 0; i < out.numel(); ++i) p[2 * i + 1] = -p[2 * i + 1];
  } else if (out.dtype() == DataType::kComplex128) {
    double* p = out.data<double>();
    for (int64_t i = 0; i < out.numel(); ++i) p[2 * i + 1] = -p[2 * i + 1];
  }
  return call.SetTensor(std::move(out));
}

// aten::real(Tensor(a) self) -> Tensor(a): a real tensor's values, or the
// real parts of a complex one.
absl::Status Real(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (!IsComplex(self.dtype())) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
    return call.SetTensor(std::move(out));
  }
  const DataType part = self.dtype() == DataType::kComplex64 ? DataType::kFloat : DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(part, self.dims()));
  const size_t width = ElementSize(part);
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(out.raw() + i * width, self.raw() + 2 * i * width, width);
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterComplexViewsRef(RefRegistry& r) {
  r.Add("aten::polar.default", Polar);
  r.Add("aten::complex.default", ComplexOp);
  r.Add("aten::view_as_complex.default", ViewAsComplex);
  r.Add("aten::resolve_conj.default", Resolve);
  r.Add("aten::resolve_neg.default", Resolve);
  r.Add("aten::conj.default", Conj);
  r.Add("aten::_conj.default", Conj);
  r.Add("aten::real.default", Real);
}

}  // namespace pt2onnx::reference
