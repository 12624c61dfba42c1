// Reference kernels: layer/batch/group/instance/RMS normalization, in double
// (biased variance, as torch normalizes), with the mean/rstd outputs of the
// native_* forms. Statistics outputs take the dtype torch recorded.
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// Normalizes x viewed as [outer, inner] row by row; optional per-element
// affine of `inner` values (layer norm) applied by the caller.
struct Stats {
  std::vector<double> mean, rstd;
};

Stats RowStats(const std::vector<double>& x, int64_t outer, int64_t inner, double eps, bool rms = false) {
  Stats s;
  s.mean.resize(outer);
  s.rstd.resize(outer);
  for (int64_t o = 0; o < outer; ++o) {
    const double* row = x.data() + o * inner;
    double mean = 0;
    if (!rms) {
      for (int64_t i = 0; i < inner; ++i) mean += row[i];
      mean = inner > 0 ? mean / inner : NAN;
    }
    double var = 0;
    for (int64_t i = 0; i < inner; ++i) var += (row[i] - mean) * (row[i] - mean);
    var = inner > 0 ? var / inner : NAN;
    s.mean[o] = mean;
    s.rstd[o] = 1.0 / std::sqrt(var + eps);
  }
  return s;
}

DataType StatDtype(const RefCall& call, size_t i, DataType fallback) {
  const DataType d = call.OutputDtype(i);
  return d == DataType::kUndefined ? fallback : d;
}

// Layer norm over the trailing `normalized_shape`; returns (out, mean, rstd).
absl::StatusOr<std::vector<Tensor>> LayerNorm(RefCall& call, bool rms, double eps) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, call.Ints("normalized_shape"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weight, call.OptionalInput("weight"));
  std::optional<Tensor> bias;
  if (!rms) {
    PT2ONNX_ASSIGN_OR_RETURN(bias, call.OptionalInput("bias"));
  }
  const int64_t k = static_cast<int64_t>(shape.size());
  if (k > input.rank()) return call.Invalid("normalized_shape has more dims than the input");
  int64_t inner = 1;
  for (int64_t d = 0; d < k; ++d) {
    if (input.dims()[input.rank() - k + d] != shape[d]) return call.Invalid("normalized_shape does not match the input");
    inner *= shape[d];
  }
  const int64_t outer = inner == 0 ? 0 : input.numel() / inner;
  std::vector<double> x = ToDoubles(input);
  Stats s = RowStats(x, outer, inner, eps, rms);
  std::vector<double> w = weight ? ToDoubles(*weight) : std::vector<double>();
  std::vector<double> b = bias ? ToDoubles(*bias) : std::vector<double>();
  if ((weight && static_cast<int64_t>(w.size()) != inner) || (bias && static_cast<int64_t>(b.size()) != inner)) {
    return call.Invalid("weight/bias do not match normalized_shape");
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double& v = x[o * inner + i];
      v = (v - s.mean[o]) * s.rstd[o];
      if (weight) v *= w[i];
      if (bias) v += b[i];
    }
  }
  std::vector<Tensor> outs;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(input.dtype(), input.dims(), x));
  outs.push_back(std::move(out));
  Dims stat_dims = input.dims();
  for (int64_t d = input.rank() - k; d < input.rank(); ++d) stat_dims[d] = 1;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mean, FromDoubles(StatDtype(call, 1, input.dtype()), stat_dims, s.mean));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor rstd, FromDoubles(StatDtype(call, rms ? 1 : 2, input.dtype()), stat_dims, s.rstd));
  if (!rms) outs.push_back(std::move(mean));
  outs.push_back(std::move(rstd));
  return outs;
}

// aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor
absl::Status LayerNormOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, LayerNorm(call, false, eps));
  return call.SetTensor(outs[0]);
}
// aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)
absl::Status NativeLayerNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, LayerNorm(call, false, eps));
  for (Tensor& t : outs) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(t));
  return absl::OkStatus();
}
// eps=None means the dtype's machine epsilon.
absl::StatusOr<double> RmsEps(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> eps, call.OptionalDouble("eps"));
  if (eps) return *eps;
  switch (input.dtype()) {
    case DataType::kDouble: return std::numeric_limits<double>::epsilon();
    case DataType::kFloat16: return 0.0009765625;
    case DataType::kBFloat16: return 0.0078125;
    default: return static_cast<double>(std::numeric_limits<float>::epsilon());
  }
}
// aten::rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor
absl::Status RmsNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double eps, RmsEps(call));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, LayerNorm(call, true, eps));
  return call.SetTensor(outs[0]);
}
// aten::_fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps) -> (Tensor, Tensor)
absl::Status FusedRmsNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double eps, RmsEps(call));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, LayerNorm(call, true, eps));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(outs[0]));
  return call.SetTensor(outs[1]);
}

