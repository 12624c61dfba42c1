// File: ops/windows.cc
// -----------------------------------------------------------------------------
// Window functions: hann_window, hamming_window, blackman_window (all
// overloads). torch computes them in the output dtype from an arange
// (aten/src/ATen/native/TensorFactories.cpp): hamming is
// alpha - beta cos(2 pi n / (N - 1)), hann is hamming with alpha = beta = 0.5,
// blackman is 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)),
// N = length + 1 for a periodic window (then cut to `length`); lengths 0
// and 1 give [] and [1]. The same arithmetic runs here at run time on a
// Range (ONNX's HannWindow family is not run by every runtime), so the
// output does not grow the model whatever the length.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

struct WindowTerms {
  double a0;  // constant
  double a1;  // times cos(2 pi n / (N - 1))
  double a2;  // times cos(4 pi n / (N - 1))
};

absl::Status Window(TranslateContext& ctx, WindowTerms terms) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) {
    return ctx.Invalid(absl::StrCat("window functions are floating point, not ", DataTypeName(dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t length, ctx.Int("window_length"));
  if (length < 0) return ctx.Invalid(absl::StrCat("window_length is negative (", length, ")"));
  bool periodic = true;
  if (ctx.Has("periodic")) {
    PT2ONNX_ASSIGN_OR_RETURN(periodic, ctx.Bool("periodic"));
  }
  const DataType compute = dtype == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
  if (length <= 1) {
    std::string shape = ctx.ConstantInt64s({length});
    return ctx.SetOutput(0, ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1), shape}));
  }
  const double denominator = static_cast<double>(periodic ? length : length - 1);
  std::string n = ctx.Op("Range", {ctx.ConstantScalar(compute, 0), ctx.ConstantScalar(compute, static_cast<double>(length)),
                                   ctx.ConstantScalar(compute, 1)});
  // torch's order of steps (reference/windows.cc): the ends of a blackman
  // window cancel to a float residue that another order rounds differently.
  const auto scalar = [&](double v) { return ctx.ConstantScalar(compute, v); };
  std::string w;
  if (terms.a2 == 0) {
    std::string c = ctx.Op("Cos", {ctx.Op("Mul", {n, scalar(2 * kPi / denominator)})});
    w = ctx.Op("Add", {ctx.Op("Mul", {c, scalar(terms.a1)}), scalar(terms.a0)});
  } else {
    std::string b = ctx.Op("Mul", {n, scalar(kPi / denominator)});
    std::string four = ctx.Op("Mul", {ctx.Op("Cos", {ctx.Op("Mul", {b, scalar(4)})}), scalar(terms.a2)});
    std::string two = ctx.Op("Mul", {ctx.Op("Cos", {ctx.Op("Mul", {b, scalar(2)})}), scalar(-terms.a1)});
    w = ctx.Op("Add", {ctx.Op("Sub", {four, two}), scalar(terms.a0)});
  }
  return ctx.SetOutput(0, ctx.CastTo(w, compute, dtype));
}

// aten::hann_window(int window_length, *, ScalarType? dtype=None, ...) -> Tensor
// aten::hann_window.periodic(int window_length, bool periodic, *, ...) -> Tensor
absl::Status AtenHannWindow(TranslateContext& ctx) { return Window(ctx, {0.5, -0.5, 0}); }

// aten::hamming_window(int window_length, ...) and its .periodic,
// .periodic_alpha, .periodic_alpha_beta overloads (alpha 0.54, beta 0.46).
absl::Status AtenHammingWindow(TranslateContext& ctx) {
  double alpha = 0.54, beta = 0.46;
  if (ctx.Has("alpha")) {
    PT2ONNX_ASSIGN_OR_RETURN(alpha, ctx.Float("alpha"));
  }
  if (ctx.Has("beta")) {
    PT2ONNX_ASSIGN_OR_RETURN(beta, ctx.Float("beta"));
  }
  return Window(ctx, {alpha, -beta, 0});
}

// aten::blackman_window(int window_length, ...) -> Tensor (and .periodic)
absl::Status AtenBlackmanWindow(TranslateContext& ctx) { return Window(ctx, {0.42, -0.5, 0.08}); }

}  // namespace

void RegisterWindowOps(OpRegistry& r) {
  r.Add("aten::hann_window.default", &AtenHannWindow);
  r.Add("aten::hann_window.periodic", &AtenHannWindow);
  r.Add("aten::hamming_window.default", &AtenHammingWindow);
  r.Add("aten::hamming_window.periodic", &AtenHammingWindow);
  r.Add("aten::hamming_window.periodic_alpha", &AtenHammingWindow);
  r.Add("aten::hamming_window.periodic_alpha_beta", &AtenHammingWindow);
  r.Add("aten::blackman_window.default", &AtenBlackmanWindow);
  r.Add("aten::blackman_window.periodic", &AtenBlackmanWindow);
}

}  // namespace pt2onnx::ops
