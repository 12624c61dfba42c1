// File: ops/activation.cc
// -----------------------------------------------------------------------------
// Activation functions and softmax-family ops. Each maps to its ONNX operator
// where one exists with torch's exact semantics (Relu, LeakyRelu, HardSwish,
// Softmax, ...) and to a short formula otherwise. sigmoid lives in
// unary_math.cc.
//
// In-place overloads (relu_.default, ...) share the functional translation
// (AddWithInPlace, BindResult; the convention is in ops/op_helpers.h).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// self in the output dtype (activations of integer tensors are float).
struct Operand {
  std::string x;
  DataType dtype;
};
absl::StatusOr<Operand> Self(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return Operand{std::move(x), dtype};
}

absl::Status Simple(TranslateContext& ctx, absl::string_view op_type,
                    std::vector<ir::Attribute> attributes = {}) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  return BindResult(ctx, ctx.Op(op_type, {in.x}, std::move(attributes)));
}

// Clip to [lo, hi] with 0-d bounds in the input's dtype.
absl::Status ClipTo(TranslateContext& ctx, double lo, double hi) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  return BindResult(ctx, ctx.Op("Clip", {in.x, ctx.ConstantScalar(in.dtype, lo),
                                         ctx.ConstantScalar(in.dtype, hi)}));
}

// aten::relu(Tensor self) -> Tensor
// ONNX Relu has no uint8 variant, where relu is the identity.
absl::Status AtenRelu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  return Simple(ctx, dtype == DataType::kUint8 ? "Identity" : "Relu");
}

// aten::relu6(Tensor self) -> Tensor
absl::Status AtenRelu6(TranslateContext& ctx) { return ClipTo(ctx, 0, 6); }

// aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor
absl::Status AtenHardtanh(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double lo, FloatOr(ctx, "min_val", -1));
  PT2ONNX_ASSIGN_OR_RETURN(double hi, FloatOr(ctx, "max_val", 1));
  return ClipTo(ctx, lo, hi);
}

// aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor
absl::Status AtenLeakyRelu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double slope, FloatOr(ctx, "negative_slope", 0.01));
  return Simple(ctx, "LeakyRelu", {ir::Attribute::Float("alpha", static_cast<float>(slope))});
}

// 0.5 * x * (1 + erf(x / sqrt(2))), or with tanh: 0.5 * x * (1 + tanh(
// sqrt(2 / pi) * (x + 0.044715 * x^3))) (torch/_refs/nn/functional gelu).
absl::StatusOr<std::string> GeluFormula(TranslateContext& ctx, const Operand& in,
                                        absl::string_view approximate) {
  auto c = [&](double v) { return ctx.ConstantScalar(in.dtype, v); };
  std::string inner;
  if (approximate == "tanh") {
    std::string cube = ctx.Op("Mul", {ctx.Op("Mul", {in.x, in.x}), in.x});
    std::string sum = ctx.Op("Add", {in.x, ctx.Op("Mul", {cube, c(0.044715)})});
    inner = ctx.Op("Tanh", {ctx.Op("Mul", {sum, c(std::sqrt(2.0 / 3.14159265358979323846))})});
  } else if (approximate == "none") {
    inner = ctx.Op("Erf", {ctx.Op("Mul", {in.x, c(1.0 / std::sqrt(2.0))})});
  } else {
    return ctx.Invalid(absl::StrCat("unknown gelu approximation '", approximate, "'"));
  }
  std::string half_x = ctx.Op("Mul", {in.x, c(0.5)});
  return ctx.Op("Mul", {half_x, ctx.Op("Add", {inner, c(1)})});
}

absl::StatusOr<std::string> Approximate(const TranslateContext& ctx) {
  if (!ctx.Has("approximate")) return std::string("none");
  return ctx.String("approximate");
}

// Opsets 18-19 have no Gelu operator.
// aten::gelu(Tensor self, *, str approximate="none") -> Tensor
absl::Status AtenGeluOpset18(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string approximate, Approximate(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, GeluFormula(ctx, in, approximate));
  return BindResult(ctx, y);
}

// Gelu-20 computes both approximations.
// aten::gelu(Tensor self, *, str approximate="none") -> Tensor
absl::Status AtenGeluOpset20(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string approximate, Approximate(ctx));
  if (approximate != "none" && approximate != "tanh") {
    return ctx.Invalid(absl::StrCat("unknown gelu approximation '", approximate, "'"));
  }
  return Simple(ctx, "Gelu", {ir::Attribute::String("approximate", approximate)});
}

// aten::silu(Tensor self) -> Tensor
absl::Status AtenSilu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  return BindResult(ctx, ctx.Op("Mul", {in.x, ctx.Op("Sigmoid", {in.x})}));
}

