#include "reference/ref_tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/ir/half.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {

absl::StatusOr<Tensor> NewTensor(DataType dtype, const Dims& dims) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, dims, nullptr));
  if (t.byte_size() > 0) std::memset(t.raw(), 0, t.byte_size());
  return t;
}

namespace {

template <typename T>
T Get(const Tensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.raw() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void Put(Tensor& t, int64_t i, T v) {
  std::memcpy(t.raw() + i * sizeof(T), &v, sizeof(T));
}

// Float -> int as torch's CPU cast does on x86-64 (where expected outputs
// are recorded): truncation, and NaN or out-of-range values give the
// "integer indefinite" INT64_MIN (C++ leaves them undefined).
int64_t TruncToInt(double v) {
  if (!(v >= -9.2233720368547758e18 && v < 9.2233720368547758e18)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace

bool IsFloatLike(DataType dtype) { return IsFloatingPoint(dtype); }

double LoadDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return Get<float>(t, i);
    case DataType::kDouble: return Get<double>(t, i);
    case DataType::kFloat16: return ir::HalfToFloat(Get<uint16_t>(t, i));
    case DataType::kBFloat16: return ir::BFloat16ToFloat(Get<uint16_t>(t, i));
    case DataType::kUint64: return static_cast<double>(Get<uint64_t>(t, i));
    case DataType::kComplex64: return Get<float>(t, 2 * i);  // the real part, as a cast to real
    case DataType::kComplex128: return Get<double>(t, 2 * i);
    default: return static_cast<double>(LoadInt(t, i));
  }
}

int64_t LoadInt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kBool: return Get<uint8_t>(t, i) != 0;
    case DataType::kUint8: return Get<uint8_t>(t, i);
    case DataType::kInt8: return Get<int8_t>(t, i);
    case DataType::kUint16: return Get<uint16_t>(t, i);
    case DataType::kInt16: return Get<int16_t>(t, i);
    case DataType::kUint32: return Get<uint32_t>(t, i);
    case DataType::kInt32: return Get<int32_t>(t, i);
    case DataType::kUint64: return static_cast<int64_t>(Get<uint64_t>(t, i));
    case DataType::kInt64: return Get<int64_t>(t, i);
    default: return TruncToInt(LoadDouble(t, i));
  }
}

void StoreDouble(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DataType::kFloat: Put<float>(t, i, static_cast<float>(v)); return;
    case DataType::kDouble: Put<double>(t, i, v); return;
    case DataType::kFloat16: Put<uint16_t>(t, i, ir::FloatToHalf(static_cast<float>(v))); return;
    case DataType::kBFloat16: Put<uint16_t>(t, i, ir::FloatToBFloat16(static_cast<float>(v))); return;
    case DataType::kBool: Put<uint8_t>(t, i, v != 0 ? 1 : 0); return;
    case DataType::kComplex64:
      Put<float>(t, 2 * i, static_cast<float>(v));
      Put<float>(t, 2 * i + 1, 0.0f);
      return;
    case DataType::kComplex128:
      Put<double>(t, 2 * i, v);
      Put<double>(t, 2 * i + 1, 0.0);
      return;
    default: StoreInt(t, i, TruncToInt(v)); return;
  }
}

void StoreInt(Tensor& t, int64_t i, int64_t v) {
  switch (t.dtype()) {
    case DataType::kBool: Put<uint8_t>(t, i, v != 0 ? 1 : 0); return;
    case DataType::kUint8: Put<uint8_t>(t, i, static_cast<uint8_t>(v)); return;
    case DataType::kInt8: Put<int8_t>(t, i, static_cast<int8_t>(v)); return;
    case DataType::kUint16: Put<uint16_t>(t, i, static_cast<uint16_t>(v)); return;
    case DataType::kInt16: Put<int16_t>(t, i, static_cast<int16_t>(v)); return;
    case DataType::kUint32: Put<uint32_t>(t, i, static_cast<uint32_t>(v)); return;
    case DataType::kInt32: Put<int32_t>(t, i, static_cast<int32_t>(v)); return;
    case DataType::kUint64: Put<uint64_t>(t, i, static_cast<uint64_t>(v)); return;
    case DataType::kInt64: Put<int64_t>(t, i, v); return;
    default: StoreDouble(t, i, static_cast<double>(v)); return;
  }
}

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> v(t.numel());
  if (t.dtype() == DataType::kFloat) {
    const float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = p[i];
    return v;
  }
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = LoadDouble(t, i);
  return v;
}

std::vector<int64_t> ToInts(const Tensor& t) {
  std::vector<int64_t> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = LoadInt(t, i);
  return v;
}

absl::StatusOr<Tensor> FromDoubles(DataType dtype, const Dims& dims, absl::Span<const double> v) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype, dims));
  if (static_cast<int64_t>(v.size()) != t.numel()) {
    return absl::InternalError(absl::StrCat("reference: ", v.size(), " values for ",
                                            DimsString(dims)));
  }
  if (dtype == DataType::kFloat) {
    float* p = t.data<float>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<float>(v[i]);
    return t;
  }
  for (size_t i = 0; i < v.size(); ++i) StoreDouble(t, static_cast<int64_t>(i), v[i]);
  return t;
}

