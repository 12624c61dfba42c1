#include "reference/kernel_support.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {

absl::StatusOr<Tensor> TensorOrScalar(const RefCall& call, absl::string_view name) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Argument* a, call.ArgRef(name));
  if (a->kind == pt2::Argument::Kind::kTensor) return call.Input(name);
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar s, call.Scalar(name));
  if (s.is_float()) return ScalarTensor(DataType::kDouble, s.f);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(s.kind == DataType::kBool ? DataType::kBool : DataType::kInt64, {}));
  StoreInt(t, 0, s.i);
  return t;
}

absl::StatusOr<Tensor> BinaryMap(const Tensor& a, const Tensor& b, DataType compute,
                                 DataType out_dtype, const DoubleBinary& fd, const IntBinary& fi) {
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(a.dims(), b.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor ca, a.dtype() == compute ? a : CastTensor(a, compute));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor cb, b.dtype() == compute ? b : CastTensor(b, compute));
  std::vector<int64_t> ia = BroadcastIndices(a.dims(), dims), ib = BroadcastIndices(b.dims(), dims);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(out_dtype, dims));
  if (IsFloatLike(compute)) {
    std::vector<double> va = ToDoubles(ca), vb = ToDoubles(cb);
    std::vector<double> r(out.numel());
    for (int64_t i = 0; i < out.numel(); ++i) r[i] = fd(va[ia[i]], vb[ib[i]]);
    return FromDoubles(out_dtype, dims, r);
  }
  std::vector<int64_t> va = ToInts(ca), vb = ToInts(cb);
  std::vector<int64_t> r(out.numel());
  for (int64_t i = 0; i < out.numel(); ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(r[i], fi(va[ia[i]], vb[ib[i]]));
  }
  return FromInts(out_dtype, dims, r);
}

absl::StatusOr<Tensor> UnaryMapDouble(const Tensor& x, DataType out_dtype, const DoubleUnary& f) {
  std::vector<double> v = ToDoubles(x);
  for (double& e : v) e = f(e);
  return FromDoubles(out_dtype, x.dims(), v);
}

absl::StatusOr<Tensor> BroadcastTo(const Tensor& t, const Dims& dims) {
  if (t.dims() == dims) return t;
  PT2ONNX_ASSIGN_OR_RETURN(Dims check, BroadcastDims(t.dims(), dims));
  if (check != dims) {
    return absl::InvalidArgumentError(absl::StrCat("cannot broadcast ", DimsString(t.dims()),
                                                   " to ", DimsString(dims)));
  }
  std::vector<int64_t> idx = BroadcastIndices(t.dims(), dims);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(t.dtype(), dims));
  const size_t es = ElementSize(t.dtype());
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(out.raw() + i * es, t.raw() + idx[i] * es, es);
  return out;
}

absl::Status WriteInPlace(Tensor& self, const Tensor& value) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(value, self.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor c, b.dtype() == self.dtype() ? b : CastTensor(b, self.dtype()));
  if (c.byte_size() > 0 && c.raw() != self.raw()) std::memcpy(self.raw(), c.raw(), c.byte_size());
  return absl::OkStatus();
}

DataType FloatResult(DataType input) { return IsFloatingPoint(input) ? input : DataType::kFloat; }

double WrapToWidth(int64_t v, DataType dtype) {
  switch (dtype) {
    case DataType::kUint8: return static_cast<uint8_t>(v);
    case DataType::kInt8: return static_cast<int8_t>(v);
    case DataType::kUint16: return static_cast<uint16_t>(v);
    case DataType::kInt16: return static_cast<int16_t>(v);
    case DataType::kUint32: return static_cast<uint32_t>(v);
    case DataType::kInt32: return static_cast<int32_t>(v);
    default: return static_cast<double>(v);
  }
}

}  // namespace pt2onnx::reference
