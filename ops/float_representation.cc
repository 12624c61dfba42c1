// File: ops/float_representation.cc
// -----------------------------------------------------------------------------
// Ops on the representation of floating-point numbers: nextafter (the
// neighbouring representable value toward another) and frexp.Tensor
// (mantissa in [0.5, 1) and integer exponent), as torch's CPU kernels call
// std::nextafter / std::frexp. ONNX has no bit casts, so both find the
// binary exponent of |x| arithmetically: floor(log2 |x|) estimated with Log
// and corrected by one either way against Pow(2, e), which is exact for
// integer e. Steps are powers of two, so x +- step and x / 2^e are exact.
// float32 and float64 only (the step depends on the dtype's mantissa width;
// float16 / bfloat16 are refused). ONNX Runtime's Where may turn a selected
// -0 into +0 (nextafter(-denorm_min, 1) is -0 in torch), a sign no
// comparison of values sees. nextafter and frexp hold for opsets 18..26;
// hash_tensor, which needs the raw bits, is translated from opset 26 (BitCast).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/tensor.h"
#include "core/status_macros.h"
#include "ops/bit_packing.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/formula.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

struct Math : Formula {
  std::string pow2(const std::string& e) { return ctx.Op("Pow", {c(2), e}); }
};

// The float formats this file handles: mantissa bits and smallest normal exponent.
struct Format {
  int mantissa_bits;
  int min_exponent;
};
absl::StatusOr<Format> FormatOf(TranslateContext& ctx, DataType dtype) {
  if (dtype == DataType::kFloat) return Format{23, -126};
  if (dtype == DataType::kDouble) return Format{52, -1022};
  return ctx.Unsupported(absl::StrCat(ctx.key(), " with ", DataTypeName(dtype),
                                      " values (the step depends on the mantissa width; float32 / float64 only)"));
}

// floor(log2 a) for finite a > 0 (denormals included), exact.
std::string BinaryExponent(Math& m, const std::string& a) {
  std::string e = m.ctx.Op("Floor", {m.div({m.ctx.Op("Log", {a}), m.c(std::log(2.0))})});
  e = m.where(m.gt({m.pow2(e), a}), m.sub({e, m.c(1)}), e);
  return m.where(m.ctx.Op("LessOrEqual", {m.mul({m.pow2(e), m.c(2)}), a}), m.add({e, m.c(1)}), e);
}

// aten::nextafter(Tensor self, Tensor other) -> Tensor
absl::Status AtenNextafter(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(Format format, FormatOf(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputOrScalarAs("other", dtype));
  Math m{{ctx, dtype}};
  std::string a = ctx.Op("Abs", {x});
  std::string e = ctx.Op("Max", {BinaryExponent(m, a), m.c(format.min_exponent)});
  std::string up = m.pow2(m.sub({e, m.c(format.mantissa_bits)}));  // the step away from zero
  // Toward zero from a power of two (above the denormals) the step halves.
  std::string at_power = ctx.Op("And", {m.eq({a, m.pow2(e)}), m.gt({e, m.c(format.min_exponent)})});
  std::string down = m.where(at_power, m.pow2(m.sub({e, m.c(format.mantissa_bits + 1)})), up);
  std::string rising = m.gt({y, x});
  std::string away = m.eq({rising, m.gt({x, m.c(0)})});
  std::string step = m.where(away, up, down);
  std::string r = m.where(rising, m.add({x, step}), m.sub({x, step}));
  // Reaching zero from +-denorm_min keeps x's sign (x + -x would be +0).
  r = m.where(m.eq({r, m.c(0)}), m.mul({x, m.c(0)}), r);
  const bool is_float = dtype == DataType::kFloat;
  const double tiny = is_float ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min();
  const double largest = is_float ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  r = m.where(m.eq({x, m.c(0)}), m.where(rising, m.c(tiny), m.c(-tiny)), r);
  r = m.where(ctx.Op("IsInf", {x}), m.where(m.gt({x, m.c(0)}), m.c(largest), m.c(-largest)), r);
  r = m.where(m.eq({x, y}), y, r);
  std::string nan = ctx.Op("Or", {ctx.Op("IsNaN", {x}), ctx.Op("IsNaN", {y})});
  return BindResult(ctx, m.where(nan, m.add({x, y}), r));
}

// aten::frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)
// x = mantissa * 2^exponent with 0.5 <= |mantissa| < 1; 0, +-inf and NaN
// keep x as the mantissa with exponent 0, as glibc's frexp.
absl::Status AtenFrexp(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_RETURN_IF_ERROR(FormatOf(ctx, dtype).status());
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  Math m{{ctx, dtype}};
  std::string a = ctx.Op("Abs", {x});
  std::string e = m.add({BinaryExponent(m, a), m.c(1)});
  std::string regular = ctx.Op("And", {m.gt({a, m.c(0)}), ctx.Op("Not", {ctx.Op("IsInf", {a})})});
  regular = ctx.Op("And", {regular, ctx.Op("Not", {ctx.Op("IsNaN", {a})})});
  // x / 2^(e-1) / 2: 2^e itself overflows for the largest values.
  std::string mantissa = m.where(regular, m.div({m.div({x, m.pow2(m.sub({e, m.c(1)}))}), m.c(2)}), x);
  std::string exponent = m.where(regular, e, m.c(0));
  DataType exponent_dtype = ctx.OutputDtype(1) == DataType::kUndefined ? DataType::kInt32 : ctx.OutputDtype(1);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, mantissa));
  return ctx.SetOutput(1, ctx.CastTo(exponent, dtype, exponent_dtype));
}

