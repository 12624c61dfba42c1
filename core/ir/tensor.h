// File: core/ir/tensor.h
// -----------------------------------------------------------------------------
// Tensor: constant data held by the IR (initializers, Constant attributes).
// Its bytes are a slice of the input file (a weight used as is), a view of
// memory someone else keeps alive, or owned (a folded constant, a transposed
// or converted weight). File slices are what keep conversion from copying
// gigabytes: the ONNX writer splices them straight into the output (natively
// from the mmap, in the browser as slices of the user's File).
#ifndef PT2ONNX_CORE_IR_TENSOR_H_
#define PT2ONNX_CORE_IR_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/bytes.h"
#include "core/dtype.h"
#include "core/io/input_file.h"
#include "core/ir/transposed_slice.h"

namespace pt2onnx::ir {

class Tensor {
 public:
  Tensor() = default;

  // A view of `bytes`, which must hold exactly numel * element size bytes,
  // row-major, little-endian, and outlive every copy of this Tensor.
  static Tensor View(DataType dtype, std::vector<int64_t> dims, ByteSpan bytes);
  // Takes ownership of `bytes` (same layout rules).
  static Tensor Owned(DataType dtype, std::vector<int64_t> dims,
                      std::string bytes);
  // Bytes that stay in the input file (same layout rules); shares the file.
  static Tensor FromFile(DataType dtype, std::vector<int64_t> dims, FileSlice slice);
  // Bytes of the input file under a permutation, computed piece by piece when
  // written (transposed_slice.h) and in full only if bytes() is asked for.
  static Tensor Transposed(TransposedSlice transposed);

  // Small typed constants.
  static Tensor Int64s(std::vector<int64_t> dims,
                       absl::Span<const int64_t> values);
  static Tensor Int64Scalar(int64_t value);
  static Tensor Float32Scalar(float value);
  // A 0-d tensor of `dtype` holding `value` converted (float types, ints,
  // bool; bf16/fp16 rounded to nearest even).
  static Tensor Scalar(DataType dtype, double value);

  // The same bytes (shared, never copied) under other dims with the same
  // element count: a folded Reshape/Squeeze/Unsqueeze of a weight.
  Tensor Reshaped(std::vector<int64_t> dims) const;

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t numel() const;
  uint64_t byte_size() const;
  // The bytes. A slice of a streamed file (browser) is read on first use and
  // the copy kept by the file (once per tensor); bytes() is then empty if
  // that read failed, so use ReadBytes() where the error matters.
  ByteSpan bytes() const;
  absl::StatusOr<ByteSpan> ReadBytes() const;
  bool is_view() const { return owned_ == nullptr; }
  // Non-null when the bytes are a slice of the input file.
  const FileSlice* file_slice() const { return slice_.file ? &slice_ : nullptr; }
  // Non-null when the bytes are a transposed slice of the input file.
  const TransposedSlice* transposed_slice() const {
    return transposed_ != nullptr ? &transposed_->slice : nullptr;
  }
  // Whether a transposed slice's bytes were computed in full (someone asked
  // for bytes()): writers then write those instead of reading it again.
  bool transposed_in_memory() const { return transposed_ != nullptr && transposed_->read; }

  // Reads element `i` as double / int64 (any numeric dtype); for constant
  // folding and for translations that need a constant's value.
  double GetDouble(int64_t i) const;
  int64_t GetInt64(int64_t i) const;

 private:
  DataType dtype_ = DataType::kUndefined;
  std::vector<int64_t> dims_;
  ByteSpan view_;
  FileSlice slice_;
  mutable ByteSpan slice_bytes_;  // slice_ once read (see ReadBytes)
  mutable bool slice_read_ = false;
  std::shared_ptr<const std::string> owned_;
  struct Deferred {
    TransposedSlice slice;
    mutable std::string bytes;  // once read (see ReadBytes), shared by copies
    mutable bool read = false;
  };
  std::shared_ptr<const Deferred> transposed_;
};

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_TENSOR_H_
