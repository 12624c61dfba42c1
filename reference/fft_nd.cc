// Reference kernels: torch.fft's n-dimensional transforms (fft2/fftn,
// ifft2/ifftn, rfft2/rfftn, irfft2/irfftn) and the Hermitian ones
// (hfft/hfft2/hfftn, ihfft/ihfft2/ihfftn), as ATen composes them from r2c,
// c2c and c2r (aten/src/ATen/native/SpectralOps.cpp), on fft_support's
// direct sums in double:
//   dims: `dim` if given, else the last len(s) dims when `s` is given, else
//   all; sizes: s (an entry of -1 keeps the input's), else the input's.
//   irfftn/hfftn: the last size is the output length n (default
//   2 * (m - 1)); the input keeps n / 2 + 1 entries there.
//   hfftn: c2c forward over the other dims, conjugate, c2r over the last.
//   ihfftn: r2c (onesided) over the last dim, conjugate, c2c inverse over
//   the others.
// The normalization covers the product of all sizes (each ATen step scales
// by its own dims' product; the steps' product is the same).
#include <algorithm>
#include <complex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/fft_support.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

using fft_support::ComplexOf;
using fft_support::ComplexToReal;
using fft_support::ComplexValues;
using fft_support::FromComplex;
using fft_support::RealOf;
using fft_support::RequireReal;
using fft_support::Resize;
using fft_support::Scale;
using fft_support::Signal;
using fft_support::Transform;

struct Plan {
  std::vector<int64_t> dims;
  std::vector<std::optional<int64_t>> sizes;  // nullopt: the input's
};

// SpectralOps.cpp canonicalize_fft_shape_and_dim_args.
absl::StatusOr<Plan> PlanTransform(const RefCall& call, const Tensor& self) {
  std::optional<std::vector<int64_t>> s, dim;
  if (call.Has("s")) {
    PT2ONNX_ASSIGN_OR_RETURN(s, call.Ints("s"));
  }
  if (call.Has("dim")) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, call.Ints("dim"));
  }
  const int64_t rank = self.rank();
  Plan plan;
  if (dim) {
    if (s && s->size() != dim->size()) return call.Invalid("When given, dim and shape arguments must have the same length");
    for (int64_t d : *dim) {
      PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, rank));
      if (std::find(plan.dims.begin(), plan.dims.end(), w) != plan.dims.end()) return call.Invalid("FFT dims must be unique");
      plan.dims.push_back(w);
    }
  } else if (s) {
    if (static_cast<int64_t>(s->size()) > rank) return call.Invalid("Got shape with more values than the input has dimensions");
    for (int64_t d = rank - static_cast<int64_t>(s->size()); d < rank; ++d) plan.dims.push_back(d);
  } else {
    for (int64_t d = 0; d < rank; ++d) plan.dims.push_back(d);
  }
  if (plan.dims.empty()) return call.Invalid("an FFT needs at least one dim to transform");
  for (size_t i = 0; i < plan.dims.size(); ++i) {
    std::optional<int64_t> size;
    if (s && (*s)[i] != -1) {
      if ((*s)[i] < 1 || (*s)[i] > (int64_t{1} << 31)) return call.Invalid(absl::StrCat("Invalid number of data points (", (*s)[i], ") specified"));
      size = (*s)[i];
    }
    plan.sizes.push_back(size);
  }
  return plan;
}

// hfft / ihfft: one dim, n.
absl::StatusOr<Plan> OneDimPlan(const RefCall& call, const Tensor& self) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> n, call.OptionalInt("n"));
  if (self.rank() == 0) return call.Invalid("FFT needs at least one dimension");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(dim, self.rank()));
  if (n && (*n < 1 || *n > (int64_t{1} << 31))) return call.Invalid(absl::StrCat("Invalid number of data points (", *n, ") specified"));
  return Plan{{w}, {n}};
}

// `norm` as ATen's normalization for a transform in direction `inverse`.
absl::StatusOr<int64_t> Normalization(const RefCall& call, bool inverse) {
  std::string norm = "backward";
  if (call.Has("norm")) {
    PT2ONNX_ASSIGN_OR_RETURN(norm, call.String("norm"));
  }
  if (norm == "ortho") return 1;
  if (norm == "backward") return inverse ? 2 : 0;
  if (norm == "forward") return inverse ? 0 : 2;
  return call.Invalid(absl::StrCat("Invalid normalization mode: ", norm));
}

// The input (integers as float32), its complex dtype, and its values.
absl::StatusOr<std::pair<DataType, Signal>> Operand(const RefCall& call, bool require_real) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (require_real && IsComplex(self.dtype())) return call.Invalid("expects a real input tensor, but got a complex one");
  if (!IsFloatingPoint(self.dtype()) && !IsComplex(self.dtype())) {
    PT2ONNX_ASSIGN_OR_RETURN(self, CastTensor(self, DataType::kFloat));
  }
  if (!IsComplex(self.dtype())) PT2ONNX_RETURN_IF_ERROR(RequireReal(call, self));
  const DataType complex = IsComplex(self.dtype()) ? self.dtype() : ComplexOf(self.dtype());
  return std::make_pair(complex, Signal{self.dims(), ComplexValues(self)});
}

// s resized to the plan (all dims, or all but the last).
Signal Fit(Signal s, const Plan& plan, bool skip_last) {
  for (size_t i = 0; i + (skip_last ? 1 : 0) < plan.dims.size(); ++i) {
    if (plan.sizes[i]) s = Resize(s, plan.dims[i], *plan.sizes[i]);
  }
  return s;
}

