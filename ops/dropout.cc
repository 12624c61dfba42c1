// File: ops/dropout.cc
// -----------------------------------------------------------------------------
// Dropout in every form torch.export leaves in an eval-mode program. With
// train=False (or p == 0) every variant returns its input unchanged (torch's
// _dropout_impl and native_dropout return the input / a clone), so the
// translation is the identity. Training-mode dropout draws random masks: an
// exported inference graph cannot reproduce it, so it is refused with advice
// to export the model in eval mode.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

absl::Status RefuseTraining(const TranslateContext& ctx, double p) {
  return ctx.Unsupported(absl::StrCat(
      "training-mode dropout (train=True, p=", p,
      ") is random and has no faithful ONNX translation; call model.eval() before "
      "torch.export.export so that dropout becomes the identity"));
}

absl::StatusOr<double> CheckedProbability(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, ctx.Float("p"));
  if (!(p >= 0 && p <= 1)) {
    return ctx.Invalid(absl::StrCat("dropout probability p=", p, " is outside [0, 1]"));
  }
  return p;
}

// The functional variants name their tensor `input`, the in-place ones `self`.
// aten::dropout(Tensor input, float p, bool train) -> Tensor
// aten::feature_dropout(Tensor input, float p, bool train) -> Tensor
// aten::alpha_dropout(Tensor input, float p, bool train) -> Tensor
// aten::feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor
// aten::dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)
// (and feature_dropout_, alpha_dropout_, feature_alpha_dropout_ alike)
absl::Status AtenDropoutAny(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, CheckedProbability(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(bool train, ctx.Bool("train"));
  if (train && p > 0) return RefuseTraining(ctx, p);
  if (IsInPlace(ctx)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
    return ctx.SetInPlaceResult("self", x);
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  return ctx.SetOutput(0, x);
}

// train=None means training, as in torch's native_dropout kernels. The mask
// is all True (bool), shaped like the input.
// aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
absl::Status AtenNativeDropout(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, CheckedProbability(ctx));
  bool train = true;
  if (ctx.Has("train")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("train"));
    if (arg.kind != pt2::Argument::Kind::kNone) {
      PT2ONNX_ASSIGN_OR_RETURN(train, ctx.Bool("train"));
    }
  }
  if (train && p > 0) return RefuseTraining(ctx, p);
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, x));
  if (!ctx.OutputUsed(1)) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "input"));
  return ctx.SetOutput(1, ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, 1), shape}));
}

// aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor
// grad * mask * scale, deterministic given the saved mask
// (aten/src/ATen/native/Dropout.cpp).
absl::Status AtenNativeDropoutBackward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mask, ctx.InputAs("mask", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(double scale, ctx.Float("scale"));
  if (!IsFloatingPoint(dtype)) return ctx.Invalid("native_dropout_backward of a non-floating grad");
  std::string masked = ctx.Op("Mul", {grad, mask});
  return ctx.SetOutput(0, ctx.Op("Mul", {masked, ctx.ConstantScalar(dtype, scale)}));
}

}  // namespace

void RegisterDropoutOps(OpRegistry& r) {
  r.Add("aten::native_dropout_backward.default", &AtenNativeDropoutBackward);
  r.Add("aten::dropout.default", &AtenDropoutAny);
  r.Add("aten::dropout_.default", &AtenDropoutAny);
  r.Add("aten::feature_dropout.default", &AtenDropoutAny);
  r.Add("aten::feature_dropout_.default", &AtenDropoutAny);
  r.Add("aten::alpha_dropout.default", &AtenDropoutAny);
  r.Add("aten::alpha_dropout_.default", &AtenDropoutAny);
  r.Add("aten::feature_alpha_dropout.default", &AtenDropoutAny);
  r.Add("aten::feature_alpha_dropout_.default", &AtenDropoutAny);
  r.Add("aten::native_dropout.default", &AtenNativeDropout);
}

}  // namespace pt2onnx::ops
