// Reference kernels: scans along one dim (cumsum, cumprod, logcumsumexp,
// cummax/cummin with torch's tie and NaN rules) and diff.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// A tensor seen as outer x len x inner around one dim.
struct Lanes {
  int64_t outer = 1, len = 1, inner = 1;
  int64_t At(int64_t o, int64_t k, int64_t i) const { return (o * len + k) * inner + i; }
};

absl::StatusOr<Lanes> LanesOf(const Dims& dims, int64_t dim_arg, int64_t* dim_out) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dim_arg, rank));
  Lanes l;
  if (rank == 0) return l;
  for (int64_t d = 0; d < dim; ++d) l.outer *= dims[d];
  l.len = dims[dim];
  for (int64_t d = dim + 1; d < rank; ++d) l.inner *= dims[d];
  if (dim_out != nullptr) *dim_out = dim;
  return l;
}

// Integral (and bool) inputs accumulate in int64 unless a dtype is given.
absl::Status Scan(RefCall& call, bool product) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  const DataType out_dtype = dtype.has_value() ? *dtype : IsFloatLike(self.dtype()) ? self.dtype() : DataType::kInt64;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, CastTensor(self, out_dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Lanes l, LanesOf(self.dims(), dim, nullptr));
  if (IsFloatLike(out_dtype)) {
    std::vector<double> v = ToDoubles(x);
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i)
        for (int64_t k = 1; k < l.len; ++k) {
          double& cur = v[l.At(o, k, i)];
          const double prev = v[l.At(o, k - 1, i)];
          cur = product ? prev * cur : prev + cur;
        }
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(out_dtype, self.dims(), v));
    return call.SetTensor(std::move(out));
  }
  std::vector<int64_t> v = ToInts(x);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i)
      for (int64_t k = 1; k < l.len; ++k) {
        const uint64_t prev = static_cast<uint64_t>(v[l.At(o, k - 1, i)]);
        const uint64_t cur = static_cast<uint64_t>(v[l.At(o, k, i)]);
        v[l.At(o, k, i)] = static_cast<int64_t>(product ? prev * cur : prev + cur);
      }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(out_dtype, self.dims(), v));
  return call.SetTensor(std::move(out));
}

// aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
absl::Status Cumsum(RefCall& call) { return Scan(call, false); }
// aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
absl::Status Cumprod(RefCall& call) { return Scan(call, true); }

// log(exp(a) + exp(b)) without overflow; equal infinities stay as they are.
double LogAddExp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  const double lo = std::min(a, b), hi = std::max(a, b);
  if (std::isinf(lo) && lo == hi) return lo;
  return hi + std::log1p(std::exp(lo - hi));
}

// aten::logcumsumexp(Tensor self, int dim) -> Tensor
absl::Status Logcumsumexp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(Lanes l, LanesOf(self.dims(), dim, nullptr));
  std::vector<double> v = ToDoubles(self);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i)
      for (int64_t k = 1; k < l.len; ++k) v[l.At(o, k, i)] = LogAddExp(v[l.At(o, k - 1, i)], v[l.At(o, k, i)]);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(FloatResult(self.dtype()), self.dims(), v));
  return call.SetTensor(std::move(out));
}

// The running extreme takes a new element when it is NaN or ties (the later
// index wins), as torch's cummax/cummin do.
absl::Status CumExtreme(RefCall& call, bool max) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(Lanes l, LanesOf(self.dims(), dim, nullptr));
  std::vector<double> v = ToDoubles(self);
  std::vector<int64_t> iv = ToInts(self);
  const bool is_float = IsFloatLike(self.dtype());
  std::vector<int64_t> idx(v.size());
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 0; k < l.len; ++k) {
        const int64_t at = l.At(o, k, i), cur = l.At(o, best, i);
        bool take = k == 0;
        if (!take && is_float) {
          take = std::isnan(v[at]) || (!std::isnan(v[cur]) && (max ? v[at] >= v[cur] : v[at] <= v[cur]));
        } else if (!take) {
          take = max ? iv[at] >= iv[cur] : iv[at] <= iv[cur];
        }
        if (take) best = k;
        const int64_t b = l.At(o, best, i);
        idx[at] = best;
        v[at] = v[b];
        iv[at] = iv[b];
      }
    }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, is_float ? FromDoubles(self.dtype(), self.dims(), v)
                                                   : FromInts(self.dtype(), self.dims(), iv));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, FromInts(DataType::kInt64, self.dims(), idx));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(values)));
  return call.SetTensor(std::move(indices));
}
// aten::cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)
absl::Status Cummax(RefCall& call) { return CumExtreme(call, true); }
// aten::cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)
absl::Status Cummin(RefCall& call) { return CumExtreme(call, false); }

