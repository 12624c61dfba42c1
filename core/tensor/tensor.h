// File: core/tensor/tensor.h
// -----------------------------------------------------------------------------
// Tensors of the two execution engines (runtime/, reference/): a dtype, concrete dims and a shared, 64-byte
// aligned buffer with slack after the end (XNNPACK kernels may read up to
// XNN_EXTRA_BYTES past the last element). Buffers come from a BufferPool so a
// session reuses the memory of values that are no longer needed.
#ifndef PT2ONNX_CORE_TENSOR_TENSOR_H_
#define PT2ONNX_CORE_TENSOR_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dtype.h"

namespace pt2onnx {

using Dims = std::vector<int64_t>;

// Bytes read past the end of a buffer by vectorised kernels are allowed.
inline constexpr size_t kBufferSlack = 256;  // >= XNN_EXTRA_BYTES (128)

class Buffer {
 public:
  explicit Buffer(size_t capacity);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  uint8_t* data() const { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

// Free buffers; Acquire returns the smallest free one that fits (at most
// twice the request, so big buffers are not wasted on small values). A plain
// vector scanned in full: a session holds tens of free buffers, and a
// release then costs no allocation (a multimap allocated a node per release).
class BufferPool {
 public:
  std::shared_ptr<Buffer> Acquire(size_t bytes);
  void Release(std::shared_ptr<Buffer> buffer);
  size_t allocated_bytes() const { return allocated_bytes_; }

 private:
  std::vector<std::shared_ptr<Buffer>> free_;
  size_t allocated_bytes_ = 0;
};

// Product of dims, or an error when it overflows int64 / is negative.
absl::StatusOr<int64_t> CheckedNumel(const Dims& dims);
std::string DimsString(const Dims& dims);
// The broadcast of two shapes (NumPy's rules, which torch and ONNX share), or
// an error naming both.
absl::StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b);

class Tensor {
 public:
  Tensor() = default;
  // A new tensor; its buffer comes from `pool` (or the heap when null).
  static absl::StatusOr<Tensor> Allocate(DataType dtype, Dims dims, BufferPool* pool);
  // Same bytes, other dims (Reshape, Squeeze, Identity): no copy.
  Tensor Alias(Dims dims) const;

  DataType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  int64_t dim(size_t i) const { return dims_[i]; }
  int64_t numel() const { return numel_; }
  size_t byte_size() const;
  bool empty_value() const { return buffer_ == nullptr; }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }

  template <typename T>
  T* data() { return reinterpret_cast<T*>(buffer_ ? buffer_->data() : nullptr); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(buffer_ ? buffer_->data() : nullptr); }
  uint8_t* raw() { return data<uint8_t>(); }
  const uint8_t* raw() const { return data<uint8_t>(); }

 private:
  DataType dtype_ = DataType::kUndefined;
  Dims dims_;
  int64_t numel_ = 0;
  std::shared_ptr<Buffer> buffer_;
};

// A tensor with the graph value name it is bound to (inputs and outputs of
// the executor and the reference interpreter).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_TENSOR_TENSOR_H_
