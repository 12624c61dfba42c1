// File: ops/op_helpers.h
// -----------------------------------------------------------------------------
// Small emission helpers several op families share (axis normalisation,
// reshapes with constant shapes, unsqueeze/squeeze by constant axes).
#ifndef PT2ONNX_OPS_OP_HELPERS_H_
#define PT2ONNX_OPS_OP_HELPERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ops/translate_context.h"

namespace pt2onnx::ops {

// Python-style negative axis -> [0, rank). Rank-0 tensors accept 0 and -1.
int64_t NormalizeAxis(int64_t axis, int64_t rank);

std::string Unsqueeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes);
std::string Squeeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes);
std::string Reshape(TranslateContext& ctx, const std::string& x, std::vector<int64_t> shape);
// Shape(x)[start:end] as a 1-D INT64 value.
std::string ShapeSlice(TranslateContext& ctx, const std::string& x, int64_t start, int64_t end);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_OP_HELPERS_H_
