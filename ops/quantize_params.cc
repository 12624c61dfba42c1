// File: ops/quantize_params.cc
// -----------------------------------------------------------------------------
// Dynamic quantization parameters: the quantized_decomposed choose_qparams
// operators that PT2E dynamic quantization (and ExecuTorch's per-token
// activation quantization) computes at run time, as ONNX arithmetic in
// float32, the order torch computes them in, so the parameters are torch's
// to the bit:
//   choose_qparams.tensor / choose_qparams_symmetric.tensor:
//     torch/ao/quantization/fx/_decomposed.py -> determine_qparams in
//     torch/ao/quantization/utils.py (float32 min / max, scale in float32,
//     returned as float64 [1] with an int64 [1] zero point);
//   choose_qparams_per_token_asymmetric: _decomposed.py,
//     _choose_qparams_per_token_asymmetric_impl (XNNPACK's rule).
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr DataType kF32 = DataType::kFloat;

std::string F32(TranslateContext& ctx, double v) { return ctx.ConstantScalar(kF32, v); }

struct MinMax {
  std::string min_neg;  // min(min(x), 0)
  std::string max_pos;  // max(max(x), 0)
};

// min(x, 0) and max(x, 0) over the whole tensor (0-d) or over the last
// dimension (keepdims).
absl::StatusOr<MinMax> RangeOf(TranslateContext& ctx, bool last_dim) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  if (dtype != kF32 && !IsHalfFloat(dtype)) {
    return ctx.Invalid(absl::StrCat("chooses parameters for float input, got ", DataTypeName(dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("input", kF32));
  std::vector<std::string> min_in = {x}, max_in = {x};
  std::vector<ir::Attribute> attrs = {ir::Attribute::Int("keepdims", last_dim ? 1 : 0)};
  if (last_dim) {
    // Opset 18: ReduceMin / ReduceMax take their axes as an input.
    min_in.push_back(ctx.ConstantInt64s({-1}));
    max_in.push_back(ctx.ConstantInt64s({-1}));
  }
  std::string zero = F32(ctx, 0);
  return MinMax{ctx.Op("Min", {ctx.Op("ReduceMin", min_in, attrs), zero}),
                ctx.Op("Max", {ctx.Op("ReduceMax", max_in, attrs), zero})};
}

absl::Status BindParams(TranslateContext& ctx, const std::string& scale, const std::string& zero_point,
                        bool as_vector) {
  std::string s = ctx.CastTo(scale, kF32, DataType::kDouble);
  std::string z = ctx.CastTo(zero_point, kF32, DataType::kInt64);
  if (as_vector) {
    s = Reshape(ctx, s, {1});
    z = Reshape(ctx, z, {1});
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, s));
  return ctx.SetOutput(1, z);
}

struct Args {
  int64_t quant_min = 0, quant_max = 0;
  double eps = 0;
  DataType dtype = DataType::kUndefined;
};

absl::StatusOr<Args> ReadArgs(TranslateContext& ctx) {
  Args a;
  PT2ONNX_ASSIGN_OR_RETURN(a.quant_min, ctx.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(a.quant_max, ctx.Int("quant_max"));
  PT2ONNX_ASSIGN_OR_RETURN(a.eps, ctx.Float("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, ctx.OptionalDtype("dtype"));
  // torch's validate_qmin_qmax: the range must contain 0.
  if (a.quant_min > 0 || a.quant_max < 0 || a.quant_min >= a.quant_max) {
    return ctx.Invalid(absl::StrCat("quant range [", a.quant_min, ", ", a.quant_max, "] must contain 0 and be non-empty"));
  }
  a.dtype = dtype.value_or(DataType::kUint8);
  return a;
}

// choose_qparams.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)
// scale = max((max_pos - min_neg) / float(quant_max - quant_min), eps);
// zero_point = clamp(quant_min - round(min_neg / scale), quant_min, quant_max).
absl::Status ChooseQparamsTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Args a, ReadArgs(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(MinMax m, RangeOf(ctx, false));
  // eps is held as a float32 tensor (torch.Tensor([eps])).
  std::string scale = ctx.Op("Max", {ctx.Op("Div", {ctx.Op("Sub", {m.max_pos, m.min_neg}),
                                                    F32(ctx, static_cast<double>(a.quant_max - a.quant_min))}),
                                     F32(ctx, static_cast<float>(a.eps))});
  std::string zp = ctx.Op("Sub", {F32(ctx, static_cast<double>(a.quant_min)),
                                  ctx.Op("Round", {ctx.Op("Div", {m.min_neg, scale})})});
  zp = ctx.Op("Clip", {zp, F32(ctx, static_cast<double>(a.quant_min)), F32(ctx, static_cast<double>(a.quant_max))});
  return BindParams(ctx, scale, zp, true);
}

// choose_qparams_symmetric.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)
// scale = max(max(-min_neg, max_pos) / (float(quant_max - quant_min) / 2), eps);
// zero_point 0, or 128 for uint8 (determine_qparams without a customised range).
absl::Status ChooseQparamsSymmetricTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Args a, ReadArgs(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(MinMax m, RangeOf(ctx, false));
  std::string top = ctx.Op("Max", {ctx.Op("Neg", {m.min_neg}), m.max_pos});
  std::string scale = ctx.Op("Max", {ctx.Op("Div", {top, F32(ctx, static_cast<double>(a.quant_max - a.quant_min) / 2)}),
                                     F32(ctx, static_cast<float>(a.eps))});
  return BindParams(ctx, scale, F32(ctx, a.dtype == DataType::kUint8 ? 128 : 0), true);
}

// choose_qparams_per_token_asymmetric(Tensor input, ScalarType dtype) -> (Tensor, Tensor)
// Over the last dimension, qmin -128, qmax 127, eps float32's:
// scale = clamp((max_pos - min_neg) / 255, min=eps); with dmin = min_neg / scale
// and dmax = max_pos / scale, zero_point = round(clamp(qmin + dmin + qmax + dmax > 0
// ? qmin - dmin : qmax - dmax, qmin, qmax)).
absl::Status ChooseQparamsPerTokenAsymmetric(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(MinMax m, RangeOf(ctx, true));
  const double qmin = -128, qmax = 127;
  std::string scale = ctx.Op("Max", {ctx.Op("Div", {ctx.Op("Sub", {m.max_pos, m.min_neg}), F32(ctx, qmax - qmin)}),
                                     F32(ctx, std::numeric_limits<float>::epsilon())});
  std::string dmin = ctx.Op("Div", {m.min_neg, scale});
  std::string dmax = ctx.Op("Div", {m.max_pos, scale});
  std::string from_min = ctx.Op("Add", {F32(ctx, qmin), dmin});
  std::string from_max = ctx.Op("Add", {F32(ctx, qmax), dmax});
  std::string zp = ctx.Op("Where", {ctx.Op("Greater", {ctx.Op("Add", {from_min, from_max}), F32(ctx, 0)}),
                                    ctx.Op("Sub", {F32(ctx, qmin), dmin}), ctx.Op("Sub", {F32(ctx, qmax), dmax})});
  zp = ctx.Op("Round", {ctx.Op("Clip", {zp, F32(ctx, qmin), F32(ctx, qmax)})});
  return BindParams(ctx, scale, zp, false);
}

}  // namespace

void RegisterQuantizeParamsOps(OpRegistry& r) {
  r.Add("quantized_decomposed::choose_qparams.tensor", &ChooseQparamsTensor);
  r.Add("quantized_decomposed::choose_qparams_symmetric.tensor", &ChooseQparamsSymmetricTensor);
  r.Add("quantized_decomposed::choose_qparams_per_token_asymmetric.default", &ChooseQparamsPerTokenAsymmetric);
}

}  // namespace pt2onnx::ops