double SizeProduct(const Signal& s, const std::vector<int64_t>& dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(s.dims[d]);
  return n;
}

void Conjugate(Signal& s) {
  for (auto& c : s.v) c = std::conj(c);
}

// fftn / ifftn and the 2-D forms.
absl::Status C2cN(RefCall& call, bool inverse) {
  PT2ONNX_ASSIGN_OR_RETURN(auto operand, Operand(call, false));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, PlanTransform(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, Normalization(call, inverse));
  Signal s = Fit(std::move(operand.second), plan, false);
  for (int64_t d : plan.dims) PT2ONNX_RETURN_IF_ERROR(Transform(s, d, inverse ? +1 : -1));
  PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, SizeProduct(s, plan.dims)));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromComplex(operand.first, s.dims, s.v));
  return call.SetTensor(std::move(out));
}

// rfftn / rfft2, and ihfft* (conjugated, inverse direction).
absl::Status R2cN(RefCall& call, const Plan& plan, bool hermitian) {
  PT2ONNX_ASSIGN_OR_RETURN(auto operand, Operand(call, true));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, Normalization(call, hermitian));
  Signal s = Fit(std::move(operand.second), plan, false);
  const int64_t last = plan.dims.back();
  const double n = SizeProduct(s, plan.dims);
  PT2ONNX_RETURN_IF_ERROR(Transform(s, last, -1));
  s = Resize(s, last, s.dims[last] / 2 + 1);
  if (hermitian) Conjugate(s);
  for (size_t i = 0; i + 1 < plan.dims.size(); ++i) {
    PT2ONNX_RETURN_IF_ERROR(Transform(s, plan.dims[i], hermitian ? +1 : -1));
  }
  PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, n));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromComplex(operand.first, s.dims, s.v));
  return call.SetTensor(std::move(out));
}

// irfftn / irfft2, and hfft* (forward over the other dims, conjugated).
absl::Status C2rN(RefCall& call, const Plan& plan, bool hermitian) {
  PT2ONNX_ASSIGN_OR_RETURN(auto operand, Operand(call, false));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, Normalization(call, !hermitian));
  const int64_t last = plan.dims.back();
  const int64_t n = plan.sizes.back().value_or(2 * (operand.second.dims[last] - 1));
  if (n < 1) return call.Invalid(absl::StrCat("Invalid number of data points (", n, ") specified"));
  Signal s = Fit(std::move(operand.second), plan, true);
  for (size_t i = 0; i + 1 < plan.dims.size(); ++i) {
    PT2ONNX_RETURN_IF_ERROR(Transform(s, plan.dims[i], hermitian ? -1 : +1));
  }
  if (hermitian) Conjugate(s);
  const std::vector<int64_t> others(plan.dims.begin(), plan.dims.end() - 1);
  PT2ONNX_RETURN_IF_ERROR(Scale(call, s, normalization, SizeProduct(s, others) * static_cast<double>(n)));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, ComplexToReal(std::move(s), last, n, RealOf(operand.first)));
  return call.SetTensor(std::move(out));
}

absl::StatusOr<Plan> NdPlan(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return PlanTransform(call, self);
}
absl::StatusOr<Plan> OnePlan(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return OneDimPlan(call, self);
}

// aten::fft_fftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor
// (fft_fft2: dim=[-2,-1]; the others below take the same arguments)
absl::Status FftFftn(RefCall& call) { return C2cN(call, false); }
absl::Status FftIfftn(RefCall& call) { return C2cN(call, true); }
absl::Status FftRfftn(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, NdPlan(call));
  return R2cN(call, plan, false);
}
absl::Status FftIhfftn(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, NdPlan(call));
  return R2cN(call, plan, true);
}
absl::Status FftIrfftn(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, NdPlan(call));
  return C2rN(call, plan, false);
}
absl::Status FftHfftn(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, NdPlan(call));
  return C2rN(call, plan, true);
}
// aten::fft_hfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor (ihfft: the same)
absl::Status FftHfft(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, OnePlan(call));
  return C2rN(call, plan, true);
}
absl::Status FftIhfft(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Plan plan, OnePlan(call));
  return R2cN(call, plan, true);
}

}  // namespace

void RegisterFftNdRef(RefRegistry& r) {
  r.Add("aten::fft_fft2.default", FftFftn);
  r.Add("aten::fft_fftn.default", FftFftn);
  r.Add("aten::fft_ifft2.default", FftIfftn);
  r.Add("aten::fft_ifftn.default", FftIfftn);
  r.Add("aten::fft_rfft2.default", FftRfftn);
  r.Add("aten::fft_rfftn.default", FftRfftn);
  r.Add("aten::fft_irfft2.default", FftIrfftn);
  r.Add("aten::fft_irfftn.default", FftIrfftn);
  r.Add("aten::fft_hfft.default", FftHfft);
  r.Add("aten::fft_hfft2.default", FftHfftn);
  r.Add("aten::fft_hfftn.default", FftHfftn);
  r.Add("aten::fft_ihfft.default", FftIhfft);
  r.Add("aten::fft_ihfft2.default", FftIhfftn);
  r.Add("aten::fft_ihfftn.default", FftIhfftn);
}

}  // namespace pt2onnx::reference
