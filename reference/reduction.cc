// Reference kernels: reductions over dims (sum, mean, prod, amax/amin,
// max/min with indices, argmax/argmin, var/std with corrections, any/all,
// logsumexp, vector norms, count_nonzero). Float sums accumulate in double.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "reference/shape_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// `self` regrouped so each output element's inputs are contiguous: groups x
// size, plus the output dims (keepdim or not).
struct Grouped {
  std::vector<double> f;
  std::vector<int64_t> i;
  int64_t groups = 0, size = 0;
  Dims out_dims;
};

absl::StatusOr<Grouped> Group(const Tensor& self, std::optional<std::vector<int64_t>> dims_arg, bool keepdim,
                              bool as_ints) {
  const int64_t rank = self.rank();
  std::vector<bool> reduce(rank, false);
  if (!dims_arg.has_value() || dims_arg->empty()) {
    reduce.assign(rank, true);
  } else {
    for (int64_t d : *dims_arg) {
      PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, rank));
      if (rank > 0 && reduce[w]) return absl::InvalidArgumentError(absl::StrCat("dim ", w, " appears twice"));
      if (rank > 0) reduce[w] = true;
    }
  }
  std::vector<int64_t> perm;
  Grouped g;
  g.groups = 1;
  g.size = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduce[d]) {
      perm.push_back(d);
      g.groups *= self.dims()[d];
      g.out_dims.push_back(self.dims()[d]);
    } else if (keepdim) {
      g.out_dims.push_back(1);
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (reduce[d]) {
      perm.push_back(d);
      g.size *= self.dims()[d];
    }
  }
  if (keepdim) {
    g.out_dims.clear();
    for (int64_t d = 0; d < rank; ++d) g.out_dims.push_back(reduce[d] ? 1 : self.dims()[d]);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor p, Permute(self, perm));
  if (as_ints) g.i = ToInts(p); else g.f = ToDoubles(p);
  return g;
}

absl::StatusOr<std::optional<std::vector<int64_t>>> DimList(const RefCall& call, const char* name) {
  if (!call.Has(name)) return std::optional<std::vector<int64_t>>();
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> v, call.Ints(name));
  return std::optional<std::vector<int64_t>>(v);
}

// sum / mean / prod: the accumulation dtype follows torch (ints -> int64).
absl::Status SumLike(RefCall& call, const char* dim_name, bool mean, bool prod) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  if (dim_name != nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, DimList(call, dim_name));
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  DataType out = dtype.value_or(IsFloatingPoint(self.dtype()) ? self.dtype() : DataType::kInt64);
  if (mean && !IsFloatingPoint(out)) {
    return call.Invalid(absl::StrCat("mean(): could not infer output dtype; got ", DataTypeName(out)));
  }
  if (dtype) {
    PT2ONNX_ASSIGN_OR_RETURN(self, CastTensor(self, *dtype));
  }
  const bool ints = !IsFloatingPoint(out);
  absl::StatusOr<Grouped> g = Group(self, dims, keepdim, ints);
  if (!g.ok()) return call.Invalid(g.status().message());
  if (ints) {
    std::vector<int64_t> r(g->groups, prod ? 1 : 0);
    for (int64_t k = 0; k < g->groups; ++k) {
      for (int64_t j = 0; j < g->size; ++j) {
        const uint64_t v = static_cast<uint64_t>(g->i[k * g->size + j]);
        r[k] = static_cast<int64_t>(prod ? static_cast<uint64_t>(r[k]) * v : static_cast<uint64_t>(r[k]) + v);
      }
    }
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(out, g->out_dims, r));
    return call.SetTensor(std::move(t));
  }
  std::vector<double> r(g->groups, prod ? 1.0 : 0.0);
  for (int64_t k = 0; k < g->groups; ++k) {
    for (int64_t j = 0; j < g->size; ++j) {
      const double v = g->f[k * g->size + j];
      r[k] = prod ? r[k] * v : r[k] + v;
    }
    if (mean) r[k] /= static_cast<double>(g->size);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(out, g->out_dims, r));
  return call.SetTensor(std::move(t));
}
// aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
absl::Status Sum(RefCall& c) { return SumLike(c, nullptr, false, false); }
// aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status SumDim(RefCall& c) { return SumLike(c, "dim", false, false); }
// aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor / mean.dim
absl::Status Mean(RefCall& c) { return SumLike(c, nullptr, true, false); }
absl::Status MeanDim(RefCall& c) { return SumLike(c, "dim", true, false); }
// aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor / prod.dim_int
absl::Status Prod(RefCall& c) { return SumLike(c, nullptr, false, true); }
absl::Status ProdDim(RefCall& c) { return SumLike(c, "dim", false, true); }

