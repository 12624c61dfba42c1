// Reference kernels: sampling from torch's distributions (bernoulli, normal,
// multinomial, the in-place samplers uniform_ / normal_ / log_normal_ /
// cauchy_ / exponential_ / geometric_, training-mode rrelu). Each maps
// uniform or normal draws through the quantile function torch uses
// (aten/src/ATen/core/TransformationHelper.h), so the values follow torch's
// distribution; they are marked not comparable (reference/random_draws.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/random_draws.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// In-place overloads have no schema defaults: `fallback` when omitted.
absl::StatusOr<double> DoubleOr(const RefCall& call, absl::string_view name, double fallback) {
  if (!call.Has(name)) return fallback;
  return call.Double(name);
}

bool InPlace(const RefCall& call) {
  absl::string_view key = call.key();
  const size_t dot = key.find('.');
  return dot != absl::string_view::npos && dot > 0 && key[dot - 1] == '_';
}

// Fills a tensor shaped and typed like self with f(stream, i) and sets it
// (written into self for in-place overloads).
absl::Status Sample(RefCall& call, const std::function<double(RandomStream&, int64_t)>& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), self.dims()));
  RandomStream s;
  for (int64_t i = 0; i < out.numel(); ++i) StoreDouble(out, i, f(s, i));
  if (!InPlace(call)) return SetRandom(call, std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return SetRandom(call, self);
}

absl::Status FloatSelf(const RefCall& call, absl::string_view what) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (IsFloatLike(self.dtype())) return absl::OkStatus();
  return call.Unsupported(absl::StrCat(what, " of a non-float tensor"));
}

// aten::bernoulli(Tensor self, *, Generator? generator=None) -> Tensor
absl::Status Bernoulli(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::vector<double> p = ToDoubles(self);
  for (double v : p) {
    if (!(v >= 0 && v <= 1)) return call.Invalid("bernoulli: all elements of input must be in [0, 1]");
  }
  return Sample(call, [&](RandomStream& s, int64_t i) { return s.Uniform() < p[i] ? 1.0 : 0.0; });
}
// aten::bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor (and bernoulli_.float)
absl::Status BernoulliP(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, DoubleOr(call, "p", 0.5));
  if (!(p >= 0 && p <= 1)) return call.Invalid(absl::StrCat("bernoulli expects 0 <= p <= 1, got p=", p));
  return Sample(call, [p](RandomStream& s, int64_t) { return s.Uniform() < p ? 1.0 : 0.0; });
}
// aten::bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor (and bernoulli_.Tensor)
absl::Status BernoulliTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor p_in, call.Input("p"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor p_full, BroadcastTo(p_in, self.dims()));
  std::vector<double> p = ToDoubles(p_full);
  return Sample(call, [&](RandomStream& s, int64_t i) { return s.Uniform() < p[i] ? 1.0 : 0.0; });
}

