#include "ops/bit_packing.h"

#include <utility>
#include <vector>

#include "core/ir/tensor.h"

namespace pt2onnx::ops {

DataType UnsignedOfWidth(int bytes) {
  switch (bytes) {
    case 1: return DataType::kUint8;
    case 2: return DataType::kUint16;
    case 4: return DataType::kUint32;
    default: return DataType::kUint64;
  }
}

std::string ShiftAmounts(TranslateContext& ctx, DataType dtype, int count, int step) {
  std::string bytes;
  for (int i = 0; i < count; ++i) {
    const uint64_t shift = static_cast<uint64_t>(i) * step;
    if (dtype == DataType::kUint32) {
      const uint32_t v = static_cast<uint32_t>(shift);
      bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    } else {
      bytes.append(reinterpret_cast<const char*>(&shift), sizeof shift);
    }
  }
  return ctx.Constant(ir::Tensor::Owned(dtype, {count}, std::move(bytes)));
}

std::string SplitElements(TranslateContext& ctx, const std::string& u, int64_t rank, int in_bytes, int out_bytes) {
  const DataType acc = UnsignedOfWidth(in_bytes == 8 ? 8 : 4);
  const int ratio = in_bytes / out_bytes;
  std::string wide = ctx.CastTo(u, UnsignedOfWidth(in_bytes), acc);
  std::string parts = ctx.Op("BitShift", {Unsqueeze(ctx, wide, {-1}), ShiftAmounts(ctx, acc, ratio, 8 * out_bytes)},
                             {ir::Attribute::String("direction", "RIGHT")});
  const uint64_t mask = (uint64_t{1} << (8 * out_bytes)) - 1;
  parts = ctx.Op("BitwiseAnd", {parts, ctx.ConstantScalar(acc, static_cast<double>(mask))});
  parts = ctx.CastTo(parts, acc, UnsignedOfWidth(out_bytes));
  std::vector<int64_t> shape(static_cast<size_t>(rank - 1), 0);
  shape.push_back(-1);
  return Reshape(ctx, parts, shape);
}

std::string JoinElements(TranslateContext& ctx, const std::string& u, int64_t rank, int in_bytes, int out_bytes) {
  const DataType acc = UnsignedOfWidth(out_bytes == 8 ? 8 : 4);
  const int ratio = out_bytes / in_bytes;
  std::vector<int64_t> shape(static_cast<size_t>(rank - 1), 0);
  shape.push_back(-1);
  shape.push_back(ratio);
  std::string groups = ctx.CastTo(Reshape(ctx, u, shape), UnsignedOfWidth(in_bytes), acc);
  groups = ctx.Op("BitShift", {groups, ShiftAmounts(ctx, acc, ratio, 8 * in_bytes)},
                  {ir::Attribute::String("direction", "LEFT")});
  std::vector<std::string> pieces = ctx.AddNode(
      "Split", {groups}, {ir::Attribute::Int("axis", -1), ir::Attribute::Int("num_outputs", ratio)}, ratio);
  std::string joined = pieces[0];
  for (int i = 1; i < ratio; ++i) joined = ctx.Op("BitwiseOr", {joined, pieces[i]});
  return ctx.CastTo(Squeeze(ctx, joined, {-1}), acc, UnsignedOfWidth(out_bytes));
}

}  // namespace pt2onnx::ops
