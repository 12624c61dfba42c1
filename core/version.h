// File: core/version.h
// -----------------------------------------------------------------------------
// The converter's version: printed by `pt2onnx --version` and written as the
// ONNX model's producer_version.
#ifndef PT2ONNX_CORE_VERSION_H_
#define PT2ONNX_CORE_VERSION_H_

namespace pt2onnx {

inline constexpr char kPt2OnnxVersion[] = "0.2.0";

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_VERSION_H_