// Opset 24: Swish (alpha 1) is silu, rounded once. bfloat16 keeps Mul(x,
// Sigmoid(x)): ONNX Runtime runs Swish through its function body, whose
// bfloat16 Mul it lacks.
absl::Status AtenSiluOpset24(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  if (in.dtype == DataType::kBFloat16) {
    return BindResult(ctx, ctx.Op("Mul", {in.x, ctx.Op("Sigmoid", {in.x})}));
  }
  return BindResult(ctx, ctx.Op("Swish", {in.x}));
}

// HardSwish and HardSigmoid(alpha=1/6, beta=1/2) are torch's relu6(x+3)/6 forms.
// aten::hardswish(Tensor self) -> Tensor
absl::Status AtenHardswish(TranslateContext& ctx) { return Simple(ctx, "HardSwish"); }
// aten::hardsigmoid(Tensor self) -> Tensor
absl::Status AtenHardsigmoid(TranslateContext& ctx) {
  return Simple(ctx, "HardSigmoid", {ir::Attribute::Float("alpha", 1.0f / 6),
                                     ir::Attribute::Float("beta", 0.5f)});
}

// scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1)); ONNX Elu covers
// scale == input_scale == 1.
// aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor
absl::Status AtenElu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double alpha, FloatOr(ctx, "alpha", 1));
  PT2ONNX_ASSIGN_OR_RETURN(double scale, FloatOr(ctx, "scale", 1));
  PT2ONNX_ASSIGN_OR_RETURN(double input_scale, FloatOr(ctx, "input_scale", 1));
  if (scale == 1 && input_scale == 1) {
    return Simple(ctx, "Elu", {ir::Attribute::Float("alpha", static_cast<float>(alpha))});
  }
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  auto c = [&](double v) { return ctx.ConstantScalar(in.dtype, v); };
  std::string expm1 = ctx.Op("Sub", {ctx.Op("Exp", {ctx.Op("Mul", {in.x, c(input_scale)})}), c(1)});
  std::string negative = ctx.Op("Mul", {expm1, c(alpha)});
  std::string y = ctx.Op("Where", {ctx.Op("Greater", {in.x, c(0)}), in.x, negative});
  return BindResult(ctx, ctx.Op("Mul", {y, c(scale)}));
}

// ONNX Celu is float32-only; other float types go through float32.
// aten::celu(Tensor self, Scalar alpha=1.) -> Tensor
absl::Status AtenCelu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double alpha, FloatOr(ctx, "alpha", 1));
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  std::string x = ctx.CastTo(in.x, in.dtype, DataType::kFloat);
  std::string y = ctx.Op("Celu", {x}, {ir::Attribute::Float("alpha", static_cast<float>(alpha))});
  return BindResult(ctx, ctx.CastTo(y, DataType::kFloat, in.dtype));
}

// ONNX Selu's default alpha/gamma are torch's constants rounded to float.
// aten::selu(Tensor self) -> Tensor
absl::Status AtenSelu(TranslateContext& ctx) { return Simple(ctx, "Selu"); }

// torch: x * beta > threshold ? x : log1p(exp(beta * x)) / beta.
// aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor
absl::Status AtenSoftplus(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double beta, FloatOr(ctx, "beta", 1));
  PT2ONNX_ASSIGN_OR_RETURN(double threshold, FloatOr(ctx, "threshold", 20));
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  auto c = [&](double v) { return ctx.ConstantScalar(in.dtype, v); };
  std::string scaled = beta == 1 ? in.x : ctx.Op("Mul", {in.x, c(beta)});
  std::string soft = ctx.Op("Softplus", {scaled});
  if (beta != 1) soft = ctx.Op("Div", {soft, c(beta)});
  std::string linear = ctx.Op("Greater", {scaled, c(threshold)});
  return BindResult(ctx, ctx.Op("Where", {linear, in.x, soft}));
}

// aten::mish(Tensor self) -> Tensor
absl::Status AtenMish(TranslateContext& ctx) { return Simple(ctx, "Mish"); }

// log(sigmoid(x)) = -softplus(-x), which stays finite for large |x|.
// aten::log_sigmoid(Tensor self) -> Tensor
absl::Status AtenLogSigmoid(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  return ctx.SetOutput(0, ctx.Op("Neg", {ctx.Op("Softplus", {ctx.Op("Neg", {in.x})})}));
}
// The buffer output only feeds log_sigmoid_backward; inference graphs drop it.
// aten::log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)
absl::Status AtenLogSigmoidForward(TranslateContext& ctx) { return AtenLogSigmoid(ctx); }

