// File: ops/bit_views.cc
// -----------------------------------------------------------------------------
// aten::view.dtype (Tensor.view(dtype)): the same bytes read as another
// dtype. Equal widths are one BitCast (opset 26). Widths that differ split
// each element of the last dim into several narrower ones, or join groups of
// them, little-endian as torch's CPU tensors are (ATen's view_dtype,
// aten/src/ATen/native/TensorConversions.cpp, scales the last dim). The bits
// move as unsigned integers in a 32- or 64-bit accumulator (BitShift,
// BitwiseAnd/Or): ONNX Runtime's BitShift has no 16-bit kernel. A bool is
// read and written by Cast (every bool torch makes is the byte 0 or 1).
// Complex and float8 dtypes are refused; below opset 26 any reinterpretation
// is refused (ONNX has no bitcast before it).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/tensor.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"

namespace pt2onnx::ops {
namespace {

constexpr int kBitCastOpset = 26;

// The unsigned integer dtype of `bytes` bytes.
DataType UnsignedOfWidth(int bytes) {
  switch (bytes) {
    case 1: return DataType::kUint8;
    case 2: return DataType::kUint16;
    case 4: return DataType::kUint32;
    default: return DataType::kUint64;
  }
}

bool IsBitViewable(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: case DataType::kDouble: case DataType::kFloat16: case DataType::kBFloat16:
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
    case DataType::kUint8: case DataType::kUint16: case DataType::kUint32: case DataType::kUint64:
    case DataType::kBool:
      return true;
    default:
      return false;
  }
}

std::string BitCast(TranslateContext& ctx, const std::string& x, DataType from, DataType to) {
  if (from == to) return x;
  return ctx.Op("BitCast", {x}, {ir::Attribute::Int("to", static_cast<int64_t>(to))});
}

// A 1-D constant of `dtype` (uint32 or uint64): 0, step, 2*step, ...
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

// [..., n] of `in_bytes`-wide unsigned values -> [..., n * ratio] of
// `out_bytes`-wide ones, the lowest bytes first.
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

// [..., n * ratio] of `in_bytes`-wide unsigned values -> [..., n] of
// `out_bytes`-wide ones, each built from `ratio` consecutive inputs.
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

// aten::view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)
absl::Status AtenViewDtype(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType from, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> target, ctx.OptionalDtype("dtype"));
  if (!target) return ctx.Invalid("view(dtype) without a dtype");
  const DataType to = *target;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  if (from == to) return BindResult(ctx, ctx.Op("Identity", {x}));
  const std::string what = absl::StrCat("view(dtype) from ", DataTypeName(from), " to ", DataTypeName(to));
  if (!IsBitViewable(from) || !IsBitViewable(to)) {
    return ctx.Unsupported(absl::StrCat(what, ": only real float, integer and bool dtypes are reinterpreted"));
  }
  if (ctx.opset() < kBitCastOpset) {
    return ctx.Unsupported(absl::StrCat(what, " reinterprets the bits, which ONNX can express from opset ",
                                        kBitCastOpset, " (BitCast) on: convert with --opset ", kBitCastOpset));
  }
  const int in_bytes = ElementSize(from), out_bytes = ElementSize(to);
  // Bytes as unsigned integers of the input's width (a bool is its byte 0/1).
  std::string u = from == DataType::kBool ? ctx.CastTo(x, from, DataType::kUint8)
                                          : BitCast(ctx, x, from, UnsignedOfWidth(in_bytes));
  if (in_bytes != out_bytes) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
    if (rank == 0) {
      return ctx.Invalid(absl::StrCat(what, ": a 0-d tensor cannot change its element size (torch refuses it too)"));
    }
    u = in_bytes > out_bytes ? SplitElements(ctx, u, rank, in_bytes, out_bytes)
                             : JoinElements(ctx, u, rank, in_bytes, out_bytes);
  }
  std::string y = to == DataType::kBool ? ctx.CastTo(u, DataType::kUint8, DataType::kBool)
                                        : BitCast(ctx, u, UnsignedOfWidth(out_bytes), to);
  return BindResult(ctx, y);
}

}  // namespace

void RegisterBitViewOps(OpRegistry& r) {
  r.Add("aten::view.dtype", &AtenViewDtype);
}

}  // namespace pt2onnx::ops
