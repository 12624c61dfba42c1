// File: ops/dropout.cc
// -----------------------------------------------------------------------------
// Dropout in every form an exported program keeps. With train=False (or
// p == 0) every variant returns its input unchanged (torch's _dropout_impl
// and native_dropout return the input / a clone). Training-mode dropout
// draws its mask as torch does (aten/src/ATen/native/Dropout.cpp,
// _dropout_impl and native_dropout_cpu): keep each element (each [N, C]
// feature map for the feature variants) with probability 1 - p, scale the
// kept ones by 1 / (1 - p), and for alpha dropout apply the affine correction
// that keeps SELU's zero mean and unit variance; p == 1 multiplies by zero.
// The mask comes from a RandomUniformLike draw (ops/random_draws.h): the
// values cannot equal torch's, their distribution does.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/random_draws.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

absl::StatusOr<double> CheckedProbability(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, ctx.Float("p"));
  if (!(p >= 0 && p <= 1)) {
    return ctx.Invalid(absl::StrCat("dropout probability p=", p, " is outside [0, 1]"));
  }
  return p;
}

// SELU's alpha-dropout constant (Dropout.cpp, _dropout_impl).
constexpr double kAlpha = 1.7580993408473766;

// Training-mode dropout of x (p in (0, 1]) as _dropout_impl computes it.
absl::StatusOr<std::string> TrainingDropout(TranslateContext& ctx, const std::string& x, absl::string_view arg,
                                            double p, bool feature, bool alpha) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(arg));
  const DataType dtype = meta->dtype;
  if (!IsFloatingPoint(dtype)) {
    return ctx.Unsupported(absl::StrCat("training-mode dropout of a ", DataTypeName(dtype), " tensor"));
  }
  if (p == 1) return ApplyDropout(ctx, x, dtype, p, x);  // x * 0, before the alpha correction
  std::string noise_like = x;
  if (feature) {
    const int64_t rank = static_cast<int64_t>(meta->sizes.size());
    if (rank < 2) return ctx.Invalid("Feature dropout requires at least 2 dimensions in the input");
    std::vector<int64_t> ones(rank - 2, 1);
    std::string shape = ShapeSlice(ctx, x, 0, 2);
    if (!ones.empty()) {
      shape = ctx.Op("Concat", {shape, ctx.ConstantInt64s(ones)}, {ir::Attribute::Int("axis", 0)});
    }
    noise_like = ctx.Op("Expand", {ctx.ConstantScalar(DataType::kDouble, 0), shape});
  }
  if (!alpha) return ApplyDropout(ctx, x, dtype, p, noise_like);
  // a = 1 / sqrt((alpha^2 p + 1)(1 - p)); b = (mask - 1) alpha a + alpha a p;
  // y = x * mask * a + b.
  const double a = 1 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  std::string mask = ctx.CastTo(KeepMask(ctx, noise_like, 1 - p), DataType::kBool, dtype);
  std::string b = ctx.Op("Add", {ctx.Op("Mul", {ctx.Op("Sub", {mask, ctx.ConstantScalar(dtype, 1)}),
                                                ctx.ConstantScalar(dtype, kAlpha * a)}),
                                 ctx.ConstantScalar(dtype, kAlpha * a * p)});
  std::string scaled = ctx.Op("Mul", {x, ctx.Op("Mul", {mask, ctx.ConstantScalar(dtype, a)})});
  return ctx.Op("Add", {scaled, b});
}

// The functional variants name their tensor `input`, the in-place ones `self`.
// aten::dropout(Tensor input, float p, bool train) -> Tensor
// aten::feature_dropout(Tensor input, float p, bool train) -> Tensor
// aten::alpha_dropout(Tensor input, float p, bool train) -> Tensor
// aten::feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor
// aten::dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)
// (and feature_dropout_, alpha_dropout_, feature_alpha_dropout_ alike)
absl::Status DropoutAny(TranslateContext& ctx, bool feature, bool alpha) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, CheckedProbability(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(bool train, ctx.Bool("train"));
  const absl::string_view arg = IsInPlace(ctx) ? "self" : "input";
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input(arg));
  if (train && p > 0) {
    PT2ONNX_ASSIGN_OR_RETURN(x, TrainingDropout(ctx, x, arg, p, feature, alpha));
  }
  if (IsInPlace(ctx)) return ctx.SetInPlaceResult("self", x);
  return ctx.SetOutput(0, x);
}

