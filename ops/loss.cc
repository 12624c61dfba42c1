// File: ops/loss.cc
// -----------------------------------------------------------------------------
// Elementwise losses with torch's `reduction` (none / mean / sum): mse, l1,
// huber, smooth_l1, soft_margin, binary_cross_entropy(_with_logits), kl_div,
// poisson_nll.
// torch.export keeps them as single ATen nodes (after a broadcast_tensors of
// input and target for the regression losses); the formulas are ATen's
// (aten/src/ATen/native/Loss.cpp, BinaryOps.cpp, PointwiseOps.cpp), cited at
// each one. Everything is computed in the output's floating dtype.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/loss_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

struct LossOperands {
  DataType dtype;
  std::string input;
  std::string target;
  LossReduction reduction;
};

absl::StatusOr<LossOperands> ReadOperands(TranslateContext& ctx) {
  LossOperands ops;
  PT2ONNX_ASSIGN_OR_RETURN(ops.dtype, OutDtype(ctx));
  if (!IsFloatingPoint(ops.dtype)) {
    return ctx.Invalid(absl::StrCat("the loss is typed ", DataTypeName(ops.dtype),
                                    "; torch computes losses in floating point"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(ops.input, ctx.InputAs("self", ops.dtype));
  PT2ONNX_ASSIGN_OR_RETURN(ops.target, ctx.InputAs("target", ops.dtype));
  PT2ONNX_ASSIGN_OR_RETURN(ops.reduction, ReadLossReduction(ctx));
  return ops;
}

absl::Status Bind(TranslateContext& ctx, const LossOperands& ops, const std::string& loss) {
  return ctx.SetOutput(0, ApplyLossReduction(ctx, loss, ops.reduction));
}

std::string Half(TranslateContext& ctx, DataType dtype) { return ctx.ConstantScalar(dtype, 0.5); }

// aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
absl::Status AtenMseLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  std::string d = ctx.Op("Sub", {ops.input, ops.target});
  return Bind(ctx, ops, ctx.Op("Mul", {d, d}));
}

// aten::l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
absl::Status AtenL1Loss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  return Bind(ctx, ops, ctx.Op("Abs", {ctx.Op("Sub", {ops.input, ops.target})}));
}

// z = |x - y|: z < delta ? z^2 / 2 : delta (z - delta / 2).
// aten::huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor
absl::Status AtenHuberLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double delta, FloatOr(ctx, "delta", 1.0));
  std::string z = ctx.Op("Abs", {ctx.Op("Sub", {ops.input, ops.target})});
  std::string d = ctx.ConstantScalar(ops.dtype, delta);
  std::string quadratic = ctx.Op("Mul", {Half(ctx, ops.dtype), ctx.Op("Mul", {z, z})});
  std::string linear = ctx.Op("Mul", {d, ctx.Op("Sub", {z, ctx.ConstantScalar(ops.dtype, delta / 2)})});
  return Bind(ctx, ops, ctx.Op("Where", {ctx.Op("Less", {z, d}), quadratic, linear}));
}

// z = |x - y|: z < beta ? z^2 / (2 beta) : z - beta / 2; beta = 0 is l1.
// aten::smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor
absl::Status AtenSmoothL1Loss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double beta, FloatOr(ctx, "beta", 1.0));
  if (beta < 0) return ctx.Invalid("smooth_l1_loss does not support negative values for beta");
  std::string z = ctx.Op("Abs", {ctx.Op("Sub", {ops.input, ops.target})});
  if (beta == 0) return Bind(ctx, ops, z);
  std::string b = ctx.ConstantScalar(ops.dtype, beta);
  std::string quadratic = ctx.Op("Div", {ctx.Op("Mul", {Half(ctx, ops.dtype), ctx.Op("Mul", {z, z})}), b});
  std::string linear = ctx.Op("Sub", {z, ctx.ConstantScalar(ops.dtype, beta / 2)});
  return Bind(ctx, ops, ctx.Op("Where", {ctx.Op("Less", {z, b}), quadratic, linear}));
}

