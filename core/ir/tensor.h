// File: core/ir/tensor.h
// -----------------------------------------------------------------------------
// Tensor: constant data held by the IR (initializers, Constant attributes).
// Its bytes are either a view into the input file (a weight used as is; the
// file's owner keeps it alive) or owned (a folded constant, a transposed or
// converted weight). Views are what keep conversion from copying gigabytes:
// the ONNX writer streams them straight to the output.
#ifndef PT2ONNX_CORE_IR_TENSOR_H_
#define PT2ONNX_CORE_IR_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/bytes.h"
#include "core/dtype.h"

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

  // Small typed constants.
  static Tensor Int64s(std::vector<int64_t> dims,
                       absl::Span<const int64_t> values);
  static Tensor Int64Scalar(int64_t value);
  static Tensor Float32Scalar(float value);
  // A 0-d tensor of `dtype` holding `value` converted (float types, ints,
  // bool; bf16/fp16 rounded to nearest even).
  static Tensor Scalar(DataType dtype, double value);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t numel() const;
  ByteSpan bytes() const;
  bool is_view() const { return owned_ == nullptr; }

  // Reads element `i` as double / int64 (any numeric dtype); for constant
  // folding and for translations that need a constant's value.
  double GetDouble(int64_t i) const;
  int64_t GetInt64(int64_t i) const;

 private:
  DataType dtype_ = DataType::kUndefined;
  std::vector<int64_t> dims_;
  ByteSpan view_;
  std::shared_ptr<const std::string> owned_;
};

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_TENSOR_H_