// max/min reductions: NaN wins; indices are the first extreme (or NaN).
absl::Status Extreme(RefCall& call, bool max, const char* dim_name, bool values, bool indices) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  if (dim_name != nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, DimList(call, dim_name));
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  if (self.numel() == 0) return call.Invalid("max/min of an empty tensor");
  const bool ints = !IsFloatingPoint(self.dtype());
  absl::StatusOr<Grouped> g = Group(self, dims, keepdim, false);
  if (!g.ok()) return call.Invalid(g.status().message());
  std::vector<int64_t> gi;
  if (ints) {
    absl::StatusOr<Grouped> gi_or = Group(self, dims, keepdim, true);
    gi = gi_or->i;
  }
  std::vector<double> rv(g->groups);
  std::vector<int64_t> ri(g->groups), rint(g->groups);
  for (int64_t k = 0; k < g->groups; ++k) {
    int64_t best = 0;
    for (int64_t j = 1; j < g->size; ++j) {
      const int64_t at = k * g->size + j, cur = k * g->size + best;
      if (ints) {
        if (max ? gi[at] > gi[cur] : gi[at] < gi[cur]) best = j;
      } else {
        const double v = g->f[at], b = g->f[cur];
        if (std::isnan(b)) break;
        if (std::isnan(v) || (max ? v > b : v < b)) best = j;
      }
    }
    rv[k] = g->f[k * g->size + best];
    if (ints) rint[k] = gi[k * g->size + best];
    ri[k] = best;
  }
  if (values) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor v, ints ? FromInts(self.dtype(), g->out_dims, rint)
                                            : FromDoubles(self.dtype(), g->out_dims, rv));
    PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(v)));
  }
  if (indices) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor i, FromInts(DataType::kInt64, g->out_dims, ri));
    PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(i)));
  }
  return absl::OkStatus();
}
// aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
absl::Status Amax(RefCall& c) { return Extreme(c, true, "dim", true, false); }
absl::Status Amin(RefCall& c) { return Extreme(c, false, "dim", true, false); }
// aten::max(Tensor self) -> Tensor
absl::Status MaxAll(RefCall& c) { return Extreme(c, true, nullptr, true, false); }
absl::Status MinAll(RefCall& c) { return Extreme(c, false, nullptr, true, false); }
// aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status MaxDim(RefCall& c) { return Extreme(c, true, "dim", true, true); }
absl::Status MinDim(RefCall& c) { return Extreme(c, false, "dim", true, true); }
// aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
absl::Status Argmax(RefCall& c) { return Extreme(c, true, "dim", false, true); }
absl::Status Argmin(RefCall& c) { return Extreme(c, false, "dim", false, true); }