absl::Status AtenDropout(TranslateContext& ctx) { return DropoutAny(ctx, false, false); }
absl::Status AtenFeatureDropout(TranslateContext& ctx) { return DropoutAny(ctx, true, false); }
absl::Status AtenAlphaDropout(TranslateContext& ctx) { return DropoutAny(ctx, false, true); }
absl::Status AtenFeatureAlphaDropout(TranslateContext& ctx) { return DropoutAny(ctx, true, true); }

// train=None means training, as in torch's native_dropout kernels. Eval, or
// p == 0 (a bernoulli(1) mask keeps everything, scale 1): the input and an
// all-True mask, with no draw. Training (native_dropout_cpu): mask =
// bernoulli(1 - p) (bool), output = x * mask * scale with scale = 1 / (1 - p),
// or 0 for p == 1.
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
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  if (!train || p == 0) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, x));
    if (!ctx.OutputUsed(1)) return absl::OkStatus();
    PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "input"));
    return ctx.SetOutput(1, ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, 1), shape}));
  }
  if (!IsFloatingPoint(dtype)) {
    return ctx.Unsupported(absl::StrCat("training-mode native_dropout of a ", DataTypeName(dtype), " tensor"));
  }
  std::string mask = KeepMask(ctx, x, 1 - p);
  const double scale = p == 1 ? 0 : 1 / (1 - p);
  std::string y = ctx.Op("Mul", {ctx.Op("Mul", {x, ctx.CastTo(mask, DataType::kBool, dtype)}),
                                 ctx.ConstantScalar(dtype, scale)});
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, y));
  return ctx.SetOutput(1, mask);
}

// aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor
// grad * mask * scale, deterministic given the saved mask
// (aten/src/ATen/native/Dropout.cpp).
// An integer or bool grad times the float scale promotes to the default
// float dtype (the node's output dtype), as the product does in ATen.
absl::Status AtenNativeDropoutBackward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(double scale, ctx.Float("scale"));
  if (!IsFloatingPoint(dtype)) {
    const DataType out = ctx.OutputDtype(0) == DataType::kUndefined ? DataType::kFloat : ctx.OutputDtype(0);
    if (!IsFloatingPoint(out)) return ctx.Invalid("native_dropout_backward with a non-floating output");
    PT2ONNX_ASSIGN_OR_RETURN(std::string keep, ctx.InputAs("mask", DataType::kBool));
    std::string masked = ctx.Op("Where", {keep, ctx.CastTo(grad, dtype, out), ctx.ConstantScalar(out, 0)});
    return ctx.SetOutput(0, ctx.Op("Mul", {masked, ctx.ConstantScalar(out, scale)}));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string mask, ctx.InputAs("mask", dtype));
  std::string masked = ctx.Op("Mul", {grad, mask});
  return ctx.SetOutput(0, ctx.Op("Mul", {masked, ctx.ConstantScalar(dtype, scale)}));
}

}  // namespace

void RegisterDropoutOps(OpRegistry& r) {
  r.Add("aten::native_dropout_backward.default", &AtenNativeDropoutBackward);
  AddWithInPlace(r, "aten::dropout", "default", &AtenDropout);
  AddWithInPlace(r, "aten::feature_dropout", "default", &AtenFeatureDropout);
  AddWithInPlace(r, "aten::alpha_dropout", "default", &AtenAlphaDropout);
  AddWithInPlace(r, "aten::feature_alpha_dropout", "default", &AtenFeatureAlphaDropout);
  r.Add("aten::native_dropout.default", &AtenNativeDropout);
}

}  // namespace pt2onnx::ops
