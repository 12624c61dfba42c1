// Reference kernels: quantile / nanquantile with a scalar q, per slice of
// the reduced dim (every element when dim is None): the slice sorted with
// NaN last, rank q * (n - 1) computed in the input's precision (float32
// ranks round as torch's do, which decides lower/higher/nearest), then the
// mode's value; linear/midpoint use torch's two-sided lerp
// (aten/src/ATen/native/Sorting.cpp, quantile_compute; native/Lerp.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

template <typename T>
double QuantileOf(std::vector<double> v, double q_in, bool ignore_nan, const std::string& mode) {
  const T q = static_cast<T>(q_in);
  std::sort(v.begin(), v.end(), [](double a, double b) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    return a < b;
  });
  int64_t valid = 0;
  for (double x : v) valid += std::isnan(x) ? 0 : 1;
  if (!ignore_nan && valid < static_cast<int64_t>(v.size())) return NAN;
  if (valid == 0) return NAN;
  T rank = q * static_cast<T>((ignore_nan ? valid : static_cast<int64_t>(v.size())) - 1);
  if (mode == "lower") rank = std::floor(rank);
  if (mode == "higher") rank = std::ceil(rank);
  if (mode == "nearest") rank = std::nearbyint(rank);  // half to even
  const int64_t lo = static_cast<int64_t>(rank);
  const T below = static_cast<T>(v[lo]);
  if (mode != "linear" && mode != "midpoint") return below;
  const T w = mode == "midpoint" ? static_cast<T>(0.5) : rank - static_cast<T>(lo);
  const T above = static_cast<T>(v[static_cast<int64_t>(std::ceil(rank))]);
  return w < static_cast<T>(0.5) ? below + w * (above - below) : above - (above - below) * (static_cast<T>(1) - w);
}

absl::Status QuantileImpl(RefCall& call, bool ignore_nan) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(double q, call.Double("q"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, call.OptionalInt("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  std::string mode = "linear";
  if (call.Has("interpolation")) {
    PT2ONNX_ASSIGN_OR_RETURN(mode, call.String("interpolation"));
  }
  if (self.dtype() != DataType::kFloat && self.dtype() != DataType::kDouble) {
    return call.Invalid("quantile() input tensor must be either float or double dtype");
  }
  if (self.numel() == 0) return call.Invalid("quantile() input tensor must be non-empty");
  if (!(q >= 0 && q <= 1)) return call.Invalid("quantile() q must be in the range [0, 1]");
  if (mode != "linear" && mode != "lower" && mode != "higher" && mode != "midpoint" && mode != "nearest") {
    return call.Invalid(absl::StrCat("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ", mode));
  }
  const std::vector<double> x = ToDoubles(self);
  int64_t outer = 1, size = self.numel(), inner = 1;
  Dims out_dims;
  if (dim) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t d, WrapDim(*dim, std::max<int64_t>(self.rank(), 1)));
    size = self.rank() == 0 ? 1 : self.dim(d);
    for (int64_t a = 0; a < self.rank(); ++a) {
      if (a < d) outer *= self.dim(a);
      if (a > d) inner *= self.dim(a);
      if (a != d) out_dims.push_back(self.dim(a));
      else if (keepdim) out_dims.push_back(1);
    }
  } else if (keepdim) {
    out_dims.assign(static_cast<size_t>(self.rank()), 1);
  }
  std::vector<double> out(static_cast<size_t>(outer * inner));
  const bool single = self.dtype() == DataType::kFloat;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<double> slice(static_cast<size_t>(size));
      for (int64_t k = 0; k < size; ++k) slice[k] = x[(o * size + k) * inner + i];
      out[o * inner + i] = single ? QuantileOf<float>(std::move(slice), q, ignore_nan, mode)
                                  : QuantileOf<double>(std::move(slice), q, ignore_nan, mode);
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(self.dtype(), out_dims, out));
  return call.SetTensor(std::move(result));
}
// aten::quantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor
absl::Status QuantileScalar(RefCall& call) { return QuantileImpl(call, false); }
// aten::nanquantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor
absl::Status NanquantileScalar(RefCall& call) { return QuantileImpl(call, true); }

}  // namespace

void RegisterQuantileRef(RefRegistry& r) {
  r.Add("aten::quantile.scalar", QuantileScalar);
  r.Add("aten::nanquantile.scalar", NanquantileScalar);
}

}  // namespace pt2onnx::reference
