// File: reference/loss.cc
// -----------------------------------------------------------------------------
// Reference kernels for the losses (ops/loss.cc, ops/classification_loss.cc):
// mse, l1, huber, smooth_l1, soft_margin, binary_cross_entropy(_with_logits),
// kl_div, poisson_nll, nll_loss (all overloads) and cross_entropy_loss, in
// double, with the loops of aten/src/ATen/native/Loss.cpp and LossNLL.cpp.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/loss_reduction.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

double OptionalDouble(const RefCall& call, absl::string_view name, double fallback) {
  if (!call.Has(name)) return fallback;
  auto v = call.OptionalDouble(name);
  return v.ok() && v->has_value() ? **v : fallback;
}

// Input, target and an optional `weight` argument broadcast together, as doubles.
struct Broadcast {
  Dims dims;
  std::vector<double> x, y, w;
};
absl::StatusOr<Broadcast> ReadBroadcast(const RefCall& call, absl::string_view weight_arg = "") {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, call.Input("target"));
  std::optional<Tensor> w;
  if (!weight_arg.empty() && call.Has(weight_arg)) {
    PT2ONNX_ASSIGN_OR_RETURN(w, call.OptionalInput(weight_arg));
  }
  Broadcast b;
  PT2ONNX_ASSIGN_OR_RETURN(b.dims, BroadcastDims(x.dims(), y.dims()));
  if (w.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(b.dims, BroadcastDims(b.dims, w->dims()));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor xb, BroadcastTo(x, b.dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor yb, BroadcastTo(y, b.dims));
  b.x = ToDoubles(xb);
  b.y = ToDoubles(yb);
  b.w.assign(b.x.size(), 1.0);
  if (w.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor wb, BroadcastTo(*w, b.dims));
    b.w = ToDoubles(wb);
  }
  return b;
}