// Per-channel normalization of [N, C, *]: running stats (eval) or the
// batch's own (training / no running stats). Returns (out, mean, invstd).
absl::StatusOr<std::vector<Tensor>> BatchNorm(RefCall& call, bool training, double eps, bool stats_outputs) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weight, call.OptionalInput("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias, call.OptionalInput("bias"));
  std::optional<Tensor> rmean, rvar;
  if (call.Has("running_mean")) {
    PT2ONNX_ASSIGN_OR_RETURN(rmean, call.OptionalInput("running_mean"));
    PT2ONNX_ASSIGN_OR_RETURN(rvar, call.OptionalInput("running_var"));
  }
  if (input.rank() < 2) return call.Invalid("batch norm needs an input with a channel dim");
  const int64_t n = input.dims()[0], c = input.dims()[1];
  const int64_t spatial = n * c == 0 ? 0 : input.numel() / (n * c);
  const bool use_batch = training || !rmean || !rvar;
  std::vector<double> x = ToDoubles(input), mean(c), invstd(c);
  std::vector<double> rm = rmean ? ToDoubles(*rmean) : std::vector<double>();
  std::vector<double> rv = rvar ? ToDoubles(*rvar) : std::vector<double>();
  std::vector<double> w = weight ? ToDoubles(*weight) : std::vector<double>(c, 1.0);
  std::vector<double> b = bias ? ToDoubles(*bias) : std::vector<double>(c, 0.0);
  if (static_cast<int64_t>(w.size()) != c || static_cast<int64_t>(b.size()) != c ||
      (!use_batch && (static_cast<int64_t>(rm.size()) != c || static_cast<int64_t>(rv.size()) != c))) {
    return call.Invalid("weight/bias/running stats do not match the channels");
  }
  for (int64_t ch = 0; ch < c; ++ch) {
    double m = 0, v = 0;
    if (use_batch) {
      const double count = static_cast<double>(n * spatial);
      for (int64_t i = 0; i < n; ++i) for (int64_t s = 0; s < spatial; ++s) m += x[(i * c + ch) * spatial + s];
      m /= count;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t s = 0; s < spatial; ++s) {
          const double d = x[(i * c + ch) * spatial + s] - m;
          v += d * d;
        }
      }
      v /= count;
    } else {
      m = rm[ch];
      v = rv[ch];
    }
    mean[ch] = m;
    invstd[ch] = 1.0 / std::sqrt(v + eps);
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t s = 0; s < spatial; ++s) {
        double& e = x[(i * c + ch) * spatial + s];
        e = (e - mean[ch]) * invstd[ch] * w[ch] + b[ch];
      }
    }
  }
  std::vector<Tensor> outs;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(input.dtype(), input.dims(), x));
  outs.push_back(std::move(out));
  if (stats_outputs) {
    // Eval mode saves nothing: torch returns empty statistics.
    const Dims dims = use_batch ? Dims{c} : Dims{0};
    if (!use_batch) mean.clear(), invstd.clear();
    PT2ONNX_ASSIGN_OR_RETURN(Tensor m, FromDoubles(StatDtype(call, 1, input.dtype()), dims, mean));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor s, FromDoubles(StatDtype(call, 2, input.dtype()), dims, invstd));
    outs.push_back(std::move(m));
    outs.push_back(std::move(s));
  }
  return outs;
}

// aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor
absl::Status BatchNormOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool training, call.Bool("training"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, BatchNorm(call, training, eps, false));
  return call.SetTensor(outs[0]);
}
// aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)
// aten::_native_batch_norm_legit(...) / .no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, float momentum, float eps)
absl::Status NativeBatchNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool training, call.Bool("training"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, BatchNorm(call, training, eps, true));
  for (Tensor& t : outs) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(t));
  return absl::OkStatus();
}
// aten::_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
// Training batch norm; running stats updated in place to
// momentum * batch + (1 - momentum) * old (variance unbiased); the last
// output is an empty uint8 reserve.
absl::Status BatchNormWithUpdate(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(double momentum, call.Double("momentum"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, BatchNorm(call, true, eps, true));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> rmean, call.OptionalInput("running_mean"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> rvar, call.OptionalInput("running_var"));
  const int64_t c = input.dims()[1];
  const double n = c == 0 ? 0 : static_cast<double>(input.numel() / c);
  const std::vector<double> x = ToDoubles(input);
  const int64_t inner = input.dims()[0] == 0 || c == 0 ? 0 : input.numel() / (input.dims()[0] * c);
  std::vector<double> sum(c, 0), sq(c, 0);
  for (int64_t i = 0; i < input.numel(); ++i) sum[(i / inner) % c] += x[i];
  for (int64_t i = 0; i < input.numel(); ++i) {
    const double d = x[i] - sum[(i / inner) % c] / n;
    sq[(i / inner) % c] += d * d;
  }
  if (rmean) {
    std::vector<double> rm = ToDoubles(*rmean);
    for (int64_t ch = 0; ch < c && ch < static_cast<int64_t>(rm.size()); ++ch) rm[ch] = momentum * (sum[ch] / n) + (1 - momentum) * rm[ch];
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(rmean->dtype(), rmean->dims(), rm));
    PT2ONNX_RETURN_IF_ERROR(WriteInPlace(*rmean, t));
  }
  if (rvar) {
    std::vector<double> rv = ToDoubles(*rvar);
    for (int64_t ch = 0; ch < c && ch < static_cast<int64_t>(rv.size()); ++ch) rv[ch] = momentum * (sq[ch] / (n - 1)) + (1 - momentum) * rv[ch];
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(rvar->dtype(), rvar->dims(), rv));
    PT2ONNX_RETURN_IF_ERROR(WriteInPlace(*rvar, t));
  }
  for (Tensor& t : outs) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(t));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor reserve, NewTensor(DataType::kUint8, {0}));
  return call.SetTensor(std::move(reserve));
}
// aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)
absl::Status BatchNormNoTraining(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, BatchNorm(call, false, eps, true));
  for (Tensor& t : outs) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(t));
  return absl::OkStatus();
}
// aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean,
//     Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor, Tensor)
// The last two: the running stats after the update training makes
// ((1 - momentum) * old + momentum * batch stat, the variance unbiased);
// in eval they are returned unchanged.
absl::Status NativeBatchNormFunctional(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool training, call.Bool("training"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(double momentum, call.Double("momentum"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, BatchNorm(call, training, eps, true));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor rmean, call.Input("running_mean"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor rvar, call.Input("running_var"));
  std::vector<double> rm = ToDoubles(rmean), rv = ToDoubles(rvar);
  if (training) {
    const int64_t n = input.dims()[0], c = input.dims()[1];
    const int64_t spatial = n * c == 0 ? 0 : input.numel() / (n * c);
    const double count = static_cast<double>(n * spatial);
    const std::vector<double> x = ToDoubles(input);
    for (int64_t ch = 0; ch < c && ch < static_cast<int64_t>(rm.size()); ++ch) {
      double m = 0, v = 0;
      for (int64_t i = 0; i < n; ++i) for (int64_t k = 0; k < spatial; ++k) m += x[(i * c + ch) * spatial + k];
      m /= count;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t k = 0; k < spatial; ++k) v += (x[(i * c + ch) * spatial + k] - m) * (x[(i * c + ch) * spatial + k] - m);
      }
      v /= count - 1;
      rm[ch] = (1 - momentum) * rm[ch] + momentum * m;
      rv[ch] = (1 - momentum) * rv[ch] + momentum * v;
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor new_mean, FromDoubles(rmean.dtype(), rmean.dims(), rm));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor new_var, FromDoubles(rvar.dtype(), rvar.dims(), rv));
  outs.push_back(std::move(new_mean));
  outs.push_back(std::move(new_var));
  for (Tensor& t : outs) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(t));
  return absl::OkStatus();
}

