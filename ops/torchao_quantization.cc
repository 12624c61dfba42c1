// File: ops/torchao_quantization.cc
// -----------------------------------------------------------------------------
// torchao's affine quantization ops, as torchao.quantization.quantize_
// programs hold them once exported (after torchao.utils.
// unwrap_tensor_subclass, which turns its quantized weight tensors into
// plain ones): quantize_affine, dequantize_affine and choose_qparams_affine
// (int8 weight-only, int8 dynamic activation with int8 / intx weights). The
// formulas are torchao 0.18's (torchao/quantization/quant_primitives.py), in
// its order of operations, so results are exact, not within a step:
// quantize multiplies by 1 / scale (ONNX's QuantizeLinear divides),
// dequantize subtracts the zero point in the output dtype, then scales.
//
// A block_size gives the elements sharing one scale: per dim, 1 (each
// index its own), the dim's size (one scale along it), or a divisor of it
// (groups: the dim is split into (size / block, block)). Group splits need
// the dim's size statically. Holds for opsets 18..26.
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/reduce_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// torchao's _get_reduction_params over `x`'s dims.
struct Blocks {
  std::string x;                 // x viewed for the reduction (split dims)
  std::string original_shape;    // Shape(x) before the view
  std::string reduced_shape;     // the view's shape with reduced dims 1 (scale's view)
  std::vector<int64_t> reduced;  // axes of the view reduced over
  bool split = false;            // the view differs from x
};

absl::StatusOr<Blocks> BlockView(TranslateContext& ctx, absl::string_view arg, const std::string& x) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(arg));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> block, ctx.Ints("block_size"));
  if (block.size() != meta->sizes.size()) {
    return ctx.Invalid(absl::StrCat("block_size has ", block.size(), " entries for a ", meta->sizes.size(), "-D ", arg));
  }
  for (int64_t size : block) {
    if (size < 1) return ctx.Invalid(absl::StrCat("block_size entries must be positive, got ", size));
  }
  Blocks b;
  b.x = x;
  b.original_shape = ctx.Op("Shape", {x});
  std::vector<std::string> view, reduced_view;
  int64_t axis = 0;
  for (size_t i = 0; i < block.size(); ++i) {
    const pt2::SymInt& size = meta->sizes[i];
    std::string dim = ShapeSlice(ctx, x, static_cast<int64_t>(i), static_cast<int64_t>(i) + 1);
    const bool whole = !size.is_symbolic && block[i] == size.value;
    if (block[i] > 1 && !whole) {
      if (size.is_symbolic) {
        return ctx.Unsupported(absl::StrCat("block_size ", block[i], " over the symbolic dim ", i, " of ", arg));
      }
      if (size.value % block[i] != 0) {
        return ctx.Invalid(absl::StrCat("dim ", i, " of ", arg, " (", size.value, ") is not divisible by its block size ",
                                        block[i]));
      }
      view.push_back(ctx.ConstantInt64s({size.value / block[i], block[i]}));
      reduced_view.push_back(ctx.ConstantInt64s({size.value / block[i], 1}));
      b.reduced.push_back(axis + 1);
      axis += 2;
      b.split = true;
    } else {
      view.push_back(dim);
      if (block[i] != 1) {
        b.reduced.push_back(axis);
        reduced_view.push_back(ctx.ConstantInt64s({1}));
      } else {
        reduced_view.push_back(dim);
      }
      axis += 1;
    }
  }
  auto concat = [&](const std::vector<std::string>& parts) {
    return parts.empty() ? ctx.ConstantInt64s({}) : ctx.Op("Concat", parts, {Attribute::Int("axis", 0)});
  };
  if (b.split) b.x = ctx.Op("Reshape", {x, concat(view)});
  b.reduced_shape = concat(reduced_view);
  return b;
}

// The quantized dtype's range, as torchao's _get_and_check_qmin_qmax.
absl::StatusOr<std::pair<int64_t, int64_t>> QuantRange(TranslateContext& ctx, DataType dtype) {
  int64_t lo = 0, hi = 0;
  switch (dtype) {
    case DataType::kInt8: lo = -128; hi = 127; break;
    case DataType::kUint8: lo = 0; hi = 255; break;
    case DataType::kInt16: lo = -32768; hi = 32767; break;
    case DataType::kUint16: lo = 0; hi = 65535; break;
    case DataType::kInt32: lo = INT32_MIN; hi = INT32_MAX; break;
    default:
      return ctx.Unsupported(absl::StrCat("torchao quantization to ", DataTypeName(dtype),
                                          " (int8, uint8, int16, uint16 and int32 translate)"));
  }
  for (auto [arg, value] : {std::pair<const char*, int64_t*>{"quant_min", &lo}, {"quant_max", &hi}}) {
    if (!ctx.Has(arg)) continue;
    // Scalar? in the schema: an int, or a float holding one.
    if (absl::StatusOr<std::optional<int64_t>> given = ctx.OptionalInt(arg); given.ok()) {
      if (given->has_value()) *value = **given;
      continue;
    }
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> given, ctx.OptionalFloat(arg));
    if (given.has_value()) *value = static_cast<int64_t>(*given);
  }
  return std::pair<int64_t, int64_t>{lo, hi};
}