using PointLoss = std::function<double(double x, double y)>;
absl::Status Pointwise(RefCall& call, const PointLoss& f, absl::string_view weight_arg = "") {
  PT2ONNX_ASSIGN_OR_RETURN(Broadcast b, ReadBroadcast(call, weight_arg));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  std::vector<double> v(b.x.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = f(b.x[i], b.y[i]) * b.w[i];
  return SetReduced(call, call.OutputDtype(), b.dims, v, reduction);
}

// aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
absl::Status MseLoss(RefCall& call) { return Pointwise(call, [](double x, double y) { return (x - y) * (x - y); }); }
// aten::l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
absl::Status L1Loss(RefCall& call) { return Pointwise(call, [](double x, double y) { return std::fabs(x - y); }); }
// aten::huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor
absl::Status HuberLoss(RefCall& call) {
  const double delta = OptionalDouble(call, "delta", 1.0);
  return Pointwise(call, [delta](double x, double y) {
    const double z = std::fabs(x - y);
    return z < delta ? 0.5 * z * z : delta * (z - 0.5 * delta);
  });
}
// aten::smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor
absl::Status SmoothL1Loss(RefCall& call) {
  const double beta = OptionalDouble(call, "beta", 1.0);
  return Pointwise(call, [beta](double x, double y) {
    const double z = std::fabs(x - y);
    if (beta == 0) return z;
    return z < beta ? 0.5 * z * z / beta : z - 0.5 * beta;
  });
}
// aten::soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
absl::Status SoftMarginLoss(RefCall& call) {
  return Pointwise(call, [](double x, double y) { return std::log1p(std::exp(-x * y)); });
}
// aten::binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor
absl::Status BinaryCrossEntropy(RefCall& call) {
  return Pointwise(
      call,
      [](double x, double y) {
        return (y - 1) * std::max(std::log1p(-x), -100.0) - y * std::max(std::log(x), -100.0);
      },
      "weight");
}
// aten::binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,
//     Tensor? pos_weight=None, int reduction=Mean) -> Tensor
absl::Status BinaryCrossEntropyWithLogits(RefCall& call) {
  std::optional<Tensor> pos_weight;
  if (call.Has("pos_weight")) {
    PT2ONNX_ASSIGN_OR_RETURN(pos_weight, call.OptionalInput("pos_weight"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Broadcast b, ReadBroadcast(call, "weight"));
  std::vector<double> pw(b.x.size(), 1.0);
  if (pos_weight.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor pwb, BroadcastTo(*pos_weight, b.dims));
    pw = ToDoubles(pwb);
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  std::vector<double> v(b.x.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = b.x[i], y = b.y[i];
    const double log_sigmoid = std::min(x, 0.0) - std::log1p(std::exp(-std::fabs(x)));
    const double log_weight = (pw[i] - 1) * y + 1;
    v[i] = ((1 - y) * x - log_weight * log_sigmoid) * b.w[i];
  }
  return SetReduced(call, call.OutputDtype(), b.dims, v, reduction);
}
// aten::kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) -> Tensor
absl::Status KlDiv(RefCall& call) {
  bool log_target = false;
  if (call.Has("log_target")) {
    PT2ONNX_ASSIGN_OR_RETURN(log_target, call.Bool("log_target"));
  }
  return Pointwise(call, [log_target](double x, double y) {
    if (log_target) return std::exp(y) * (y - x);
    const double ylogy = std::isnan(y) ? y : (y == 0 ? 0.0 : y * std::log(y));
    return ylogy - y * x;
  });
}

// aten::poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor
absl::Status PoissonNllLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, call.Input("target"));
  PT2ONNX_ASSIGN_OR_RETURN(bool log_input, call.Bool("log_input"));
  PT2ONNX_ASSIGN_OR_RETURN(bool full, call.Bool("full"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(x.dims(), y.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor xb, BroadcastTo(x, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor yb, BroadcastTo(y, dims));
  const std::vector<double> xs = ToDoubles(xb), ys = ToDoubles(yb);
  std::vector<double> v(xs.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double a = xs[i], t = ys[i];
    v[i] = log_input ? std::exp(a) - t * a : a - t * std::log(a + eps);
    // Stirling's approximation of log(t!), only where t > 1 (NaN kept).
    if (full && !(t <= 1)) v[i] += t * std::log(t) - t + 0.5 * std::log(6.283185307179586 * t);
  }
  return SetReduced(call, call.OutputDtype(), dims, v, reduction);
}

// nll_loss over log-probabilities `logp` (N, C, d...) or (C): per-target
// losses and weights, 0 where the target is ignore_index.
struct Nll {
  Dims target_dims;
  std::vector<double> loss, weight;
  int64_t reduction = 1;
  double Reduced(const std::vector<double>& per_target) const {
    double sum = 0, total = 0;
    for (size_t i = 0; i < per_target.size(); ++i) sum += per_target[i];
    for (double w : weight) total += w;
    return reduction == 1 ? sum / total : sum;
  }
};
absl::StatusOr<Nll> ComputeNll(const RefCall& call, const Tensor& logp_tensor, std::vector<double>* classes_sum) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor target, call.Input("target"));
  std::optional<Tensor> weight;
  if (call.Has("weight")) {
    PT2ONNX_ASSIGN_OR_RETURN(weight, call.OptionalInput("weight"));
  }
  int64_t ignore_index = -100;
  if (call.Has("ignore_index")) {
    PT2ONNX_ASSIGN_OR_RETURN(ignore_index, call.Int("ignore_index"));
  }
  Nll nll;
  PT2ONNX_ASSIGN_OR_RETURN(nll.reduction, ReadReduction(call));
  const Dims& d = logp_tensor.dims();
  if (d.empty()) return call.Invalid("nll_loss of a 0-d input");
  const int64_t axis = d.size() == 1 ? 0 : 1;
  const int64_t classes = d[axis];
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= d[i];
  for (size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  const std::vector<double> logp = ToDoubles(logp_tensor);
  const std::vector<int64_t> t = ToInts(target);
  if (static_cast<int64_t>(t.size()) != outer * inner) return call.Invalid("target does not match the input");
  std::vector<double> w(classes, 1.0);
  if (weight.has_value()) w = ToDoubles(*weight);
  nll.target_dims = target.dims();
  nll.loss.assign(t.size(), 0.0);
  nll.weight.assign(t.size(), 0.0);
  if (classes_sum != nullptr) classes_sum->assign(t.size(), 0.0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t k = o * inner + i;
      if (t[k] == ignore_index) continue;
      if (t[k] < 0 || t[k] >= classes) return call.Invalid(absl::StrCat("Target ", t[k], " is out of bounds."));
      const auto at = [&](int64_t c) { return logp[(o * classes + c) * inner + i]; };
      nll.weight[k] = w[t[k]];
      nll.loss[k] = -w[t[k]] * at(t[k]);
      if (classes_sum != nullptr) {
        double s = 0;
        for (int64_t c = 0; c < classes; ++c) s -= w[c] * at(c);
        (*classes_sum)[k] = s;
      }
    }
  }
  return nll;
}

absl::Status SetNll(RefCall& call, const Nll& nll, DataType dtype, bool with_total_weight) {
  Tensor out;
  if (nll.reduction == 0) {
    PT2ONNX_ASSIGN_OR_RETURN(out, FromDoubles(dtype, nll.target_dims, nll.loss));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(out, ScalarTensor(dtype, nll.Reduced(nll.loss)));
  }
  if (!with_total_weight) return call.SetTensor(std::move(out));
  double total = 0;
  if (nll.reduction != 0) {
    for (double w : nll.weight) total += w;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor total_weight, ScalarTensor(dtype, total));
  // A tuple return: one result per output (SetTensors would make one Tensor[]).
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(out)));
  return call.SetTensor(std::move(total_weight));
}

// aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction,
//     SymInt ignore_index) -> (Tensor output, Tensor total_weight) (and nll_loss2d_forward)
absl::Status NllLossForward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Nll nll, ComputeNll(call, self, nullptr));
  return SetNll(call, nll, self.dtype(), true);
}
// aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
//     SymInt ignore_index=-100) -> Tensor (and nll_loss2d, nll_loss_nd)
absl::Status NllLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Nll nll, ComputeNll(call, self, nullptr));
  return SetNll(call, nll, self.dtype(), false);
}

// log_softmax of `x` along `axis`, as doubles in x's layout.
absl::StatusOr<Tensor> LogSoftmax(const Tensor& x, int64_t axis) {
  const Dims& d = x.dims();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= d[i];
  for (size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  const int64_t n = d[axis];
  std::vector<double> v = ToDoubles(x);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double m = -INFINITY, s = 0;
      for (int64_t c = 0; c < n; ++c) m = std::max(m, v[(o * n + c) * inner + i]);
      for (int64_t c = 0; c < n; ++c) s += std::exp(v[(o * n + c) * inner + i] - m);
      const double lse = m + std::log(s);
      for (int64_t c = 0; c < n; ++c) v[(o * n + c) * inner + i] -= lse;
    }
  }
  return FromDoubles(DataType::kDouble, d, v);
}

// aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
//     SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor
absl::Status CrossEntropyLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor target, call.Input("target"));
  if (self.rank() == 0) return call.Invalid("cross_entropy of a 0-d input");
  const int64_t axis = self.rank() == 1 ? 0 : 1;
  const double eps = OptionalDouble(call, "label_smoothing", 0.0);
  const double classes = static_cast<double>(self.dims()[axis]);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor logp, LogSoftmax(self, axis));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  if (IsFloatLike(target.dtype())) {
    std::optional<Tensor> weight;
    if (call.Has("weight")) {
      PT2ONNX_ASSIGN_OR_RETURN(weight, call.OptionalInput("weight"));
    }
    const Dims& d = self.dims();
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= d[i];
    for (size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
    const int64_t n = d[axis];
    const std::vector<double> lp = ToDoubles(logp), y = ToDoubles(target);
    std::vector<double> w(n, 1.0);
    if (weight.has_value()) w = ToDoubles(*weight);
    std::vector<double> v(outer * inner, 0.0);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < n; ++c) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t k = (o * n + c) * inner + i;
          const double yk = y[k] * (1 - eps) + eps / classes;
          v[o * inner + i] -= lp[k] * yk * w[c];
        }
      }
    }
    Dims out_dims = d;
    out_dims.erase(out_dims.begin() + axis);
    return SetReduced(call, self.dtype(), out_dims, v, reduction);
  }
  std::vector<double> smooth;
  PT2ONNX_ASSIGN_OR_RETURN(Nll nll, ComputeNll(call, logp, eps > 0 ? &smooth : nullptr));
  if (eps == 0) return SetNll(call, nll, self.dtype(), false);
  std::vector<double> mixed(nll.loss.size());
  if (reduction == 0) {
    for (size_t k = 0; k < mixed.size(); ++k) mixed[k] = (1 - eps) * nll.loss[k] + eps / classes * smooth[k];
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(self.dtype(), nll.target_dims, mixed));
    return call.SetTensor(std::move(out));
  }
  const double value = (1 - eps) * nll.Reduced(nll.loss) + eps / classes * nll.Reduced(smooth);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, ScalarTensor(self.dtype(), value));
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterLossRef(RefRegistry& r) {
  r.Add("aten::mse_loss.default", MseLoss);
  r.Add("aten::l1_loss.default", L1Loss);
  r.Add("aten::huber_loss.default", HuberLoss);
  r.Add("aten::smooth_l1_loss.default", SmoothL1Loss);
  r.Add("aten::soft_margin_loss.default", SoftMarginLoss);
  r.Add("aten::binary_cross_entropy.default", BinaryCrossEntropy);
  r.Add("aten::binary_cross_entropy_with_logits.default", BinaryCrossEntropyWithLogits);
  r.Add("aten::kl_div.default", KlDiv);
  r.Add("aten::nll_loss_forward.default", NllLossForward);
  r.Add("aten::nll_loss2d_forward.default", NllLossForward);
  r.Add("aten::nll_loss.default", NllLoss);
  r.Add("aten::nll_loss2d.default", NllLoss);
  r.Add("aten::nll_loss_nd.default", NllLoss);
  r.Add("aten::cross_entropy_loss.default", CrossEntropyLoss);
  r.Add("aten::poisson_nll_loss.default", PoissonNllLoss);
}

}  // namespace pt2onnx::reference
