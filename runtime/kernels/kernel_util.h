// File: runtime/kernels/kernel_util.h
// -----------------------------------------------------------------------------
// Shared helpers of the kernel families: attribute reading, dtype dispatch,
// axis checks, broadcasting, half-precision conversion.
#ifndef PT2ONNX_RUNTIME_KERNELS_KERNEL_UTIL_H_
#define PT2ONNX_RUNTIME_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/graph.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::runtime {

int64_t AttrInt(const ir::Node& node, const char* name, int64_t fallback);
float AttrFloat(const ir::Node& node, const char* name, float fallback);
std::string AttrString(const ir::Node& node, const char* name, const std::string& fallback);
std::vector<int64_t> AttrInts(const ir::Node& node, const char* name);
bool HasAttr(const ir::Node& node, const char* name);

// `axis` in [-rank, rank) made non-negative, or InvalidArgument naming it.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const char* what = "axis");

// The values of an int64/int32 tensor (shape-like inputs: axes, starts, shapes).
absl::StatusOr<std::vector<int64_t>> ReadInts(const Tensor& t, const char* what);
// Element i of any numeric tensor as double (scalars like Clip's min).
double ReadDouble(const Tensor& t, int64_t i);

// Element strides of `dims` seen as `out` (right-aligned; 0 on broadcast dims).
std::vector<int64_t> BroadcastStrides(const Dims& dims, const Dims& out);
std::vector<int64_t> ContiguousStrides(const Dims& dims);

absl::Status UnsupportedDtype(const char* op, DataType dtype);

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float BFloat16ToFloat(uint16_t b);
uint16_t FloatToBFloat16(float f);  // round to nearest even; NaN stays NaN

// Calls f(T{}) with T the C++ type of `dtype`; the set allowed is chosen
// by the flags. bool is visited as bool, half types are not visited
// (kernels registered kViaFloat32 receive float32 instead).
enum TypeSet : unsigned { kFloats = 1, kInts = 2, kBools = 4, kAll = 7 };

template <typename F>
absl::Status VisitDtype(DataType dtype, unsigned set, const char* op, F&& f) {
  switch (dtype) {
    case DataType::kFloat: if (set & kFloats) { f(float{}); return absl::OkStatus(); } break;
    case DataType::kDouble: if (set & kFloats) { f(double{}); return absl::OkStatus(); } break;
    case DataType::kInt64: if (set & kInts) { f(int64_t{}); return absl::OkStatus(); } break;
    case DataType::kInt32: if (set & kInts) { f(int32_t{}); return absl::OkStatus(); } break;
    case DataType::kInt16: if (set & kInts) { f(int16_t{}); return absl::OkStatus(); } break;
    case DataType::kInt8: if (set & kInts) { f(int8_t{}); return absl::OkStatus(); } break;
    case DataType::kUint8: if (set & kInts) { f(uint8_t{}); return absl::OkStatus(); } break;
    case DataType::kUint16: if (set & kInts) { f(uint16_t{}); return absl::OkStatus(); } break;
    case DataType::kUint32: if (set & kInts) { f(uint32_t{}); return absl::OkStatus(); } break;
    case DataType::kUint64: if (set & kInts) { f(uint64_t{}); return absl::OkStatus(); } break;
    case DataType::kBool: if (set & kBools) { f(bool{}); return absl::OkStatus(); } break;
    default: break;
  }
  return UnsupportedDtype(op, dtype);
}

// Binds `var` to required input i, or returns its error.
#define PT2ONNX_INPUT(var, i)               \
  auto var##_or = ctx.RequiredInput(i);     \
  if (!var##_or.ok()) return var##_or.status(); \
  const Tensor& var = **var##_or

// Copies `src` into `dst` element by element through `src_strides` (given
// per output dim, in elements) starting at element `src_offset`.
void StridedCopy(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides, Tensor& dst);

// Walks `out` (row-major) a row (innermost dim) at a time: f(out_index,
// offsets, n, inner_strides) for the n elements starting at out_index, with
// the element offsets of inputs whose strides are given (per output dim), so
// a kernel can give the common stride patterns (1 and 0) loops the compiler
// vectorises.
template <size_t N, typename F>
void ForEachBroadcastRow(const Dims& out, const std::vector<int64_t> (&strides)[N], F&& f) {
  const size_t rank = out.size();
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  if (total == 0) return;
  std::vector<int64_t> index(rank, 0);
  int64_t offsets[N] = {};
  const int64_t inner = rank == 0 ? 1 : out[rank - 1];
  int64_t inner_stride[N];
  for (size_t k = 0; k < N; ++k) inner_stride[k] = rank == 0 ? 0 : strides[k][rank - 1];
  for (int64_t linear = 0; linear < total; linear += inner) {
    f(linear, static_cast<const int64_t*>(offsets), inner, static_cast<const int64_t*>(inner_stride));
    for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
      ++index[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
      if (index[d] < out[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * out[d];
      index[d] = 0;
    }
  }
}

// The same an element at a time: f(out_index, offsets) with the matching
// element offsets of each input.
template <size_t N, typename F>
void ForEachBroadcast(const Dims& out, const std::vector<int64_t> (&strides)[N], F&& f) {
  ForEachBroadcastRow(out, strides, [&](int64_t start, const int64_t* offsets, int64_t n, const int64_t* inner) {
    int64_t o[N];
    for (size_t k = 0; k < N; ++k) o[k] = offsets[k];
    for (int64_t j = 0; j < n; ++j) {
      f(start + j, o);
      for (size_t k = 0; k < N; ++k) o[k] += inner[k];
    }
  });
}

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_KERNEL_UTIL_H_
