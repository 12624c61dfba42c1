#include "core/ir/tensor.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "core/ir/half.h"
#include "core/status_macros.h"

namespace pt2onnx::ir {
namespace {

// double -> int64 as x86's cvttsd2si does (what torch's casts give there):
// truncation toward zero, and INT64_MIN for NaN or a value outside int64,
// where a C++ cast would be undefined behaviour (a file's huge int argument
// arrives here as a double).
int64_t TruncateToInt64(double value) {
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(value);
}

uint64_t TruncateToUint64(double value) {
  if (value >= 0 && value < 18446744073709551616.0) return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(TruncateToInt64(value));
}

template <typename T>
std::string PackScalar(T value) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

Tensor Tensor::View(DataType dtype, std::vector<int64_t> dims, ByteSpan bytes) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.view_ = bytes;
  return t;
}

Tensor Tensor::Reshaped(std::vector<int64_t> dims) const {
  Tensor t = *this;
  t.dims_ = std::move(dims);
  return t;
}

Tensor Tensor::Owned(DataType dtype, std::vector<int64_t> dims,
                     std::string bytes) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.owned_ = std::make_shared<const std::string>(std::move(bytes));
  return t;
}

Tensor Tensor::FromFile(DataType dtype, std::vector<int64_t> dims, FileSlice slice) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.slice_ = std::move(slice);
  return t;
}

Tensor Tensor::Transposed(TransposedSlice transposed) {
  Tensor t;
  t.dtype_ = transposed.dtype;
  t.dims_ = transposed.Dims();
  t.transposed_ = std::make_shared<const Deferred>(Deferred{std::move(transposed), {}, false});
  return t;
}

Tensor Tensor::Int64s(std::vector<int64_t> dims,
                      absl::Span<const int64_t> values) {
  std::string bytes(values.size() * sizeof(int64_t), '\0');
  if (!values.empty()) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  return Owned(DataType::kInt64, std::move(dims), std::move(bytes));
}

Tensor Tensor::Int64Scalar(int64_t value) {
  return Owned(DataType::kInt64, {}, PackScalar(value));
}

Tensor Tensor::Float32Scalar(float value) {
  return Owned(DataType::kFloat, {}, PackScalar(value));
}

Tensor Tensor::Scalar(DataType dtype, double value) {
  std::string bytes;
  switch (dtype) {
    case DataType::kFloat: bytes = PackScalar(static_cast<float>(value)); break;
    case DataType::kDouble: bytes = PackScalar(value); break;
    case DataType::kFloat16: bytes = PackScalar(FloatToHalf(static_cast<float>(value))); break;
    case DataType::kBFloat16: bytes = PackScalar(FloatToBFloat16(static_cast<float>(value))); break;
    // Narrower integers wrap from int64, as torch's casts do.
    case DataType::kInt8: bytes = PackScalar(static_cast<int8_t>(TruncateToInt64(value))); break;
    case DataType::kUint8: bytes = PackScalar(static_cast<uint8_t>(TruncateToInt64(value))); break;
    case DataType::kInt16: bytes = PackScalar(static_cast<int16_t>(TruncateToInt64(value))); break;
    case DataType::kUint16: bytes = PackScalar(static_cast<uint16_t>(TruncateToInt64(value))); break;
    case DataType::kInt32: bytes = PackScalar(static_cast<int32_t>(TruncateToInt64(value))); break;
    case DataType::kUint32: bytes = PackScalar(static_cast<uint32_t>(TruncateToInt64(value))); break;
    case DataType::kInt64: bytes = PackScalar(TruncateToInt64(value)); break;
    case DataType::kUint64: bytes = PackScalar(TruncateToUint64(value)); break;
    case DataType::kBool: bytes = PackScalar(static_cast<uint8_t>(value != 0)); break;
    default:
      // Callers only ask for numeric types; keep a defined result anyway.
      return Float32Scalar(static_cast<float>(value));
  }
  return Owned(dtype, {}, std::move(bytes));
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

uint64_t Tensor::byte_size() const {
  if (owned_ != nullptr) return owned_->size();
  if (slice_.file != nullptr) return slice_.size();
  if (transposed_ != nullptr) return transposed_->slice.source.size();
  return view_.size();
}

absl::StatusOr<ByteSpan> Tensor::ReadBytes() const {
  if (transposed_ != nullptr) {
    if (!transposed_->read) {
      PT2ONNX_ASSIGN_OR_RETURN(transposed_->bytes, ReadTransposed(transposed_->slice));
      transposed_->read = true;
    }
    return AsBytes(transposed_->bytes);
  }
  if (slice_.file == nullptr) return bytes();
  // The file keeps what it reads (views of an mmap, copies of a streamed
  // file) for its lifetime, so one read per tensor is enough.
  if (!slice_read_) {
    PT2ONNX_ASSIGN_OR_RETURN(slice_bytes_, slice_.file->Read(slice_.range));
    slice_read_ = true;
  }
  return slice_bytes_;
}

ByteSpan Tensor::bytes() const {
  if (owned_ != nullptr) return AsBytes(*owned_);
  if (slice_.file != nullptr || transposed_ != nullptr) {
    absl::StatusOr<ByteSpan> read = ReadBytes();
    return read.ok() ? *read : ByteSpan();
  }
  return view_;
}

double Tensor::GetDouble(int64_t i) const {
  const ByteSpan all = bytes();
  const int64_t elem = ElementSize(dtype_);
  if (i < 0 || elem <= 0 || static_cast<uint64_t>((i + 1) * elem) > all.size()) return 0;
  const uint8_t* p = all.data() + i * elem;
  switch (dtype_) {
    case DataType::kFloat: return Load<float>(p);
    case DataType::kDouble: return Load<double>(p);
    case DataType::kFloat16: return HalfToFloat(Load<uint16_t>(p));
    case DataType::kBFloat16: return BFloat16ToFloat(Load<uint16_t>(p));
    default: return static_cast<double>(GetInt64(i));
  }
}

int64_t Tensor::GetInt64(int64_t i) const {
  const ByteSpan all = bytes();
  const int64_t elem = ElementSize(dtype_);
  if (i < 0 || elem <= 0 || static_cast<uint64_t>((i + 1) * elem) > all.size()) return 0;
  const uint8_t* p = all.data() + i * elem;
  switch (dtype_) {
    case DataType::kInt8: return Load<int8_t>(p);
    case DataType::kUint8: return Load<uint8_t>(p);
    case DataType::kBool: return Load<uint8_t>(p) != 0;
    case DataType::kInt16: return Load<int16_t>(p);
    case DataType::kUint16: return Load<uint16_t>(p);
    case DataType::kInt32: return Load<int32_t>(p);
    case DataType::kUint32: return Load<uint32_t>(p);
    case DataType::kInt64: return Load<int64_t>(p);
    case DataType::kUint64: return static_cast<int64_t>(Load<uint64_t>(p));
    default: return static_cast<int64_t>(std::llround(GetDouble(i)));
  }
}

}  // namespace pt2onnx::ir
