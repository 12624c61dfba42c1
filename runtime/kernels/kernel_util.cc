#include "runtime/kernels/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/ir/half.h"

namespace pt2onnx::runtime {

int64_t AttrInt(const ir::Node& node, const char* name, int64_t fallback) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr ? a->i() : fallback;
}

float AttrFloat(const ir::Node& node, const char* name, float fallback) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr ? a->f() : fallback;
}

std::string AttrString(const ir::Node& node, const char* name, const std::string& fallback) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr ? a->s() : fallback;
}

std::vector<int64_t> AttrInts(const ir::Node& node, const char* name) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr ? a->ints() : std::vector<int64_t>{};
}

bool HasAttr(const ir::Node& node, const char* name) { return node.FindAttribute(name) != nullptr; }

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<std::vector<int64_t>> ReadInts(const Tensor& t, const char* what) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DataType::kInt64) {
    if (t.numel() > 0) std::memcpy(v.data(), t.data<int64_t>(), v.size() * 8);
  } else if (t.dtype() == DataType::kInt32) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.data<int32_t>()[i];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be int64 or int32, got ", DataTypeName(t.dtype())));
  }
  return v;
}

double ReadDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kInt32: return t.data<int32_t>()[i];
    case DataType::kInt16: return t.data<int16_t>()[i];
    case DataType::kInt8: return t.data<int8_t>()[i];
    case DataType::kUint8: return t.data<uint8_t>()[i];
    case DataType::kBool: return t.data<bool>()[i] ? 1 : 0;
    case DataType::kFloat16: return HalfToFloat(t.data<uint16_t>()[i]);
    case DataType::kBFloat16: return BFloat16ToFloat(t.data<uint16_t>()[i]);
    default: return NAN;
  }
}

std::vector<int64_t> ContiguousStrides(const Dims& dims) {
  std::vector<int64_t> s(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    s[i] = stride;
    stride *= dims[i];
  }
  return s;
}

std::vector<int64_t> BroadcastStrides(const Dims& dims, const Dims& out) {
  std::vector<int64_t> own = ContiguousStrides(dims);
  std::vector<int64_t> s(out.size(), 0);
  size_t offset = out.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) s[offset + i] = dims[i] == 1 ? 0 : own[i];
  return s;
}

absl::Status UnsupportedDtype(const char* op, DataType dtype) {
  return absl::UnimplementedError(
      absl::StrCat(op, " has no kernel for dtype ", DataTypeName(dtype)));
}

float HalfToFloat(uint16_t h) { return ir::HalfToFloat(h); }
uint16_t FloatToHalf(float f) { return ir::FloatToHalf(f); }

float BFloat16ToFloat(uint16_t b) { return ir::BFloat16ToFloat(b); }
uint16_t FloatToBFloat16(float f) { return ir::FloatToBFloat16(f); }

namespace {

template <typename T>
void StridedRows(const Dims& dims, const std::vector<int64_t> (&strides)[1], const uint8_t* src, uint8_t* dst) {
  const T* ps = reinterpret_cast<const T*>(src);
  T* pd = reinterpret_cast<T*>(dst);
  ForEachBroadcastRow(dims, strides, [&](int64_t i, const int64_t* o, int64_t n, const int64_t* s) {
    const T* from = ps + o[0];
    T* to = pd + i;
    if (s[0] == 1) {
      std::memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
    } else {
      const int64_t step = s[0];
      for (int64_t j = 0; j < n; ++j) to[j] = from[j * step];
    }
  });
}

}  // namespace

void StridedCopy(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides, Tensor& dst) {
  const int size = ElementSize(src.dtype());
  const uint8_t* ps = src.raw() + src_offset * size;
  uint8_t* pd = dst.raw();
  std::vector<int64_t> strides[1] = {src_strides};
  // Rows: a contiguous one is one memcpy, a strided one a typed loop.
  switch (size) {
    case 1: StridedRows<uint8_t>(dst.dims(), strides, ps, pd); return;
    case 2: StridedRows<uint16_t>(dst.dims(), strides, ps, pd); return;
    case 4: StridedRows<uint32_t>(dst.dims(), strides, ps, pd); return;
    case 8: StridedRows<uint64_t>(dst.dims(), strides, ps, pd); return;
    default:
      ForEachBroadcast(dst.dims(), strides, [&](int64_t i, const int64_t* o) {
        std::memcpy(pd + i * size, ps + o[0] * size, size);
      });
  }
}

}  // namespace pt2onnx::runtime
