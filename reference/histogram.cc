// File: reference/histogram.cc
// -----------------------------------------------------------------------------
// Reference kernels for histogram (bin_ct, bins_tensor) and histogramdd (int[]
// bins, int bins, Tensor[] bins), following aten/src/ATen/native/Histogram.cpp
// and cpu/HistogramKernel.cpp element by element in the input's precision
// (float for float32, else double): outer edges from `range` or each dim's
// min/max (widened by 0.5 each way when equal), linspace edges, a binary
// search per point (the last edge closes the last bin, points outside the
// edges are dropped), counts or weights summed in point order, and density
// dividing by the total, then by each dim's bin widths.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// linspace in T, torch's two halves (cpu/RangeFactoriesKernel.cpp).
template <typename T>
std::vector<double> Linspace(T start, T end, int64_t steps) {
  std::vector<double> out(steps);
  const T step = (end - start) / static_cast<T>(steps - 1);
  for (int64_t i = 0; i < steps; ++i) {
    out[i] = i < steps / 2 ? start + step * static_cast<T>(i) : end - step * static_cast<T>(steps - 1 - i);
  }
  return out;
}

struct Problem {
  Tensor self;
  int64_t dims;                             // D
  std::vector<double> points;               // N x D, row-major
  std::vector<std::vector<double>> edges;   // per dim
};

absl::StatusOr<Problem> ReadPoints(RefCall& call, bool dd) {
  Problem p;
  PT2ONNX_ASSIGN_OR_RETURN(p.self, call.Input("self"));
  if (!IsFloatLike(p.self.dtype())) return call.Invalid("histogram needs a floating-point input");
  if (dd && p.self.rank() == 0) return call.Invalid("histogramdd needs at least 1 dim");
  p.dims = dd ? p.self.dim(p.self.rank() - 1) : 1;
  p.points = ToDoubles(p.self);
  return p;
}

template <typename T>
absl::Status EdgesFromCounts(RefCall& call, Problem& p, const std::vector<int64_t>& bins) {
  std::optional<std::vector<double>> range;
  if (call.Has("range")) {
    PT2ONNX_ASSIGN_OR_RETURN(const pt2::Argument* arg, call.ArgRef("range"));
    if (arg->kind == pt2::Argument::Kind::kFloats) range = arg->floats;
  }
  if (static_cast<int64_t>(bins.size()) != p.dims || (range && static_cast<int64_t>(range->size()) != 2 * p.dims)) {
    return call.Invalid("bins / range do not match the points' dims");
  }
  const int64_t n = p.dims == 0 ? 0 : static_cast<int64_t>(p.points.size()) / p.dims;
  for (int64_t d = 0; d < p.dims; ++d) {
    if (bins[d] <= 0) return call.Invalid("bins must be positive");
    double lo = 0, hi = 0;
    if (range) {
      lo = (*range)[2 * d];
      hi = (*range)[2 * d + 1];
    } else if (n > 0) {
      lo = hi = p.points[d];
      for (int64_t i = 0; i < n; ++i) {
        lo = std::min(lo, p.points[i * p.dims + d]);
        hi = std::max(hi, p.points[i * p.dims + d]);
      }
    }
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
    p.edges.push_back(Linspace<T>(static_cast<T>(lo), static_cast<T>(hi), bins[d] + 1));
  }
  return absl::OkStatus();
}

// Bins the points, then the hist and the edges as results.
template <typename T>
absl::Status Finish(RefCall& call, const Problem& p, bool list_edges) {
  PT2ONNX_ASSIGN_OR_RETURN(bool density, call.Bool("density"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weight, call.OptionalInput("weight"));
  const std::vector<double> w = weight ? ToDoubles(*weight) : std::vector<double>();
  Dims shape;
  int64_t total = 1;
  for (const std::vector<double>& e : p.edges) {
    shape.push_back(static_cast<int64_t>(e.size()) - 1);
    total *= shape.back();
  }
  std::vector<T> hist(total, T(0));
  const int64_t n = p.dims == 0 ? 0 : static_cast<int64_t>(p.points.size()) / p.dims;
  if (weight && static_cast<int64_t>(w.size()) != n) return call.Invalid("weight must have the input's shape");
  for (int64_t i = 0; i < n; ++i) {
    int64_t flat = 0;
    bool inside = true;
    for (int64_t d = 0; d < p.dims && inside; ++d) {
      const std::vector<double>& e = p.edges[d];
      const T x = static_cast<T>(p.points[i * p.dims + d]);
      if (!(x >= static_cast<T>(e.front()) && x <= static_cast<T>(e.back()))) {
        inside = false;
        break;
      }
      int64_t bin = std::upper_bound(e.begin(), e.end(), static_cast<double>(x)) - e.begin() - 1;
      bin = std::min<int64_t>(bin, shape[d] - 1);
      flat = flat * shape[d] + bin;
    }
    if (inside) hist[flat] += weight ? static_cast<T>(w[i]) : T(1);
  }
  if (density) {
    T sum = 0;
    for (T v : hist) sum += v;
    for (T& v : hist) v /= sum;
    int64_t inner = total;
    for (size_t d = 0; d < p.edges.size(); ++d) {
      inner /= shape[d];
      for (int64_t k = 0; k < total; ++k) {
        const int64_t b = (k / inner) % shape[d];
        hist[k] /= static_cast<T>(p.edges[d][b + 1]) - static_cast<T>(p.edges[d][b]);
      }
    }
  }
  const DataType dtype = p.self.dtype();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor h, FromDoubles(dtype, shape, std::vector<double>(hist.begin(), hist.end())));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(h)));
  std::vector<Tensor> edges;
  for (const std::vector<double>& e : p.edges) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(dtype, {static_cast<int64_t>(e.size())}, e));
    edges.push_back(std::move(t));
  }
  if (!list_edges) return call.SetTensor(std::move(edges[0]));
  return call.SetTensors(std::move(edges));
}

