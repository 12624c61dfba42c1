// File: core/onnx/inference_guard.h
// -----------------------------------------------------------------------------
// ONNX's shape inference (onnx 1.17 to 1.21) computes output sizes with unchecked
// int64 and double-to-int64 arithmetic: a Range whose constant bounds span
// more than 2^63 values, or a ConvTranspose stride of 2^63-1, is undefined
// behaviour inside the library. A hostile file can put such values in the
// graph, so the checker refuses them before the library sees them.
#ifndef PT2ONNX_CORE_ONNX_INFERENCE_GUARD_H_
#define PT2ONNX_CORE_ONNX_INFERENCE_GUARD_H_

#include <cstdint>

#include "absl/status/status.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx::onnx_writer {

// Largest attribute value, constant pad/repeat and spatial dimension the
// guarded operators may carry: products of two stay below 2^60 and sums of a
// few below 2^62. No real model comes near (a billion pixels in one axis).
inline constexpr int64_t kMaxInferenceOperand = int64_t{1} << 30;

// InvalidArgument naming the first node (main graph or subgraph) whose
// constant inputs or attributes would overflow ONNX's shape inference:
// Range (element count beyond int64, or limit - start beyond its type, or
// delta 0), the Conv/ConvTranspose/pooling family (attribute ints, the
// data's known spatial dims and the weight's dims beyond kMaxInferenceOperand), Pad (constant
// pads beyond it), Tile (a dim times its repeat beyond 2^62), Reshape (a
// constant target shape of more than 2^62 elements) and Resize/Upsample (a
// constant scale that is not finite or scales a dim beyond 2^62).
absl::Status CheckInferenceArithmetic(const ::onnx::GraphProto& graph);

}  // namespace pt2onnx::onnx_writer

#endif  // PT2ONNX_CORE_ONNX_INFERENCE_GUARD_H_