// aten::uniform(Tensor self, float from=0., float to=1., *, Generator? generator=None) -> Tensor (and uniform_)
absl::Status Uniform(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatSelf(call, "uniform_"));
  PT2ONNX_ASSIGN_OR_RETURN(double from, DoubleOr(call, "from", 0));
  PT2ONNX_ASSIGN_OR_RETURN(double to, DoubleOr(call, "to", 1));
  if (!(from <= to)) return call.Invalid("uniform_ expects to return a [from, to) range");
  return Sample(call, [=](RandomStream& s, int64_t) { return from + (to - from) * s.Uniform(); });
}
// aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)
// (and normal_functional)
absl::Status NormalInPlace(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatSelf(call, "normal_"));
  PT2ONNX_ASSIGN_OR_RETURN(double mean, DoubleOr(call, "mean", 0));
  PT2ONNX_ASSIGN_OR_RETURN(double std, DoubleOr(call, "std", 1));
  if (!(std >= 0)) return call.Invalid("normal expects std >= 0.0");
  return Sample(call, [=](RandomStream& s, int64_t) { return mean + std * s.Normal(); });
}
// aten::log_normal(Tensor self, float mean=1., float std=2., *, Generator? generator=None) -> Tensor (and log_normal_)
absl::Status LogNormal(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatSelf(call, "log_normal_"));
  PT2ONNX_ASSIGN_OR_RETURN(double mean, DoubleOr(call, "mean", 1));
  PT2ONNX_ASSIGN_OR_RETURN(double std, DoubleOr(call, "std", 2));
  if (!(std > 0)) return call.Invalid("log_normal_ expects std > 0.0");
  return Sample(call, [=](RandomStream& s, int64_t) { return std::exp(mean + std * s.Normal()); });
}
// aten::cauchy(Tensor self, float median=0., float sigma=1., *, Generator? generator=None) -> Tensor (and cauchy_)
absl::Status Cauchy(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatSelf(call, "cauchy_"));
  PT2ONNX_ASSIGN_OR_RETURN(double median, DoubleOr(call, "median", 0));
  PT2ONNX_ASSIGN_OR_RETURN(double sigma, DoubleOr(call, "sigma", 1));
  if (!(sigma > 0)) return call.Invalid("cauchy_ expects sigma > 0.0");
  return Sample(call, [=](RandomStream& s, int64_t) { return median + sigma * std::tan(M_PI * (s.Uniform() - 0.5)); });
}
// aten::exponential(Tensor self, float lambd=1., *, Generator? generator=None) -> Tensor (and exponential_)
// Never 0: a log of 1 counts as -epsilon/2 of float32 (TransformationHelper.h).
absl::Status Exponential(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatSelf(call, "exponential_"));
  PT2ONNX_ASSIGN_OR_RETURN(double lambd, DoubleOr(call, "lambd", 1));
  if (!(lambd > 0)) return call.Invalid("exponential_ expects lambda > 0.0");
  const double cap = -std::numeric_limits<float>::epsilon() / 2;
  return Sample(call, [=](RandomStream& s, int64_t) { return -std::min(std::log(1 - s.Uniform()), cap) / lambd; });
}
// aten::geometric(Tensor self, float p, *, Generator? generator=None) -> Tensor (and geometric_)
absl::Status Geometric(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, call.Double("p"));
  if (!(p > 0 && p < 1)) return call.Invalid(absl::StrCat("geometric_ expects p to be in (0, 1), got p=", p));
  const double denominator = std::log1p(-p);
  return Sample(call, [=](RandomStream& s, int64_t) {
    return std::max(1.0, std::ceil(std::log(1 - s.Uniform()) / denominator));
  });
}

// mean + std * n over the broadcast of mean and std, of the output dtype.
absl::Status NormalOf(RefCall& call, const Tensor& mean, const Tensor& std, DataType fallback) {
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(mean.dims(), std.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, BroadcastTo(mean, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor sd, BroadcastTo(std, dims));
  const DataType dtype = call.OutputDtype(0) == DataType::kUndefined ? fallback : call.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  RandomStream s;
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double sigma = LoadDouble(sd, i);
    if (!(sigma >= 0)) return call.Invalid("normal expects all elements of std >= 0.0");
    StoreDouble(out, i, LoadDouble(m, i) + sigma * s.Normal());
  }
  return SetRandom(call, std::move(out));
}
// aten::normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor
absl::Status NormalTensorTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mean, call.Input("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor std, call.Input("std"));
  return NormalOf(call, mean, std, mean.dtype());
}
// aten::normal.Tensor_float(Tensor mean, float std=1., *, Generator? generator=None) -> Tensor
absl::Status NormalTensorFloat(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mean, call.Input("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(double std, call.Double("std"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor sd, ScalarTensor(DataType::kDouble, std));
  return NormalOf(call, mean, sd, mean.dtype());
}
// aten::normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor
absl::Status NormalFloatTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double mean, call.Double("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor std, call.Input("std"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, ScalarTensor(DataType::kDouble, mean));
  return NormalOf(call, m, std, std.dtype());
}
// aten::normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, ScalarType? dtype=None, ...) -> Tensor
absl::Status NormalFloatFloat(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double mean, call.Double("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(double std, call.Double("std"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  for (int64_t d : size) {
    if (d < 0) return call.Invalid(absl::StrCat("negative dimension ", d));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, NewTensor(DataType::kDouble, Dims(size.begin(), size.end())));
  for (int64_t i = 0; i < m.numel(); ++i) StoreDouble(m, i, mean);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor sd, ScalarTensor(DataType::kDouble, std));
  return NormalOf(call, m, sd, DataType::kFloat);
}

