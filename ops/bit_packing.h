// File: ops/bit_packing.h
// -----------------------------------------------------------------------------
// Bits moved between unsigned integer elements of different widths, the
// lowest bytes first (a tensor's little-endian layout), in a 32- or 64-bit
// accumulator: ONNX Runtime's BitShift has no 16-bit kernel. Used by
// view(dtype) (bit_views.cc) and hash_tensor (float_representation.cc).
//
//   std::string bytes = SplitElements(ctx, u32, /*rank=*/2, 4, 1);  // [r, n] -> [r, 4n] uint8
#ifndef PT2ONNX_OPS_BIT_PACKING_H_
#define PT2ONNX_OPS_BIT_PACKING_H_

#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "ops/translate_api.h"

namespace pt2onnx::ops {

// The unsigned integer dtype of `bytes` (1, 2, 4 or 8) bytes.
DataType UnsignedOfWidth(int bytes);

// A 1-D constant of `dtype` (uint32 or uint64): 0, step, 2*step, ... (`count` values).
std::string ShiftAmounts(TranslateContext& ctx, DataType dtype, int count, int step);

// [..., n] of `in_bytes`-wide unsigned values (`rank` dims) -> [..., n * in_bytes / out_bytes]
// of `out_bytes`-wide ones.
std::string SplitElements(TranslateContext& ctx, const std::string& u, int64_t rank, int in_bytes, int out_bytes);

// [..., n * ratio] of `in_bytes`-wide unsigned values (`rank` dims) -> [..., n] of
// `out_bytes`-wide ones, ratio = out_bytes / in_bytes consecutive inputs each.
std::string JoinElements(TranslateContext& ctx, const std::string& u, int64_t rank, int in_bytes, int out_bytes);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_BIT_PACKING_H_
