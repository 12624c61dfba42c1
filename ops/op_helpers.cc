#include "ops/op_helpers.h"

#include <utility>

namespace pt2onnx::ops {

int64_t NormalizeAxis(int64_t axis, int64_t rank) {
  int64_t r = rank == 0 ? 1 : rank;
  return axis < 0 ? axis + r : axis;
}

std::string Unsqueeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes) {
  return ctx.Op("Unsqueeze", {x, ctx.ConstantInt64s(std::move(axes))});
}

std::string Squeeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes) {
  return ctx.Op("Squeeze", {x, ctx.ConstantInt64s(std::move(axes))});
}

std::string Reshape(TranslateContext& ctx, const std::string& x, std::vector<int64_t> shape) {
  return ctx.Op("Reshape", {x, ctx.ConstantInt64s(std::move(shape))});
}

std::string ShapeSlice(TranslateContext& ctx, const std::string& x, int64_t start, int64_t end) {
  return ctx.Op("Shape", {x}, {ir::Attribute::Int("start", start), ir::Attribute::Int("end", end)});
}

}  // namespace pt2onnx::ops