// Concatenation of a, b along dim (same dims elsewhere checked).
absl::StatusOr<Tensor> CatAlong(const Tensor& a, const Tensor& b, int64_t dim) {
  if (a.rank() != b.rank()) return absl::InvalidArgumentError("diff: prepend/append rank differs from self");
  Dims dims = a.dims();
  for (int64_t d = 0; d < a.rank(); ++d) {
    if (d != dim && a.dims()[d] != b.dims()[d]) return absl::InvalidArgumentError("diff: prepend/append shape differs");
  }
  dims[dim] += b.dims()[dim];
  const DataType dtype = aten::PromoteTypes(a.dtype(), b.dtype());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor ca, CastTensor(a, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor cb, CastTensor(b, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Lanes la, LanesOf(a.dims(), dim, nullptr));
  PT2ONNX_ASSIGN_OR_RETURN(Lanes lb, LanesOf(b.dims(), dim, nullptr));
  const size_t es = ElementSize(dtype);
  const size_t na = la.len * la.inner * es, nb = lb.len * lb.inner * es;
  for (int64_t o = 0; o < la.outer; ++o) {
    std::memcpy(out.raw() + o * (na + nb), ca.raw() + o * na, na);
    std::memcpy(out.raw() + o * (na + nb) + na, cb.raw() + o * nb, nb);
  }
  return out;
}

// aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor
absl::Status Diff(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, call.Int("n"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim_arg, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> prepend, call.OptionalInput("prepend"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> append, call.OptionalInput("append"));
  if (x.rank() == 0) return call.Invalid("diff expects a tensor of at least 1 dim");
  if (n < 0) return call.Invalid(absl::StrCat("diff's order n must be non-negative, got ", n));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dim_arg, x.rank()));
  if (n == 0) return call.SetTensor(std::move(x));  // torch ignores prepend/append then
  if (prepend.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(x, CatAlong(*prepend, x, dim));
  }
  if (append.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(x, CatAlong(x, *append, dim));
  }
  const bool is_bool = x.dtype() == DataType::kBool, is_float = IsFloatLike(x.dtype());
  for (int64_t step = 0; step < n && x.dims()[dim] > 0; ++step) {
    PT2ONNX_ASSIGN_OR_RETURN(Lanes l, LanesOf(x.dims(), dim, nullptr));
    Dims dims = x.dims();
    dims[dim] -= 1;
    Lanes r = l;
    r.len -= 1;
    std::vector<double> dv = ToDoubles(x), dout(r.outer * r.len * r.inner);
    std::vector<int64_t> iv = ToInts(x), iout(dout.size());
    for (int64_t o = 0; o < r.outer; ++o)
      for (int64_t k = 0; k < r.len; ++k)
        for (int64_t i = 0; i < r.inner; ++i) {
          const int64_t a = l.At(o, k + 1, i), b = l.At(o, k, i);
          dout[r.At(o, k, i)] = dv[a] - dv[b];
          iout[r.At(o, k, i)] = is_bool ? (iv[a] != iv[b])
                                        : static_cast<int64_t>(static_cast<uint64_t>(iv[a]) - static_cast<uint64_t>(iv[b]));
        }
    PT2ONNX_ASSIGN_OR_RETURN(x, is_float ? FromDoubles(x.dtype(), dims, dout) : FromInts(x.dtype(), dims, iout));
  }
  return call.SetTensor(std::move(x));
}

}  // namespace

void RegisterCumulativeRef(RefRegistry& r) {
  r.Add("aten::cumsum.default", Cumsum);
  r.Add("aten::cumprod.default", Cumprod);
  r.Add("aten::logcumsumexp.default", Logcumsumexp);
  r.Add("aten::cummax.default", Cummax);
  r.Add("aten::cummin.default", Cummin);
  r.Add("aten::diff.default", Diff);
}

}  // namespace pt2onnx::reference