// aten::multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor
// Without replacement: draw, remove, renormalise; with: independent draws.
absl::Status Multinomial(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, call.Int("num_samples"));
  PT2ONNX_ASSIGN_OR_RETURN(bool replacement, call.Bool("replacement"));
  if (self.rank() != 1 && self.rank() != 2) return call.Invalid("prob_dist must be 1 or 2 dim");
  if (k <= 0) return call.Invalid("cannot sample n_sample <= 0 samples");
  const int64_t n = self.dims().back(), rows = self.rank() == 2 ? self.dims()[0] : 1;
  if (!replacement && k > n) return call.Invalid("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  std::vector<double> w = ToDoubles(self);
  Dims dims = self.dims();
  dims.back() = k;
  const DataType dtype = call.OutputDtype(0) == DataType::kUndefined ? DataType::kInt64 : call.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  RandomStream s;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> row(w.begin() + r * n, w.begin() + (r + 1) * n);
    for (double v : row) {
      if (!(v >= 0) || std::isinf(v)) return call.Invalid("probability tensor contains either `inf`, `nan` or element < 0");
    }
    for (int64_t j = 0; j < k; ++j) {
      const double total = std::accumulate(row.begin(), row.end(), 0.0);
      if (!(total > 0)) return call.Invalid("invalid multinomial distribution (sum of probabilities <= 0)");
      const double target = s.Uniform() * total;
      double acc = 0;
      int64_t pick = n - 1;
      for (int64_t c = 0; c < n; ++c) {
        acc += row[c];
        if (target < acc) {
          pick = c;
          break;
        }
      }
      while (row[pick] == 0 && pick > 0) --pick;  // rounding at the end of the row
      StoreInt(out, r * k + j, pick);
      if (!replacement) row[pick] = 0;
    }
  }
  return SetRandom(call, std::move(out));
}

// aten::rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) -> Tensor
// (and rrelu_): x <= 0 scaled by U[lower, upper] (training) or their mean.
absl::Status Rrelu(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatSelf(call, "rrelu"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  double lower = 0.125, upper = 1.0 / 3;
  bool training = false;
  if (call.Has("lower")) {
    PT2ONNX_ASSIGN_OR_RETURN(RefScalar v, call.Scalar("lower"));
    lower = v.AsDouble();
  }
  if (call.Has("upper")) {
    PT2ONNX_ASSIGN_OR_RETURN(RefScalar v, call.Scalar("upper"));
    upper = v.AsDouble();
  }
  if (call.Has("training")) {
    PT2ONNX_ASSIGN_OR_RETURN(training, call.Bool("training"));
  }
  std::vector<double> x = ToDoubles(self);
  if (!training) {
    const double slope = (lower + upper) / 2;
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), self.dims()));
    for (int64_t i = 0; i < out.numel(); ++i) StoreDouble(out, i, x[i] <= 0 ? x[i] * slope : x[i]);
    if (!InPlace(call)) return call.SetTensor(std::move(out));
    PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
    return call.SetTensor(self);
  }
  return Sample(call, [&](RandomStream& s, int64_t i) {
    return x[i] <= 0 ? x[i] * (lower + (upper - lower) * s.Uniform()) : x[i];
  });
}

}  // namespace

void RegisterDistributionsRef(RefRegistry& r) {
  r.Add("aten::bernoulli.default", Bernoulli);
  r.Add("aten::bernoulli.p", BernoulliP);
  r.Add("aten::bernoulli_.float", BernoulliP);
  r.Add("aten::bernoulli.Tensor", BernoulliTensor);
  r.Add("aten::bernoulli_.Tensor", BernoulliTensor);
  r.Add("aten::uniform.default", Uniform);
  r.Add("aten::uniform_.default", Uniform);
  r.Add("aten::normal_.default", NormalInPlace);
  r.Add("aten::normal_functional.default", NormalInPlace);
  r.Add("aten::log_normal.default", LogNormal);
  r.Add("aten::log_normal_.default", LogNormal);
  r.Add("aten::cauchy.default", Cauchy);
  r.Add("aten::cauchy_.default", Cauchy);
  r.Add("aten::exponential.default", Exponential);
  r.Add("aten::exponential_.default", Exponential);
  r.Add("aten::geometric.default", Geometric);
  r.Add("aten::geometric_.default", Geometric);
  r.Add("aten::normal.Tensor_Tensor", NormalTensorTensor);
  r.Add("aten::normal.Tensor_float", NormalTensorFloat);
  r.Add("aten::normal.float_Tensor", NormalFloatTensor);
  r.Add("aten::normal.float_float", NormalFloatFloat);
  r.Add("aten::multinomial.default", Multinomial);
  r.Add("aten::rrelu.default", Rrelu);
  r.Add("aten::rrelu_.default", Rrelu);
}

}  // namespace pt2onnx::reference