// torch: x <= threshold ? value : x (NaN stays NaN).
// aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor
absl::Status AtenThreshold(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string threshold, ctx.InputOrScalarAs("threshold", in.dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.InputOrScalarAs("value", in.dtype));
  std::string below = ctx.Op("LessOrEqual", {in.x, threshold});
  return BindResult(ctx, ctx.Op("Where", {below, value, in.x}));
}

// The weight (one slope, or one per channel) applies along dim 1; PRelu
// broadcasts from the right, so per-channel weights get trailing 1s.
// aten::prelu(Tensor self, Tensor weight) -> Tensor
absl::Status AtenPrelu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.InputAs("weight", in.dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* wmeta, ctx.InputMeta("weight"));
  bool single = wmeta->sizes.empty() ||
                (wmeta->sizes.size() == 1 && !wmeta->sizes[0].is_symbolic &&
                 wmeta->sizes[0].value == 1);
  if (!single && rank > 2 && wmeta->sizes.size() == 1) {
    std::vector<int64_t> axes;
    for (int64_t i = 1; i < rank - 1; ++i) axes.push_back(i);
    weight = Unsqueeze(ctx, weight, axes);
  }
  return ctx.SetOutput(0, ctx.Op("PRelu", {in.x, weight}));
}

// Decomposed prelu: the weight is already shaped to broadcast both ways.
// aten::_prelu_kernel(Tensor self, Tensor weight) -> Tensor
absl::Status AtenPreluKernel(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.InputAs("weight", in.dtype));
  std::string positive = ctx.Op("Greater", {in.x, ctx.ConstantScalar(in.dtype, 0)});
  return ctx.SetOutput(0, ctx.Op("Where", {positive, in.x, ctx.Op("Mul", {in.x, weight})}));
}

// ONNX Shrink: x < -lambd ? x + bias : x > lambd ? x - bias : 0.
absl::Status Shrink(TranslateContext& ctx, bool soft) {
  PT2ONNX_ASSIGN_OR_RETURN(double lambd, FloatOr(ctx, "lambd", 0.5));
  float l = static_cast<float>(lambd);
  return Simple(ctx, "Shrink", {ir::Attribute::Float("lambd", l),
                                ir::Attribute::Float("bias", soft ? l : 0.0f)});
}
// aten::hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor
absl::Status AtenHardshrink(TranslateContext& ctx) { return Shrink(ctx, false); }
// aten::softshrink(Tensor self, Scalar lambd=0.5) -> Tensor
absl::Status AtenSoftshrink(TranslateContext& ctx) { return Shrink(ctx, true); }

// a * sigmoid(b) for the two halves of `dim`.
// aten::glu(Tensor self, int dim=-1) -> Tensor
absl::Status AtenGlu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operand in, Self(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  const int64_t rank = static_cast<int64_t>(meta->sizes.size());
  if (rank == 0) return ctx.Invalid("glu does not support 0-d tensors");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, AxisArg(ctx, "dim", rank));
  if (!meta->sizes[dim].is_symbolic && meta->sizes[dim].value % 2 != 0) {
    return ctx.Invalid(absl::StrCat("glu halves dimension ", dim, ", whose size ",
                                    meta->sizes[dim].value, " is odd"));
  }
  std::vector<std::string> halves =
      ctx.AddNode("Split", {in.x},
                  {ir::Attribute::Int("axis", dim), ir::Attribute::Int("num_outputs", 2)}, 2);
  return ctx.SetOutput(0, ctx.Op("Mul", {halves[0], ctx.Op("Sigmoid", {halves[1]})}));
}

// ---- Softmax family ------------------------------------------------------------

// `op_type` over `dim` of x; a 0-d input is handled as a 1-element vector.
absl::Status SoftmaxLike(TranslateContext& ctx, absl::string_view op_type,
                         const std::string& x) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, AxisArg(ctx, "dim", rank));
  if (rank == 0) {
    std::string y = ctx.Op(op_type, {Unsqueeze(ctx, x, {0})}, {ir::Attribute::Int("axis", 0)});
    return ctx.SetOutput(0, Squeeze(ctx, y, {0}));
  }
  return ctx.SetOutput(0, ctx.Op(op_type, {x}, {ir::Attribute::Int("axis", dim)}));
}

// `dtype` casts the input before the reduction, as torch does.
absl::StatusOr<std::string> SoftmaxInput(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  if (dtype == DataType::kUndefined) {
    return ctx.Invalid("the output has no dtype in the program's metadata");
  }
  return ctx.InputAs("self", dtype);
}

// aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
absl::Status AtenSoftmaxInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, SoftmaxInput(ctx));
  return SoftmaxLike(ctx, "Softmax", x);
}
// half_to_float shows in the output dtype, which SoftmaxInput casts to.
// aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor
absl::Status AtenSoftmax(TranslateContext& ctx) { return AtenSoftmaxInt(ctx); }
// aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
absl::Status AtenLogSoftmaxInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, SoftmaxInput(ctx));
  return SoftmaxLike(ctx, "LogSoftmax", x);
}
// aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor
absl::Status AtenLogSoftmax(TranslateContext& ctx) { return AtenLogSoftmaxInt(ctx); }

// Softmax whose rows of all -inf give 0 instead of NaN (what SDPA's math
// path uses for fully masked rows; torch/_decomp/decompositions.py).
// aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
absl::Status AtenSafeSoftmax(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, SoftmaxInput(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, AxisArg(ctx, "dim", rank));
  if (rank == 0) return SoftmaxLike(ctx, "Softmax", x);
  DataType dtype = ctx.OutputDtype(0);
  std::string softmax = ctx.Op("Softmax", {x}, {ir::Attribute::Int("axis", dim)});
  // IsInf takes 16-bit floats only from opset 20.
  std::string x32 = ctx.opset() < 20 && ElementSize(dtype) == 2
                        ? ctx.CastTo(x, dtype, DataType::kFloat)
                        : x;
  std::string neg_inf = ctx.Op("IsInf", {x32}, {ir::Attribute::Int("detect_positive", 0)});
  std::string all_masked = ctx.Op(
      "ReduceMin", {ctx.CastTo(neg_inf, DataType::kBool, DataType::kInt32), ctx.ConstantInt64s({dim})},
      {ir::Attribute::Int("keepdims", 1)});
  std::string masked_row = ctx.CastTo(all_masked, DataType::kInt32, DataType::kBool);
  return ctx.SetOutput(0, ctx.Op("Where", {masked_row, ctx.ConstantScalar(dtype, 0), softmax}));
}

}  // namespace

void RegisterActivationOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::relu", "default", &AtenRelu);
  AddWithInPlace(r, "aten::relu6", "default", &AtenRelu6);
  AddWithInPlace(r, "aten::hardtanh", "default", &AtenHardtanh);
  AddWithInPlace(r, "aten::leaky_relu", "default", &AtenLeakyRelu);
  // Gelu became an ONNX operator in opset 20.
  AddWithInPlace(r, "aten::gelu", "default", &AtenGeluOpset18, 18, 19);
  AddWithInPlace(r, "aten::gelu", "default", &AtenGeluOpset20, 20);
  // Swish became an ONNX operator in opset 24; ONNX Runtime 1.32 has its kernel
  // for opset 24 only (models of opset 25 and 26 fail to load), so those keep Mul.
  AddWithInPlace(r, "aten::silu", "default", &AtenSilu, 18, 23);
  AddWithInPlace(r, "aten::silu", "default", &AtenSiluOpset24, 24, 24);
  AddWithInPlace(r, "aten::silu", "default", &AtenSilu, 25);
  AddWithInPlace(r, "aten::hardswish", "default", &AtenHardswish);
  AddWithInPlace(r, "aten::hardsigmoid", "default", &AtenHardsigmoid);
  AddWithInPlace(r, "aten::elu", "default", &AtenElu);
  AddWithInPlace(r, "aten::celu", "default", &AtenCelu);
  AddWithInPlace(r, "aten::selu", "default", &AtenSelu);
  r.Add("aten::softplus.default", &AtenSoftplus);
  AddWithInPlace(r, "aten::mish", "default", &AtenMish);
  r.Add("aten::log_sigmoid.default", &AtenLogSigmoid);
  r.Add("aten::log_sigmoid_forward.default", &AtenLogSigmoidForward);
  AddWithInPlace(r, "aten::threshold", "default", &AtenThreshold);
  r.Add("aten::prelu.default", &AtenPrelu);
  r.Add("aten::_prelu_kernel.default", &AtenPreluKernel);
  r.Add("aten::hardshrink.default", &AtenHardshrink);
  r.Add("aten::softshrink.default", &AtenSoftshrink);
  r.Add("aten::glu.default", &AtenGlu);
  r.Add("aten::softmax.int", &AtenSoftmaxInt);
  r.Add("aten::_softmax.default", &AtenSoftmax);
  r.Add("aten::_safe_softmax.default", &AtenSafeSoftmax);
  r.Add("aten::log_softmax.int", &AtenLogSoftmaxInt);
  r.Add("aten::_log_softmax.default", &AtenLogSoftmax);
}

}  // namespace pt2onnx::ops
