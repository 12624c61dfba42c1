#include "reference/index_support.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "reference/ref_tensor.h"

namespace pt2onnx::reference {

absl::StatusOr<std::vector<int64_t>> IndexValues(const Tensor& index) {
  if (index.dtype() != DataType::kInt64 && index.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(
        absl::StrCat("index tensors must be int64 or int32, got ", DataTypeName(index.dtype())));
  }
  return ToInts(index);
}

absl::StatusOr<int64_t> WrapIndex(int64_t v, int64_t size) {
  if (v < -size || v >= size) {
    return absl::InvalidArgumentError(
        absl::StrCat("index ", v, " is out of bounds for dimension with size ", size));
  }
  return v < 0 ? v + size : v;
}

std::vector<int64_t> Coords(int64_t flat, const Dims& dims) {
  std::vector<int64_t> c(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k] == 0) continue;
    c[k] = flat % dims[k];
    flat /= dims[k];
  }
  return c;
}

int64_t Offset(const std::vector<int64_t>& coords, const std::vector<int64_t>& strides) {
  int64_t o = 0;
  for (size_t k = 0; k < coords.size(); ++k) o += coords[k] * strides[k];
  return o;
}

void CopyElement(Tensor& dst, int64_t di, const Tensor& src, int64_t si) {
  const size_t es = ElementSize(dst.dtype());
  std::memcpy(dst.raw() + di * es, src.raw() + si * es, es);
}

}  // namespace pt2onnx::reference