// var/std: correction (default 1) divides by N - correction.
absl::Status VarStd(RefCall& call, bool std_dev, bool with_mean, bool correction_arg, bool has_dim) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  if (has_dim) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, DimList(call, "dim"));
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  double correction = 1;
  if (correction_arg) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> c, call.OptionalDouble("correction"));
    correction = c.value_or(1.0);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(bool unbiased, call.Bool("unbiased"));
    correction = unbiased ? 1 : 0;
  }
  absl::StatusOr<Grouped> g = Group(self, dims, keepdim, false);
  if (!g.ok()) return call.Invalid(g.status().message());
  std::vector<double> var(g->groups), mean(g->groups);
  for (int64_t k = 0; k < g->groups; ++k) {
    double m = 0, s = 0;
    for (int64_t j = 0; j < g->size; ++j) m += g->f[k * g->size + j];
    m /= static_cast<double>(g->size);
    for (int64_t j = 0; j < g->size; ++j) s += (g->f[k * g->size + j] - m) * (g->f[k * g->size + j] - m);
    const double v = s / std::max(0.0, static_cast<double>(g->size) - correction);
    var[k] = std_dev ? std::sqrt(v) : v;
    mean[k] = m;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v, FromDoubles(self.dtype(), g->out_dims, var));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(v)));
  if (!with_mean) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, FromDoubles(self.dtype(), g->out_dims, mean));
  return call.SetTensor(std::move(m));
}
// aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
absl::Status VarCorrection(RefCall& c) { return VarStd(c, false, false, true, true); }
absl::Status StdCorrection(RefCall& c) { return VarStd(c, true, false, true, true); }
// aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
absl::Status VarDim(RefCall& c) { return VarStd(c, false, false, false, true); }
absl::Status StdDim(RefCall& c) { return VarStd(c, true, false, false, true); }
// aten::var(Tensor self, bool unbiased=True) -> Tensor
absl::Status VarAll(RefCall& c) { return VarStd(c, false, false, false, false); }
absl::Status StdAll(RefCall& c) { return VarStd(c, true, false, false, false); }
// aten::var_mean.correction(...) -> (Tensor, Tensor)
absl::Status VarMeanCorrection(RefCall& c) { return VarStd(c, false, true, true, true); }
absl::Status StdMeanCorrection(RefCall& c) { return VarStd(c, true, true, true, true); }
absl::Status VarMeanDim(RefCall& c) { return VarStd(c, false, true, false, true); }
absl::Status StdMeanDim(RefCall& c) { return VarStd(c, true, true, false, true); }
// aten::var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
absl::Status VarMeanAll(RefCall& c) { return VarStd(c, false, true, false, false); }
absl::Status StdMeanAll(RefCall& c) { return VarStd(c, true, true, false, false); }

// any/all: bool results (uint8 input keeps uint8, as torch does).
absl::Status AnyAll(RefCall& call, bool any, const char* dim_name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  if (dim_name != nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, DimList(call, dim_name));
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
    if (!dims) dims = std::vector<int64_t>();
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, CastTensor(self, DataType::kBool));
  absl::StatusOr<Grouped> g = Group(b, dims, keepdim, true);
  if (!g.ok()) return call.Invalid(g.status().message());
  std::vector<int64_t> r(g->groups, any ? 0 : 1);
  for (int64_t k = 0; k < g->groups; ++k) {
    for (int64_t j = 0; j < g->size; ++j) {
      const bool v = g->i[k * g->size + j] != 0;
      r[k] = any ? (r[k] || v) : (r[k] && v);
    }
  }
  const DataType out = self.dtype() == DataType::kUint8 ? DataType::kUint8 : DataType::kBool;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(out, g->out_dims, r));
  return call.SetTensor(std::move(t));
}
// aten::any(Tensor self) -> Tensor; any.dim(Tensor self, int dim, bool keepdim=False); any.dims(Tensor self, int[]? dim=None, bool keepdim=False)
absl::Status Any(RefCall& c) { return AnyAll(c, true, nullptr); }
absl::Status AnyDim(RefCall& c) { return AnyAll(c, true, "dim"); }
absl::Status All(RefCall& c) { return AnyAll(c, false, nullptr); }
absl::Status AllDim(RefCall& c) { return AnyAll(c, false, "dim"); }

// aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
absl::Status LogSumExp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, DimList(call, "dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  absl::StatusOr<Grouped> g = Group(self, dims, keepdim, false);
  if (!g.ok()) return call.Invalid(g.status().message());
  std::vector<double> r(g->groups);
  for (int64_t k = 0; k < g->groups; ++k) {
    double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < g->size; ++j) m = std::max(m, g->f[k * g->size + j]);
    if (std::isinf(m)) m = 0;
    for (int64_t j = 0; j < g->size; ++j) s += std::exp(g->f[k * g->size + j] - m);
    r[k] = std::log(s) + m;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(FloatResult(self.dtype()), g->out_dims, r));
  return call.SetTensor(std::move(t));
}