absl::StatusOr<Tensor> FromInts(DataType dtype, const Dims& dims, absl::Span<const int64_t> v) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype, dims));
  if (static_cast<int64_t>(v.size()) != t.numel()) {
    return absl::InternalError(absl::StrCat("reference: ", v.size(), " values for ",
                                            DimsString(dims)));
  }
  for (size_t i = 0; i < v.size(); ++i) StoreInt(t, static_cast<int64_t>(i), v[i]);
  return t;
}

absl::StatusOr<Tensor> CastTensor(const Tensor& t, DataType dtype) {
  if (IsComplex(dtype) && IsComplex(t.dtype())) {  // both parts, rounded
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, t.dims()));
    for (int64_t i = 0; i < 2 * t.numel(); ++i) {
      const double v = t.dtype() == DataType::kComplex64 ? Get<float>(t, i) : Get<double>(t, i);
      if (dtype == DataType::kComplex64) Put<float>(out, i, static_cast<float>(v));
      else Put<double>(out, i, v);
    }
    return out;
  }
  if (IsComplex(dtype)) return FromDoubles(dtype, t.dims(), ToDoubles(t));
  if (IsFloatLike(dtype) || dtype == DataType::kBool) {
    if (dtype == DataType::kBool && !IsFloatLike(t.dtype())) {
      return FromInts(dtype, t.dims(), ToInts(t));
    }
    return FromDoubles(dtype, t.dims(), ToDoubles(t));
  }
  return FromInts(dtype, t.dims(), ToInts(t));
}

absl::StatusOr<Tensor> CopyTensor(const Tensor& t) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(t.dtype(), t.dims()));
  if (t.byte_size() > 0) std::memcpy(out.raw(), t.raw(), t.byte_size());
  return out;
}

absl::StatusOr<Tensor> ScalarTensor(DataType dtype, double v) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype, {}));
  StoreDouble(t, 0, v);
  return t;
}

std::vector<int64_t> RowMajorStrides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}

absl::StatusOr<int64_t> WrapDim(int64_t dim, int64_t rank) {
  int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim ", dim, " is out of range for a tensor of rank ", rank));
  }
  return dim < 0 ? dim + r : dim;
}

std::vector<int64_t> BroadcastIndices(const Dims& in, const Dims& out) {
  int64_t numel = 1;
  for (int64_t d : out) numel *= d;
  std::vector<int64_t> index(numel, 0);
  const size_t rank = out.size(), shift = rank - in.size();
  std::vector<int64_t> in_strides = RowMajorStrides(in), strides(rank, 0);
  for (size_t d = shift; d < rank; ++d) strides[d] = in[d - shift] == 1 ? 0 : in_strides[d - shift];
  std::vector<int64_t> pos(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < numel; ++i) {
    index[i] = offset;
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      ++pos[d];
      offset += strides[d];
      if (pos[d] < out[d]) break;
      offset -= strides[d] * out[d];
      pos[d] = 0;
    }
  }
  return index;
}

absl::StatusOr<Tensor> GatherStrided(const Tensor& src, const Dims& sizes,
                                     const std::vector<int64_t>& strides, int64_t offset) {
  if (sizes.size() != strides.size()) return absl::InvalidArgumentError("sizes and strides differ in rank");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(src.dtype(), sizes));
  if (out.numel() == 0) return out;
  // Bounds of the view, with overflow-safe arithmetic on small models.
  std::optional<int64_t> lo = offset, hi = offset;
  for (size_t d = 0; d < sizes.size() && lo && hi; ++d) {
    std::optional<int64_t> span = CheckedMul(strides[d], sizes[d] - 1);
    if (!span) return absl::InvalidArgumentError("a strided view overflows int64");
    if (*span > 0) hi = CheckedAdd(*hi, *span); else lo = CheckedAdd(*lo, *span);
  }
  if (!lo || !hi) return absl::InvalidArgumentError("a strided view overflows int64");
  if (*lo < 0 || *hi >= src.numel()) {
    return absl::InvalidArgumentError(absl::StrCat("a strided view reaches element ", *lo < 0 ? *lo : *hi,
                                                   " of a tensor of ", src.numel()));
  }
  const size_t es = ElementSize(src.dtype());
  const size_t rank = sizes.size();
  std::vector<int64_t> pos(rank, 0);
  int64_t at = offset;
  for (int64_t i = 0; i < out.numel(); ++i) {
    std::memcpy(out.raw() + i * es, src.raw() + at * es, es);
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      ++pos[d];
      at += strides[d];
      if (pos[d] < sizes[d]) break;
      at -= strides[d] * sizes[d];
      pos[d] = 0;
    }
  }
  return out;
}

}  // namespace pt2onnx::reference
