// Reference kernels: dropout in every form an exported program keeps. With
// train=False or p == 0 torch returns the input (native_dropout: a clone and
// an all-True mask). Training mode draws the mask as torch's _dropout_impl
// and native_dropout_cpu do (aten/src/ATen/native/Dropout.cpp): keep with
// probability 1 - p per element (per [N, C] map for the feature forms),
// scale by 1 / (1 - p), alpha dropout's affine correction, p == 1 giving
// x * 0. The results are marked not comparable (reference/random_draws.h).
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "reference/random_draws.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<double> Probability(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, call.Double("p"));
  if (!(p >= 0 && p <= 1)) return call.Invalid(absl::StrCat("dropout probability p=", p, " is outside [0, 1]"));
  return p;
}

constexpr double kAlpha = 1.7580993408473766;  // Dropout.cpp, _dropout_impl

// Training-mode _dropout_impl of `x` (p in (0, 1]).
absl::StatusOr<Tensor> TrainingDropout(const RefCall& call, const Tensor& x, double p, bool feature, bool alpha) {
  if (!IsFloatLike(x.dtype())) return call.Unsupported("training-mode dropout of a non-float tensor");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(x.dtype(), x.dims()));
  if (p == 1) {
    for (int64_t i = 0; i < x.numel(); ++i) StoreDouble(out, i, LoadDouble(x, i) * 0.0);
    return out;
  }
  // One draw per element, or per [N, C] map: elements of map m are i / inner.
  int64_t inner = 1;
  if (feature) {
    if (x.rank() < 2) return call.Invalid("Feature dropout requires at least 2 dimensions in the input");
    for (int64_t d = 2; d < x.rank(); ++d) inner *= x.dims()[d];
  }
  const int64_t draws = inner == 0 ? 0 : x.numel() / inner;
  std::vector<double> mask(draws);
  RandomStream s;
  for (double& m : mask) m = s.Uniform() < 1 - p ? 1.0 : 0.0;
  const double a = 1 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double m = mask[i / inner];
    const double v = LoadDouble(x, i);
    StoreDouble(out, i, alpha ? v * m * a + ((m - 1) * kAlpha * a + kAlpha * a * p) : v * (m / (1 - p)));
  }
  return out;
}

// aten::dropout(Tensor input, float p, bool train) -> Tensor
// (feature_dropout, alpha_dropout, feature_alpha_dropout alike; the in-place
// forms name the tensor `self`)
absl::Status DropoutAny(RefCall& call, bool in_place, bool feature, bool alpha) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, Probability(call));
  PT2ONNX_ASSIGN_OR_RETURN(bool train, call.Bool("train"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input(in_place ? "self" : "input"));
  if (!train || p == 0) return call.SetTensor(std::move(x));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, TrainingDropout(call, x, p, feature, alpha));
  if (!in_place) return SetRandom(call, std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(x, out));
  return SetRandom(call, std::move(x));
}
absl::Status Dropout(RefCall& c) { return DropoutAny(c, false, false, false); }
absl::Status DropoutInPlace(RefCall& c) { return DropoutAny(c, true, false, false); }
absl::Status FeatureDropout(RefCall& c) { return DropoutAny(c, false, true, false); }
absl::Status FeatureDropoutInPlace(RefCall& c) { return DropoutAny(c, true, true, false); }
absl::Status AlphaDropout(RefCall& c) { return DropoutAny(c, false, false, true); }
absl::Status AlphaDropoutInPlace(RefCall& c) { return DropoutAny(c, true, false, true); }
absl::Status FeatureAlphaDropout(RefCall& c) { return DropoutAny(c, false, true, true); }
absl::Status FeatureAlphaDropoutInPlace(RefCall& c) { return DropoutAny(c, true, true, true); }

// train=None means training, as in torch's kernels. p == 0 keeps every
// element with scale 1: no draw, the values are torch's.
// aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
absl::Status NativeDropout(RefCall& call) {
  bool train = true;
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, call.Arg("train"));
  if (arg.kind != pt2::Argument::Kind::kNone) {
    PT2ONNX_ASSIGN_OR_RETURN(train, call.Bool("train"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(double p, Probability(call));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(input));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, NewTensor(DataType::kBool, input.dims()));
  if (!train || p == 0) {
    for (int64_t i = 0; i < mask.numel(); ++i) StoreInt(mask, i, 1);
    PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(out)));
    return call.SetTensor(std::move(mask));
  }
  if (!IsFloatLike(input.dtype())) return call.Unsupported("training-mode native_dropout of a non-float tensor");
  // native_dropout_cpu: scale = 1 / (1 - p), 0 for p == 1.
  const double scale = p == 1 ? 0 : 1 / (1 - p);
  RandomStream s;
  for (int64_t i = 0; i < input.numel(); ++i) {
    const bool keep = s.Uniform() < 1 - p;
    StoreInt(mask, i, keep ? 1 : 0);
    StoreDouble(out, i, LoadDouble(input, i) * (keep ? 1.0 : 0.0) * scale);
  }
  PT2ONNX_RETURN_IF_ERROR(SetRandom(call, std::move(out)));
  return SetRandom(call, std::move(mask));
}

// aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor
absl::Status NativeDropoutBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, call.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(double scale, call.Double("scale"));
  if (mask.dims() != grad.dims()) return call.Invalid("native_dropout_backward: mask must be shaped like grad_output");
  // An integer or bool grad: the product promotes to the default float dtype
  // (the node's output), computed there as ATen's grad * mask * scale is.
  const bool promoted = !IsFloatLike(grad.dtype());
  const DataType out_dtype = promoted ? call.OutputDtype() : grad.dtype();
  if (!IsFloatLike(out_dtype)) return call.Invalid("native_dropout_backward with a non-floating output");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(out_dtype, grad.dims()));
  for (int64_t i = 0; i < grad.numel(); ++i) {
    const double masked = LoadDouble(grad, i) * LoadDouble(mask, i);
    StoreDouble(out, i, promoted && out_dtype == DataType::kFloat
                            ? static_cast<double>(static_cast<float>(masked) * static_cast<float>(scale))
                            : masked * scale);
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterDropoutRef(RefRegistry& r) {
  r.Add("aten::native_dropout_backward.default", NativeDropoutBackward);
  r.Add("aten::dropout.default", Dropout);
  r.Add("aten::dropout_.default", DropoutInPlace);
  r.Add("aten::feature_dropout.default", FeatureDropout);
  r.Add("aten::feature_dropout_.default", FeatureDropoutInPlace);
  r.Add("aten::alpha_dropout.default", AlphaDropout);
  r.Add("aten::alpha_dropout_.default", AlphaDropoutInPlace);
  r.Add("aten::feature_alpha_dropout.default", FeatureAlphaDropout);
  r.Add("aten::feature_alpha_dropout_.default", FeatureAlphaDropoutInPlace);
  r.Add("aten::native_dropout.default", NativeDropout);
}

}  // namespace pt2onnx::reference