// torch.finfo(dtype).smallest_normal: choose_qparams_affine's default eps.
double SmallestNormal(DataType dtype) {
  switch (dtype) {
    case DataType::kDouble: return 2.2250738585072014e-308;
    case DataType::kFloat16: return 6.103515625e-05;
    default: return 1.1754943508222875e-38;  // float32 and bfloat16
  }
}

absl::StatusOr<DataType> DtypeArg(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, ctx.OptionalDtype(arg));
  if (!dtype.has_value()) return ctx.Invalid(absl::StrCat(arg, " is required"));
  return *dtype;
}

// A present, non-empty zero_point tensor.
absl::StatusOr<std::optional<std::string>> ZeroPoint(TranslateContext& ctx) {
  if (!ctx.Has("zero_point")) return std::optional<std::string>();
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> zp, ctx.OptionalInput("zero_point"));
  if (!zp.has_value()) return zp;
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("zero_point"));
  for (const pt2::SymInt& d : meta->sizes) {
    if (!d.is_symbolic && d.value == 0) return std::optional<std::string>();  // torchao reads an empty one as None
  }
  return zp;
}

// torchao::quantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point,
//     ScalarType output_dtype, Scalar? quant_min=None, Scalar? quant_max=None) -> Tensor
// clamp(round(input * (1 / scale)) + zero_point, quant_min, quant_max), then the dtype.
absl::Status TorchaoQuantizeAffine(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out_dtype, DtypeArg(ctx, "output_dtype"));
  PT2ONNX_ASSIGN_OR_RETURN(auto range, QuantRange(ctx, out_dtype));
  PT2ONNX_ASSIGN_OR_RETURN(DataType compute, ResultType(ctx, {"input", "scale"}));
  if (!IsFloatingPoint(compute)) return ctx.Invalid("quantize_affine needs a floating input and scale");
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("input", compute));
  PT2ONNX_ASSIGN_OR_RETURN(Blocks b, BlockView(ctx, "input", x));
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ctx.InputAs("scale", compute));
  scale = ctx.Op("Reshape", {scale, b.reduced_shape});
  // Reciprocal, not Div(1, scale): ONNX Runtime's DivMulFusion rewrites Div(1, s) -> Mul(x, .) as x / s,
  // which rounds differently (onnxruntime/core/optimizer/div_mul_fusion.cc).
  std::string inverse = ctx.Op("Reciprocal", {scale});
  std::string q = ctx.Op("Round", {ctx.Op("Mul", {b.x, inverse})});
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> zp, ZeroPoint(ctx));
  if (zp.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType zp_dtype, ctx.InputDtype("zero_point"));
    q = ctx.Op("Add", {q, ctx.CastTo(ctx.Op("Reshape", {*zp, b.reduced_shape}), zp_dtype, compute)});
  }
  q = ctx.Op("Min", {ctx.Op("Max", {q, ctx.ConstantScalar(compute, static_cast<double>(range.first))}),
                     ctx.ConstantScalar(compute, static_cast<double>(range.second))});
  if (b.split) q = ctx.Op("Reshape", {q, b.original_shape});
  return ctx.SetOutput(0, ctx.CastTo(q, compute, ctx.OutputDtype(0)));
}

// torchao::dequantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point,
//     ScalarType input_dtype, Scalar? quant_min=None, Scalar? quant_max=None, *,
//     ScalarType output_dtype=float32) -> Tensor
// (input.to(output_dtype) - zero_point.to(output_dtype)) * scale, then output_dtype.
absl::Status TorchaoDequantizeAffine(TranslateContext& ctx) {
  DataType out_dtype = DataType::kFloat;
  if (ctx.Has("output_dtype")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> given, ctx.OptionalDtype("output_dtype"));
    if (given.has_value()) out_dtype = *given;
  }
  if (!IsFloatingPoint(out_dtype)) return ctx.Invalid("dequantize_affine's output_dtype must be floating");
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType scale_dtype, ctx.InputDtype("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Blocks b, BlockView(ctx, "input", x));
  std::string d = ctx.CastTo(b.x, in_dtype, out_dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> zp, ZeroPoint(ctx));
  if (zp.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType zp_dtype, ctx.InputDtype("zero_point"));
    d = ctx.Op("Sub", {d, ctx.CastTo(ctx.Op("Reshape", {*zp, b.reduced_shape}), zp_dtype, out_dtype)});
  }
  // dequant * scale in their promoted dtype (a float32 scale widens a bfloat16 dequant).
  const DataType compute = ElementSize(scale_dtype) > ElementSize(out_dtype) ? scale_dtype : out_dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ctx.InputAs("scale", compute));
  d = ctx.Op("Mul", {ctx.CastTo(d, out_dtype, compute), ctx.Op("Reshape", {scale, b.reduced_shape})});
  if (b.split) d = ctx.Op("Reshape", {d, b.original_shape});
  return ctx.SetOutput(0, ctx.CastTo(d, compute, ctx.OutputDtype(0)));
}

