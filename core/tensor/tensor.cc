#include "core/tensor/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pt2onnx {

Buffer::Buffer(size_t capacity) : capacity_(capacity) {
  size_t bytes = (capacity + kBufferSlack + 63) / 64 * 64;
  data_ = static_cast<uint8_t*>(std::aligned_alloc(64, bytes));
  if (data_ == nullptr) throw std::bad_alloc();
  // Deterministic contents (the slack is read, never used, by kernels).
  std::memset(data_ + capacity, 0, bytes - capacity);
}

Buffer::~Buffer() { std::free(data_); }

std::shared_ptr<Buffer> BufferPool::Acquire(size_t bytes) {
  size_t best = free_.size();
  for (size_t i = 0; i < free_.size(); ++i) {
    const size_t capacity = free_[i]->capacity();
    if (capacity >= bytes && capacity <= bytes * 2 + 256 &&
        (best == free_.size() || capacity < free_[best]->capacity())) {
      best = i;
    }
  }
  if (best < free_.size()) {
    std::shared_ptr<Buffer> buffer = std::move(free_[best]);
    free_[best] = std::move(free_.back());
    free_.pop_back();
    return buffer;
  }
  allocated_bytes_ += bytes;
  return std::make_shared<Buffer>(bytes);
}

void BufferPool::Release(std::shared_ptr<Buffer> buffer) {
  if (buffer == nullptr || buffer.use_count() != 1) return;  // still aliased elsewhere
  free_.push_back(std::move(buffer));
}

absl::StatusOr<int64_t> CheckedNumel(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("negative dimension in ", DimsString(dims)));
    // No division per dim: this runs for every tensor of every run.
    if (__builtin_mul_overflow(n, d, &n)) {
      return absl::InvalidArgumentError(absl::StrCat("tensor too large: ", DimsString(dims)));
    }
  }
  return n;
}

std::string DimsString(const Dims& dims) { return absl::StrCat("[", absl::StrJoin(dims, ", "), "]"); }

absl::StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", DimsString(a), " and ", DimsString(b), " do not broadcast"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<Tensor> Tensor::Allocate(DataType dtype, Dims dims, BufferPool* pool) {
  int size = ElementSize(dtype);
  if (size == 0) {
    return absl::UnimplementedError(absl::StrCat("tensors of dtype ", DataTypeName(dtype), " are not supported"));
  }
  auto numel = CheckedNumel(dims);
  if (!numel.ok()) return numel.status();
  // 2^40 bytes natively, 1 GiB in wasm32 (where size_t is 32 bits and a
  // bigger product would wrap): rejects hostile shapes before malloc does.
  constexpr uint64_t kMaxBytes =
      sizeof(size_t) >= 8 ? uint64_t{1} << 40 : uint64_t{1} << 30;
  if (static_cast<uint64_t>(*numel) > kMaxBytes / static_cast<uint64_t>(size)) {
    return absl::ResourceExhaustedError(absl::StrCat("tensor ", DimsString(dims), " is too large"));
  }
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.numel_ = *numel;
  size_t bytes = static_cast<size_t>(*numel) * size;
  t.buffer_ = pool != nullptr ? pool->Acquire(bytes) : std::make_shared<Buffer>(bytes);
  return t;
}

Tensor Tensor::Alias(Dims dims) const {
  Tensor t = *this;
  t.dims_ = std::move(dims);
  return t;
}

size_t Tensor::byte_size() const { return static_cast<size_t>(numel_) * ElementSize(dtype_); }

}  // namespace pt2onnx