// Group norm of [N, C, *] in `groups` groups; returns (out, mean [N, G], rstd [N, G]).
absl::StatusOr<std::vector<Tensor>> GroupNorm(RefCall& call, int64_t groups, double eps) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weight, call.OptionalInput("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias, call.OptionalInput("bias"));
  if (input.rank() < 2 || groups <= 0 || input.dims()[1] % groups != 0) {
    return call.Invalid("the channels must divide into the groups");
  }
  const int64_t n = input.dims()[0], c = input.dims()[1];
  const int64_t spatial = n * c == 0 ? 0 : input.numel() / (n * c);
  std::vector<double> x = ToDoubles(input);
  Stats s = RowStats(x, n * groups, (c / groups) * spatial, eps);
  std::vector<double> w = weight ? ToDoubles(*weight) : std::vector<double>(c, 1.0);
  std::vector<double> b = bias ? ToDoubles(*bias) : std::vector<double>(c, 0.0);
  if (static_cast<int64_t>(w.size()) != c || static_cast<int64_t>(b.size()) != c) return call.Invalid("weight/bias size");
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t row = i * groups + ch / (c / groups);
      for (int64_t sp = 0; sp < spatial; ++sp) {
        double& e = x[(i * c + ch) * spatial + sp];
        e = (e - s.mean[row]) * s.rstd[row] * w[ch] + b[ch];
      }
    }
  }
  std::vector<Tensor> outs;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(input.dtype(), input.dims(), x));
  outs.push_back(std::move(out));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mean, FromDoubles(StatDtype(call, 1, input.dtype()), {n, groups}, s.mean));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor rstd, FromDoubles(StatDtype(call, 2, input.dtype()), {n, groups}, s.rstd));
  outs.push_back(std::move(mean));
  outs.push_back(std::move(rstd));
  return outs;
}

// aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
absl::Status GroupNormOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, call.Int("num_groups"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, GroupNorm(call, groups, eps));
  return call.SetTensor(outs[0]);
}
// aten::native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)
absl::Status NativeGroupNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, call.Int("group"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, GroupNorm(call, groups, eps));
  for (Tensor& t : outs) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(t));
  return absl::OkStatus();
}

// aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor
absl::Status InstanceNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(bool use_input_stats, call.Bool("use_input_stats"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  if (!use_input_stats) return call.Unsupported("instance_norm with running statistics");
  if (input.rank() < 2) return call.Invalid("instance norm needs a channel dim");
  // Instance norm is group norm with one group per channel.
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> outs, GroupNorm(call, input.dims()[1], eps));
  return call.SetTensor(outs[0]);
}

// aten::_weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor
// v * g / ||v||, the 2-norm over every dim but `dim` (dim=-1: the whole v).
absl::Status WeightNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v, call.Input("v"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor g, call.Input("g"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  int64_t dim = -1;
  if (d != -1) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, WrapDim(d, v.rank()));
  }
  const int64_t n = dim < 0 || v.rank() == 0 ? 1 : v.dims()[dim];
  int64_t inner = 1;
  for (int64_t k = dim + 1; dim >= 0 && k < v.rank(); ++k) inner *= v.dims()[k];
  if (dim < 0) inner = v.numel();
  if (g.numel() != n) return call.Invalid("_weight_norm: g must have one value per slice of v along dim");
  const std::vector<double> x = ToDoubles(v), gv = ToDoubles(g);
  std::vector<double> norm(n, 0.0);
  for (int64_t i = 0; i < v.numel(); ++i) norm[(i / inner) % n] += x[i] * x[i];
  std::vector<double> out(x.size());
  for (int64_t i = 0; i < v.numel(); ++i) {
    const int64_t k = (i / inner) % n;
    out[i] = x[i] * (gv[k] / std::sqrt(norm[k]));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"v", "g"}));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(dtype, v.dims(), out));
  return call.SetTensor(std::move(result));
}

}  // namespace

void RegisterNormalizationRef(RefRegistry& r) {
  r.Add("aten::_weight_norm.default", WeightNorm);
  r.Add("aten::layer_norm.default", LayerNormOp);
  r.Add("aten::native_layer_norm.default", NativeLayerNorm);
  r.Add("aten::rms_norm.default", RmsNorm);
  r.Add("aten::_fused_rms_norm.default", FusedRmsNorm);
  r.Add("aten::batch_norm.default", BatchNormOp);
  r.Add("aten::native_batch_norm.default", NativeBatchNorm);
  r.Add("aten::_batch_norm_with_update.default", BatchNormWithUpdate);
  r.Add("aten::_native_batch_norm_legit.default", NativeBatchNorm);
  r.Add("aten::_native_batch_norm_legit.no_stats", NativeBatchNorm);
  r.Add("aten::_native_batch_norm_legit_no_training.default", BatchNormNoTraining);
  r.Add("aten::_native_batch_norm_legit_functional.default", NativeBatchNormFunctional);
  r.Add("aten::group_norm.default", GroupNormOp);
  r.Add("aten::native_group_norm.default", NativeGroupNorm);
  r.Add("aten::instance_norm.default", InstanceNorm);
}

}  // namespace pt2onnx::reference