// torchao::choose_qparams_affine(Tensor input, str mapping_type, SymInt[] block_size, ScalarType target_dtype,
//     Scalar? quant_min=None, Scalar? quant_max=None, float? eps=None, ScalarType? scale_dtype=None,
//     ScalarType? zero_point_dtype=None, bool keepdim=False) -> (Tensor, Tensor)
// Per block: min / max widened to include 0; SYMMETRIC: scale = max(-min, max) / ((qmax - qmin) / 2)
// and zero point (qmax + qmin + 1) / 2; SYMMETRIC_NO_CLIPPING_ERR: the larger of min / qmin and
// max / qmax; ASYMMETRIC: scale = (max - min) / (qmax - qmin), zero point qmin - round(min / scale)
// clamped to the range. Scales are clamped below at eps (default: the input dtype's smallest normal).
absl::Status TorchaoChooseQparamsAffine(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string mapping, ctx.String("mapping_type"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType target, DtypeArg(ctx, "target_dtype"));
  PT2ONNX_ASSIGN_OR_RETURN(auto range, QuantRange(ctx, target));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  if (!IsFloatingPoint(dtype)) return ctx.Invalid("choose_qparams_affine needs a floating input");
  std::optional<double> eps;
  if (ctx.Has("eps")) {
    PT2ONNX_ASSIGN_OR_RETURN(eps, ctx.OptionalFloat("eps"));
  }
  if (!eps.has_value()) eps = SmallestNormal(dtype);
  bool keepdim = false;
  if (ctx.Has("keepdim")) {
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, ctx.Bool("keepdim"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Blocks b, BlockView(ctx, "input", x));
  auto c = [&](double v) { return ctx.ConstantScalar(dtype, v); };
  const double qmin = static_cast<double>(range.first), qmax = static_cast<double>(range.second);
  // Reduce with no axes would reduce everything: blocks of one element are their own min and max.
  auto reduce = [&](const char* op) { return b.reduced.empty() ? b.x : Reduce(ctx, op, b.x, b.reduced, false); };
  std::string lo = ctx.Op("Min", {reduce("ReduceMin"), c(0)});
  std::string hi = ctx.Op("Max", {reduce("ReduceMax"), c(0)});
  std::string scale, zero_point;
  if (mapping == "SYMMETRIC" || mapping == "SYMMETRIC_NO_CLIPPING_ERR") {
    if (mapping == "SYMMETRIC") {
      scale = ctx.Op("Div", {ctx.Op("Max", {ctx.Op("Neg", {lo}), hi}), c((qmax - qmin) / 2)});
    } else {
      std::string from_min = ctx.Op("Div", {lo, c(qmin)}), from_max = ctx.Op("Div", {hi, c(qmax)});
      scale = ctx.Op("Where", {ctx.Op("Greater", {from_min, from_max}), from_min, from_max});
    }
    zero_point = ctx.Op("Expand", {c(static_cast<double>(static_cast<int64_t>((qmax + qmin + 1) / 2))),
                                   ctx.Op("Shape", {scale})});
    scale = ctx.Op("Max", {scale, c(*eps)});
  } else if (mapping == "ASYMMETRIC") {
    scale = ctx.Op("Max", {ctx.Op("Div", {ctx.Op("Sub", {hi, lo}), c(qmax - qmin)}), c(*eps)});
    zero_point = ctx.Op("Sub", {c(qmin), ctx.Op("Round", {ctx.Op("Div", {lo, scale})})});
    zero_point = ctx.Op("Min", {ctx.Op("Max", {zero_point, c(qmin)}), c(qmax)});
  } else {
    return ctx.Invalid(absl::StrCat("unknown mapping_type '", mapping,
                                    "' (SYMMETRIC, SYMMETRIC_NO_CLIPPING_ERR or ASYMMETRIC)"));
  }
  if (keepdim) {
    // The shape of the blocks' grid: input size / block size per dim.
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> block, ctx.Ints("block_size"));
    std::string grid = ctx.Op("Div", {b.original_shape, ctx.ConstantInt64s(block)});
    scale = ctx.Op("Reshape", {scale, grid});
    zero_point = ctx.Op("Reshape", {zero_point, grid});
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(scale, dtype, ctx.OutputDtype(0))));
  return ctx.SetOutput(1, ctx.CastTo(zero_point, dtype, ctx.OutputDtype(1)));
}

}  // namespace

void RegisterTorchaoQuantizationOps(OpRegistry& r) {
  r.Add("torchao::quantize_affine.default", &TorchaoQuantizeAffine);
  r.Add("torchao::dequantize_affine.default", &TorchaoDequantizeAffine);
  r.Add("torchao::choose_qparams_affine.default", &TorchaoChooseQparamsAffine);
}

}  // namespace pt2onnx::ops