// log(1 + exp(-y x)).
// aten::soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
absl::Status AtenSoftMarginLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  std::string e = ctx.Op("Exp", {ctx.Op("Neg", {ctx.Op("Mul", {ops.input, ops.target})})});
  return Bind(ctx, ops, ctx.Op("Log", {ctx.Op("Add", {ctx.ConstantScalar(ops.dtype, 1), e})}));
}

// max(v, -100), NaN kept: torch clamps the logs at -100 so that 0 and 1
// inputs give finite losses.
std::string ClampLog(TranslateContext& ctx, const std::string& v, DataType dtype) {
  std::string floor = ctx.ConstantScalar(dtype, -100);
  return ctx.Op("Where", {ctx.Op("Less", {v, floor}), floor, v});
}

absl::StatusOr<std::string> TimesOptionalWeight(TranslateContext& ctx, absl::string_view arg,
                                                const std::string& loss, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> weight, ctx.OptionalInput(arg));
  if (!weight.has_value()) return loss;
  PT2ONNX_ASSIGN_OR_RETURN(DataType weight_dtype, ctx.InputDtype(arg));
  return ctx.Op("Mul", {loss, ctx.CastTo(*weight, weight_dtype, dtype)});
}

// (y - 1) max(log(1 - x), -100) - y max(log x, -100), times weight.
// aten::binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor
absl::Status AtenBinaryCrossEntropy(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  std::string one = ctx.ConstantScalar(ops.dtype, 1);
  std::string log_x = ClampLog(ctx, ctx.Op("Log", {ops.input}), ops.dtype);
  std::string log_1mx = ClampLog(ctx, ctx.Op("Log", {ctx.Op("Sub", {one, ops.input})}), ops.dtype);
  std::string loss = ctx.Op("Sub", {ctx.Op("Mul", {ctx.Op("Sub", {ops.target, one}), log_1mx}),
                                    ctx.Op("Mul", {ops.target, log_x})});
  PT2ONNX_ASSIGN_OR_RETURN(loss, TimesOptionalWeight(ctx, "weight", loss, ops.dtype));
  return Bind(ctx, ops, loss);
}

// (1 - y) x - lw log_sigmoid(x), lw = 1 + (pos_weight - 1) y, times weight;
// log_sigmoid(x) = min(x, 0) - log(1 + exp(-|x|)) stays finite for any x.
// aten::binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,
//     Tensor? pos_weight=None, int reduction=Mean) -> Tensor
absl::Status AtenBinaryCrossEntropyWithLogits(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  const std::string& x = ops.input;
  std::string one = ctx.ConstantScalar(ops.dtype, 1);
  std::string zero = Zero(ctx, ops.dtype);
  std::string softplus = ctx.Op("Log", {ctx.Op("Add", {one, ctx.Op("Exp", {ctx.Op("Neg", {ctx.Op("Abs", {x})})})})});
  std::string min_x0 = ctx.Op("Where", {ctx.Op("Less", {x, zero}), x, zero});
  std::string log_sigmoid = ctx.Op("Sub", {min_x0, softplus});
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> pos_weight, ctx.OptionalInput("pos_weight"));
  if (pos_weight.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType pw_dtype, ctx.InputDtype("pos_weight"));
    std::string pw = ctx.CastTo(*pos_weight, pw_dtype, ops.dtype);
    std::string log_weight = ctx.Op("Add", {ctx.Op("Mul", {ctx.Op("Sub", {pw, one}), ops.target}), one});
    log_sigmoid = ctx.Op("Mul", {log_sigmoid, log_weight});
  }
  std::string loss = ctx.Op("Sub", {ctx.Op("Mul", {ctx.Op("Sub", {one, ops.target}), x}), log_sigmoid});
  PT2ONNX_ASSIGN_OR_RETURN(loss, TimesOptionalWeight(ctx, "weight", loss, ops.dtype));
  return Bind(ctx, ops, loss);
}

