// Reference kernels: dropout in every form an exported program keeps. With
// train=False or p == 0 torch returns the input (native_dropout: a clone and
// an all-True mask). Training-mode dropout draws random masks that cannot be
// reproduced, so it is refused, as the translator refuses it.
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::Status CheckEval(const RefCall& call, bool train) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, call.Double("p"));
  if (!(p >= 0 && p <= 1)) return call.Invalid(absl::StrCat("dropout probability p=", p, " is outside [0, 1]"));
  if (train && p > 0) {
    return call.Unsupported(absl::StrCat("training-mode dropout (train=True, p=", p,
                                         ") is random; export the model in eval mode"));
  }
  return absl::OkStatus();
}

// aten::dropout(Tensor input, float p, bool train) -> Tensor
// (feature_dropout, alpha_dropout, feature_alpha_dropout alike)
absl::Status Dropout(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool train, call.Bool("train"));
  PT2ONNX_RETURN_IF_ERROR(CheckEval(call, train));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  return call.SetTensor(std::move(input));
}

// aten::dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)
// (feature_dropout_, alpha_dropout_, feature_alpha_dropout_ alike)
absl::Status DropoutInPlace(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool train, call.Bool("train"));
  PT2ONNX_RETURN_IF_ERROR(CheckEval(call, train));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return call.SetTensor(std::move(self));
}

// train=None means training, as in torch's kernels.
// aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
absl::Status NativeDropout(RefCall& call) {
  bool train = true;
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, call.Arg("train"));
  if (arg.kind != pt2::Argument::Kind::kNone) {
    PT2ONNX_ASSIGN_OR_RETURN(train, call.Bool("train"));
  }
  PT2ONNX_RETURN_IF_ERROR(CheckEval(call, train));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(input));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, NewTensor(DataType::kBool, input.dims()));
  for (int64_t i = 0; i < mask.numel(); ++i) StoreInt(mask, i, 1);
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(out)));
  return call.SetTensor(std::move(mask));
}

// aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor
absl::Status NativeDropoutBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, call.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(double scale, call.Double("scale"));
  if (!IsFloatLike(grad.dtype())) return call.Invalid("native_dropout_backward of a non-floating grad");
  if (mask.dims() != grad.dims()) return call.Invalid("native_dropout_backward: mask must be shaped like grad_output");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(grad.dtype(), grad.dims()));
  for (int64_t i = 0; i < grad.numel(); ++i) {
    StoreDouble(out, i, LoadDouble(grad, i) * LoadDouble(mask, i) * scale);
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterDropoutRef(RefRegistry& r) {
  r.Add("aten::native_dropout_backward.default", NativeDropoutBackward);
  r.Add("aten::dropout.default", Dropout);
  r.Add("aten::dropout_.default", DropoutInPlace);
  r.Add("aten::feature_dropout.default", Dropout);
  r.Add("aten::feature_dropout_.default", DropoutInPlace);
  r.Add("aten::alpha_dropout.default", Dropout);
  r.Add("aten::alpha_dropout_.default", DropoutInPlace);
  r.Add("aten::feature_alpha_dropout.default", Dropout);
  r.Add("aten::feature_alpha_dropout_.default", DropoutInPlace);
  r.Add("aten::native_dropout.default", NativeDropout);
}

}  // namespace pt2onnx::reference
