// File: ops/bit_views.cc
// -----------------------------------------------------------------------------
// aten::view.dtype (Tensor.view(dtype)): the same bytes read as another
// dtype. Equal widths are one BitCast (opset 26). Widths that differ split
// each element of the last dim into several narrower ones, or join groups of
// them, little-endian as torch's CPU tensors are (ATen's view_dtype,
// aten/src/ATen/native/TensorConversions.cpp, scales the last dim), through
// ops/bit_packing.h. A bool is read and written by Cast (every bool torch
// makes is the byte 0 or 1).
// Complex and float8 dtypes are refused; below opset 26 any reinterpretation
// is refused (ONNX has no bitcast before it).
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/bit_packing.h"
#include "ops/translate_api.h"

namespace pt2onnx::ops {
namespace {

constexpr int kBitCastOpset = 26;

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