// log_target: exp(y) (y - x); else xlogy(y, y) - y x (0 where y == 0, NaN
// where y is NaN). `mean` is over every element (batchmean is Python's).
// aten::kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) -> Tensor
absl::Status AtenKlDiv(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(LossOperands ops, ReadOperands(ctx));
  bool log_target = false;
  if (ctx.Has("log_target")) {
    PT2ONNX_ASSIGN_OR_RETURN(log_target, ctx.Bool("log_target"));
  }
  const std::string& x = ops.input;
  const std::string& y = ops.target;
  if (log_target) {
    return Bind(ctx, ops, ctx.Op("Mul", {ctx.Op("Exp", {y}), ctx.Op("Sub", {y, x})}));
  }
  std::string zero = Zero(ctx, ops.dtype);
  std::string ylogy = ctx.Op("Where", {ctx.Op("Equal", {y, zero}), zero, ctx.Op("Mul", {y, ctx.Op("Log", {y})})});
  ylogy = ctx.Op("Where", {ctx.Op("IsNaN", {y}), y, ylogy});
  return Bind(ctx, ops, ctx.Op("Sub", {ylogy, ctx.Op("Mul", {y, x})}));
}

// log_input: exp(x) - y x, else x - y log(x + eps); full adds Stirling's
// y log y - y + log(2 pi y) / 2 where y > 1 (Loss.cpp).
// aten::poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor
absl::Status AtenPoissonNllLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) {
    return ctx.Invalid(absl::StrCat("the loss is typed ", DataTypeName(dtype), "; torch computes losses in floating point"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(bool log_input, ctx.Bool("log_input"));
  PT2ONNX_ASSIGN_OR_RETURN(bool full, ctx.Bool("full"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(LossReduction reduction, ReadLossReduction(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("input", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("target", dtype));
  std::string loss =
      log_input ? ctx.Op("Sub", {ctx.Op("Exp", {x}), ctx.Op("Mul", {y, x})})
                : ctx.Op("Sub", {x, ctx.Op("Mul", {y, ctx.Op("Log", {ctx.Op("Add", {x, ctx.ConstantScalar(dtype, eps)})})})});
  if (full) {
    std::string stirling = ctx.Op(
        "Add", {ctx.Op("Sub", {ctx.Op("Mul", {y, ctx.Op("Log", {y})}), y}),
                ctx.Op("Mul", {Half(ctx, dtype), ctx.Op("Log", {ctx.Op("Mul", {ctx.ConstantScalar(dtype, 6.283185307179586), y})})})});
    std::string small = ctx.Op("LessOrEqual", {y, ctx.ConstantScalar(dtype, 1)});
    loss = ctx.Op("Add", {loss, ctx.Op("Where", {small, Zero(ctx, dtype), stirling})});
  }
  return ctx.SetOutput(0, ApplyLossReduction(ctx, loss, reduction));
}

}  // namespace

void RegisterLossOps(OpRegistry& r) {
  r.Add("aten::mse_loss.default", &AtenMseLoss);
  r.Add("aten::l1_loss.default", &AtenL1Loss);
  r.Add("aten::huber_loss.default", &AtenHuberLoss);
  r.Add("aten::smooth_l1_loss.default", &AtenSmoothL1Loss);
  r.Add("aten::soft_margin_loss.default", &AtenSoftMarginLoss);
  r.Add("aten::binary_cross_entropy.default", &AtenBinaryCrossEntropy);
  r.Add("aten::binary_cross_entropy_with_logits.default", &AtenBinaryCrossEntropyWithLogits);
  r.Add("aten::kl_div.default", &AtenKlDiv);
  r.Add("aten::poisson_nll_loss.default", &AtenPoissonNllLoss);
}

}  // namespace pt2onnx::ops