// sum(|x|^ord)^(1/ord), with inf / -inf / 0 orders.
absl::Status Norm(RefCall& call, const char* ord_name, const char* dim_name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  double ord = 2;
  if (call.Has(ord_name)) {
    PT2ONNX_ASSIGN_OR_RETURN(ord, call.Double(ord_name));
  }
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  if (dim_name != nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, DimList(call, dim_name));
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  std::optional<DataType> dtype;
  if (call.Has("dtype")) {
    PT2ONNX_ASSIGN_OR_RETURN(dtype, call.Dtype("dtype"));
  }
  absl::StatusOr<Grouped> g = Group(self, dims, keepdim, false);
  if (!g.ok()) return call.Invalid(g.status().message());
  std::vector<double> r(g->groups);
  for (int64_t k = 0; k < g->groups; ++k) {
    double acc = std::isinf(ord) && ord < 0 ? INFINITY : 0;
    for (int64_t j = 0; j < g->size; ++j) {
      const double a = std::fabs(g->f[k * g->size + j]);
      if (std::isinf(ord)) acc = ord > 0 ? std::max(acc, a) : std::min(acc, a);
      else if (ord == 0) acc += a != 0;
      else acc += std::pow(a, ord);
    }
    r[k] = (std::isinf(ord) || ord == 0) ? acc : std::pow(acc, 1.0 / ord);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(dtype.value_or(FloatResult(self.dtype())), g->out_dims, r));
  return call.SetTensor(std::move(t));
}
// aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status VectorNorm(RefCall& c) { return Norm(c, "ord", "dim"); }
// aten::norm.Scalar(Tensor self, Scalar p=2) -> Tensor
absl::Status NormScalar(RefCall& c) { return Norm(c, "p", nullptr); }
// aten::norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
absl::Status NormDim(RefCall& c) { return Norm(c, "p", "dim"); }

// aten::count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor; count_nonzero(Tensor self, int? dim=None)
absl::Status CountNonzero(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, DimList(call, "dim"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, CastTensor(self, DataType::kBool));
  absl::StatusOr<Grouped> g = Group(b, dims, false, true);
  if (!g.ok()) return call.Invalid(g.status().message());
  std::vector<int64_t> r(g->groups, 0);
  for (int64_t k = 0; k < g->groups; ++k) for (int64_t j = 0; j < g->size; ++j) r[k] += g->i[k * g->size + j];
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(DataType::kInt64, g->out_dims, r));
  return call.SetTensor(std::move(t));
}

}  // namespace

void RegisterReductionRef(RefRegistry& r) {
  r.Add("aten::sum.default", Sum);
  r.Add("aten::sum.dim_IntList", SumDim);
  r.Add("aten::mean.default", Mean);
  r.Add("aten::mean.dim", MeanDim);
  r.Add("aten::prod.default", Prod);
  r.Add("aten::prod.dim_int", ProdDim);
  r.Add("aten::amax.default", Amax);
  r.Add("aten::amin.default", Amin);
  r.Add("aten::max.default", MaxAll);
  r.Add("aten::min.default", MinAll);
  r.Add("aten::max.dim", MaxDim);
  r.Add("aten::min.dim", MinDim);
  r.Add("aten::argmax.default", Argmax);
  r.Add("aten::argmin.default", Argmin);
  r.Add("aten::var.correction", VarCorrection);
  r.Add("aten::var.dim", VarDim);
  r.Add("aten::var.default", VarAll);
  r.Add("aten::std.correction", StdCorrection);
  r.Add("aten::std.dim", StdDim);
  r.Add("aten::std.default", StdAll);
  r.Add("aten::var_mean.correction", VarMeanCorrection);
  r.Add("aten::std_mean.correction", StdMeanCorrection);
  r.Add("aten::var_mean.dim", VarMeanDim);
  r.Add("aten::std_mean.dim", StdMeanDim);
  r.Add("aten::var_mean.default", VarMeanAll);
  r.Add("aten::std_mean.default", StdMeanAll);
  r.Add("aten::all.default", All);
  r.Add("aten::all.dim", AllDim);
  r.Add("aten::all.dims", AllDim);
  r.Add("aten::any.default", Any);
  r.Add("aten::any.dim", AnyDim);
  r.Add("aten::any.dims", AnyDim);
  r.Add("aten::logsumexp.default", LogSumExp);
  r.Add("aten::linalg_vector_norm.default", VectorNorm);
  r.Add("aten::norm.Scalar", NormScalar);
  r.Add("aten::norm.ScalarOpt_dim", NormDim);
  r.Add("aten::count_nonzero.dim_IntList", CountNonzero);
  r.Add("aten::count_nonzero.default", CountNonzero);
}

}  // namespace pt2onnx::reference