template <typename T>
absl::Status WithCounts(RefCall& call, bool dd, const std::optional<int64_t>& one_count) {
  PT2ONNX_ASSIGN_OR_RETURN(Problem p, ReadPoints(call, dd));
  std::vector<int64_t> bins;
  if (one_count) {
    bins.assign(p.dims, *one_count);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(bins, call.Ints("bins"));
  }
  PT2ONNX_RETURN_IF_ERROR(EdgesFromCounts<T>(call, p, bins));
  return Finish<T>(call, p, dd);
}

template <typename T>
absl::Status WithTensors(RefCall& call, bool dd) {
  PT2ONNX_ASSIGN_OR_RETURN(Problem p, ReadPoints(call, dd));
  std::vector<Tensor> bins;
  if (dd) {
    PT2ONNX_ASSIGN_OR_RETURN(bins, call.Inputs("bins"));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor one, call.Input("bins"));
    bins.push_back(one);
  }
  if (static_cast<int64_t>(bins.size()) != p.dims) return call.Invalid("one bin tensor per dim");
  for (const Tensor& b : bins) {
    if (b.rank() != 1 || b.numel() < 2) return call.Invalid("bin edges must be 1-D with at least 2 values");
    std::vector<double> e = ToDoubles(b);
    for (double& v : e) v = static_cast<T>(v);
    p.edges.push_back(std::move(e));
  }
  return Finish<T>(call, p, dd);
}

bool IsDouble(RefCall& call) {
  absl::StatusOr<Tensor> self = call.Input("self");
  return self.ok() && self->dtype() == DataType::kDouble;
}

// aten::histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False)
absl::Status HistogramBinCt(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t bins, call.Int("bins"));
  return IsDouble(call) ? WithCounts<double>(call, false, bins) : WithCounts<float>(call, false, bins);
}
// aten::histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False)
absl::Status HistogramBinsTensor(RefCall& call) {
  return IsDouble(call) ? WithTensors<double>(call, false) : WithTensors<float>(call, false);
}
// aten::histogramdd(Tensor self, int[] bins, float[]? range=None, Tensor? weight=None, bool density=False)
absl::Status Histogramdd(RefCall& call) {
  return IsDouble(call) ? WithCounts<double>(call, true, std::nullopt) : WithCounts<float>(call, true, std::nullopt);
}
// aten::histogramdd.int_bins(Tensor self, int bins, float[]? range=None, Tensor? weight=None, bool density=False)
absl::Status HistogramddIntBins(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t bins, call.Int("bins"));
  return IsDouble(call) ? WithCounts<double>(call, true, bins) : WithCounts<float>(call, true, bins);
}
// aten::histogramdd.TensorList_bins(Tensor self, Tensor[] bins, float[]? range=None, Tensor? weight=None, bool density=False)
absl::Status HistogramddTensorList(RefCall& call) {
  return IsDouble(call) ? WithTensors<double>(call, true) : WithTensors<float>(call, true);
}

}  // namespace

void RegisterHistogramRef(RefRegistry& r) {
  r.Add("aten::histogram.bin_ct", HistogramBinCt);
  r.Add("aten::histogram.bins_tensor", HistogramBinsTensor);
  r.Add("aten::histogramdd.default", Histogramdd);
  r.Add("aten::histogramdd.int_bins", HistogramddIntBins);
  r.Add("aten::histogramdd.TensorList_bins", HistogramddTensorList);
}

}  // namespace pt2onnx::reference