// aten::hash_tensor(Tensor self, int[1] dim=[], *, bool keepdim=False, int mode=0) -> Tensor
// Mode 0: each element widened to double (floating dtypes) or int64 (the
// others), its 64 bits read as uint64 and XORed over `dim` (every dim when
// empty; torch/_torch_docs.py). Reading the bits needs BitCast (opset 26);
// below it no graph reproduces a NaN's sign and payload, so it is refused.
// ONNX has no XOR reduction: bit b of the hash is the parity of the count of
// elements with bit b set, so the 64 bit planes are counted with ReduceSum
// and reassembled from their parities.
absl::Status AtenHashTensor(TranslateContext& ctx) {
  constexpr int kBitCastOpset = 26;
  if (ctx.opset() < kBitCastOpset) {
    return ctx.Unsupported(absl::StrCat("hash_tensor XORs the elements' raw 64-bit patterns, which ONNX reads from "
                                        "opset ", kBitCastOpset, " (BitCast) on: convert with --opset ",
                                        kBitCastOpset));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t mode, ctx.Int("mode"));
  if (mode != 0) return ctx.Unsupported(absl::StrCat("hash_tensor mode ", mode, " (torch defines mode 0 only)"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (IsComplex(dtype)) return ctx.Unsupported("hash_tensor of a complex tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dim, ctx.OptionalInts("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  std::vector<int64_t> axes;
  if (dim && !dim->empty()) {
    PT2ONNX_ASSIGN_OR_RETURN(axes, CheckedAxes(*dim, std::max<int64_t>(rank, 1), "hash_tensor dim"));
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (rank == 0) axes.clear();
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  const DataType wide = IsFloatingPoint(dtype) ? DataType::kDouble : DataType::kInt64;
  std::string bits = ctx.Op("BitCast", {ctx.CastTo(x, dtype, wide)},
                            {ir::Attribute::Int("to", static_cast<int64_t>(DataType::kUint64))});
  std::string planes = ctx.Op("BitShift", {Unsqueeze(ctx, bits, {-1}), ShiftAmounts(ctx, DataType::kUint64, 64, 1)},
                              {ir::Attribute::String("direction", "RIGHT")});
  planes = ctx.Op("BitwiseAnd", {planes, ctx.ConstantScalar(DataType::kUint64, 1)});
  std::string counts = ctx.CastTo(planes, DataType::kUint64, DataType::kInt64);
  int64_t kept_rank = rank;  // of the hash
  if (!axes.empty()) {
    counts = ctx.Op("ReduceSum", {counts, ctx.ConstantInt64s(axes)}, {ir::Attribute::Int("keepdims", keepdim)});
    if (!keepdim) kept_rank -= static_cast<int64_t>(axes.size());
  }
  std::string parity = ctx.Op("BitwiseAnd", {counts, ctx.ConstantScalar(DataType::kInt64, 1)});
  // Four 16-bit words first (sums below 2^16: exact in any runtime, where
  // ONNX Runtime sums int64 through doubles), then joined into the uint64.
  std::string weights;  // 2^0 .. 2^15
  {
    std::string bytes;
    for (int64_t b = 0; b < 16; ++b) {
      const int64_t weight = int64_t{1} << b;
      bytes.append(reinterpret_cast<const char*>(&weight), sizeof weight);
    }
    weights = ctx.Constant(ir::Tensor::Owned(DataType::kInt64, {16}, std::move(bytes)));
  }
  std::vector<int64_t> word_shape(static_cast<size_t>(kept_rank), 0);
  word_shape.push_back(4);
  word_shape.push_back(16);
  std::string words = ctx.Op("ReduceSum", {ctx.Op("Mul", {Reshape(ctx, parity, word_shape), weights}),
                                           ctx.ConstantInt64s({-1})},
                             {ir::Attribute::Int("keepdims", 0)});
  std::string hash = JoinElements(ctx, ctx.CastTo(words, DataType::kInt64, DataType::kUint16), kept_rank + 1, 2, 8);
  return BindResult(ctx, Squeeze(ctx, hash, {-1}));
}

}  // namespace

void RegisterFloatRepresentationOps(OpRegistry& r) {
  r.Add("aten::nextafter.default", &AtenNextafter);
  r.Add("aten::frexp.Tensor", &AtenFrexp);
  r.Add("aten::hash_tensor.default", &AtenHashTensor);
}

}  // namespace pt2onnx::ops
