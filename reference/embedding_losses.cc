// File: reference/embedding_losses.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/embedding_losses.cc: margin_ranking,
// hinge_embedding, cosine_embedding, multi_margin and multilabel_margin, in
// double with the per-element and per-sample loops of
// aten/src/ATen/native/Loss.cpp, LossMultiMargin.cpp and
// LossMultiLabelMargin.cpp.
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/loss_reduction.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// max(v, 0) as clamp_min: NaN stays NaN.
double ClampMin0(double v) { return v < 0 ? 0.0 : v; }

// The named tensors broadcast together, as doubles.
absl::StatusOr<std::vector<std::vector<double>>> ReadBroadcast(const RefCall& call,
                                                                const std::vector<absl::string_view>& names,
                                                                Dims& dims) {
  std::vector<Tensor> ts;
  dims.clear();
  for (absl::string_view name : names) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input(name));
    PT2ONNX_ASSIGN_OR_RETURN(dims, BroadcastDims(dims, t.dims()));
    ts.push_back(std::move(t));
  }
  std::vector<std::vector<double>> out;
  for (const Tensor& t : ts) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(t, dims));
    out.push_back(ToDoubles(b));
  }
  return out;
}

// aten::margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor
absl::Status MarginRankingLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double margin, call.Double("margin"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  Dims dims;
  PT2ONNX_ASSIGN_OR_RETURN(auto v, ReadBroadcast(call, {"input1", "input2", "target"}, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor first, call.Input("input1"));
  const DataType in = first.dtype();
  std::vector<double> loss(v[0].size());
  for (size_t i = 0; i < loss.size(); ++i) {
    double product = -v[2][i] * (v[0][i] - v[1][i]);
    // Integer inputs: Loss.cpp's -target * (input1 - input2) is integer
    // arithmetic that wraps at the input's width; only `+ margin` is floating.
    if (IsInteger(in)) product = WrapToWidth(static_cast<int64_t>(product), in);
    loss[i] = ClampMin0(product + margin);
  }
  return SetReduced(call, call.OutputDtype(), dims, loss, reduction);
}

// aten::hinge_embedding_loss(Tensor self, Tensor target, float margin=1., int reduction=1) -> Tensor
absl::Status HingeEmbeddingLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double margin, call.Double("margin"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  Dims dims;
  PT2ONNX_ASSIGN_OR_RETURN(auto v, ReadBroadcast(call, {"self", "target"}, dims));
  std::vector<double> loss(v[0].size());
  for (size_t i = 0; i < loss.size(); ++i) {
    const double x = v[0][i], y = v[1][i];
    loss[i] = (y != 1 ? ClampMin0(margin - x) : 0.0) + (y != -1 ? x : 0.0);
  }
  return SetReduced(call, call.OutputDtype(), dims, loss, reduction);
}

// aten::cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor
absl::Status CosineEmbeddingLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, call.Input("input1"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, call.Input("input2"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor target, call.Input("target"));
  PT2ONNX_ASSIGN_OR_RETURN(double margin, call.Double("margin"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  if (target.rank() > 1 || a.rank() != target.rank() + 1 || a.dims() != b.dims()) {
    return call.Invalid("cosine_embedding_loss expects (N, D) inputs with an (N) target or (D) inputs with a 0-d one");
  }
  const int64_t n = target.rank() == 0 ? 1 : target.dims()[0];
  const int64_t d = a.dims().back();
  if (target.numel() != n || a.numel() != n * d) return call.Invalid("cosine_embedding_loss: sizes differ");
  const std::vector<double> x1 = ToDoubles(a), x2 = ToDoubles(b), y = ToDoubles(target);
  std::vector<double> loss(n);
  for (int64_t i = 0; i < n; ++i) {
    double dot = 0, m1 = 0, m2 = 0;
    for (int64_t k = 0; k < d; ++k) {
      dot += x1[i * d + k] * x2[i * d + k];
      m1 += x1[i * d + k] * x1[i * d + k];
      m2 += x2[i * d + k] * x2[i * d + k];
    }
    const double cos = dot / std::sqrt((m1 + 1e-12) * (m2 + 1e-12));
    loss[i] = (y[i] == 1 ? 1 - cos : 0.0) + (y[i] == -1 ? ClampMin0(cos - margin) : 0.0);
  }
  return SetReduced(call, call.OutputDtype(), target.dims(), loss, reduction);
}

// Input as N samples of C classes: (N, C), (C) is one sample, 0-d one class.
struct Samples {
  int64_t n, c;
  std::vector<double> x;
};
absl::StatusOr<Samples> ReadSamples(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("self"));
  if (x.rank() > 2) return call.Invalid(absl::StrCat("expected a 0-D, 1-D or 2-D input, got ", x.rank(), "-D"));
  Samples s;
  s.n = x.rank() == 2 ? x.dims()[0] : 1;
  s.c = x.rank() == 0 ? 1 : x.dims().back();
  if (s.c == 0) return call.Invalid("expected a non-empty class dimension");
  s.x = ToDoubles(x);
  return s;
}

// Per-sample losses (already divided by C) reduced; none gives (N) unless
// torch gives a 0-d result.
absl::Status SetPerSample(RefCall& call, const std::vector<double>& loss, bool none_is_0d, int64_t reduction) {
  Dims dims;
  if (!none_is_0d) dims = {static_cast<int64_t>(loss.size())};
  return SetReduced(call, call.OutputDtype(), dims, loss, reduction);
}

// aten::multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None,
//     int reduction=1) -> Tensor
absl::Status MultiMarginLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Samples s, ReadSamples(call));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor target, call.Input("target"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar p_arg, call.Scalar("p"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar margin_arg, call.Scalar("margin"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weight, call.OptionalInput("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  const double p = p_arg.AsDouble(), margin = margin_arg.AsDouble();
  if (p != 1 && p != 2) return call.Invalid("only p == 1 and p == 2 supported");
  if (target.rank() > 1 || target.numel() != s.n) return call.Invalid("inconsistent target size");
  const std::vector<int64_t> t = ToInts(target);
  std::vector<double> w;
  if (weight.has_value()) w = ToDoubles(*weight);
  std::vector<double> loss(s.n);
  for (int64_t i = 0; i < s.n; ++i) {
    const int64_t y = t[i];
    if (y < 0 || y >= s.c) return call.Invalid("target out of range");
    const double* x = s.x.data() + i * s.c;
    double sum = 0;
    for (int64_t d = 0; d < s.c; ++d) {
      if (d == y) continue;
      double h = ClampMin0(margin - x[y] + x[d]);
      if (p == 2) h *= h;
      if (weight.has_value()) {
        if (static_cast<size_t>(y) >= w.size()) return call.Invalid("weight shorter than the classes");
        h *= w[y];
      }
      sum += h;
    }
    loss[i] = sum / static_cast<double>(s.c);
  }
  return SetPerSample(call, loss, target.rank() == 0, reduction);
}

// aten::multilabel_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor
absl::Status MultilabelMarginLoss(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Samples s, ReadSamples(call));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor target, call.Input("target"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  if (target.numel() != s.n * s.c) return call.Invalid("inconsistent target size");
  const std::vector<int64_t> t = ToInts(target);
  std::vector<double> loss(s.n);
  for (int64_t i = 0; i < s.n; ++i) {
    const double* x = s.x.data() + i * s.c;
    const int64_t* ti = t.data() + i * s.c;
    std::vector<bool> is_target(s.c, false);
    int64_t count = 0;
    for (; count < s.c && ti[count] != -1; ++count) {
      if (ti[count] < 0 || ti[count] >= s.c) return call.Invalid("target index out of range");
      is_target[ti[count]] = true;
    }
    double sum = 0;
    for (int64_t k = 0; k < count; ++k) {
      for (int64_t d = 0; d < s.c; ++d) {
        if (!is_target[d]) sum += ClampMin0(1 - x[ti[k]] + x[d]);
      }
    }
    loss[i] = sum / static_cast<double>(s.c);
  }
  return SetPerSample(call, loss, target.rank() <= 1, reduction);
}

}  // namespace

void RegisterEmbeddingLossesRef(RefRegistry& r) {
  r.Add("aten::margin_ranking_loss.default", MarginRankingLoss);
  r.Add("aten::hinge_embedding_loss.default", HingeEmbeddingLoss);
  r.Add("aten::cosine_embedding_loss.default", CosineEmbeddingLoss);
  r.Add("aten::multi_margin_loss.default", MultiMarginLoss);
  r.Add("aten::multilabel_margin_loss.default", MultilabelMarginLoss);
}

}  // namespace pt2onnx::reference
