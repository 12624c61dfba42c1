// Reference kernels: sort / argsort / msort (stable, NaN above +inf as
// torch's CPU sort), topk, kthvalue, median / nanmedian (the lower median;
// median returns the first NaN of a slice, nanmedian skips NaN) and mode
// (the smallest of the most frequent values). Each works on the slices
// along one dim; values keep the dtype, indices are int64.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// The slices of a tensor along one dim: slice s, element k is at
// Flat(s, k). A 0-d tensor is one slice of one element.
struct Slices {
  int64_t n = 1, inner = 1, count = 1;
  int64_t Flat(int64_t s, int64_t k) const { return (s / inner) * n * inner + k * inner + s % inner; }
};

Slices SlicesOf(const Tensor& t, int64_t dim) {
  Slices sl;
  if (t.rank() == 0) return sl;
  sl.n = t.dims()[dim];
  for (int64_t d = dim + 1; d < t.rank(); ++d) sl.inner *= t.dims()[d];
  sl.count = sl.n == 0 ? 0 : t.numel() / sl.n;
  if (sl.n == 0) {
    sl.count = 1;
    for (int64_t d = 0; d < t.rank(); ++d) sl.count *= d == dim ? 1 : t.dims()[d];
  }
  return sl;
}

// Values of one tensor compared in its own domain: int64 for integers and
// bools, double (NaN above everything) for floats.
struct Keys {
  bool is_float;
  std::vector<double> f;
  std::vector<int64_t> i;
  explicit Keys(const Tensor& t) : is_float(IsFloatLike(t.dtype())) {
    if (is_float) f = ToDoubles(t);
    else i = ToInts(t);
  }
  bool IsNan(int64_t a) const { return is_float && std::isnan(f[a]); }
  bool Less(int64_t a, int64_t b) const {
    if (!is_float) return i[a] < i[b];
    if (std::isnan(f[b])) return !std::isnan(f[a]);
    return f[a] < f[b];
  }
  bool Equal(int64_t a, int64_t b) const { return !Less(a, b) && !Less(b, a); }
};

absl::StatusOr<int64_t> DimArg(const RefCall& call, const Tensor& t, const char* name = "dim") {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int(name));
  return WrapDim(d, t.rank());
}

// Per slice, the positions [0, n) in stable sorted order.
std::vector<int64_t> SortedPositions(const Keys& keys, const Slices& sl, int64_t s, bool descending) {
  std::vector<int64_t> pos(sl.n);
  std::iota(pos.begin(), pos.end(), 0);
  std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) {
    return descending ? keys.Less(sl.Flat(s, b), sl.Flat(s, a)) : keys.Less(sl.Flat(s, a), sl.Flat(s, b));
  });
  return pos;
}

// Writes slice s's chosen positions `pos` (k of them) into values/indices
// shaped like self with dim of size k.
void Emit(const Tensor& self, const Slices& sl, const Slices& out_sl, int64_t s, const std::vector<int64_t>& pos,
          Tensor& values, std::vector<int64_t>& indices) {
  const size_t es = ElementSize(self.dtype());
  for (size_t k = 0; k < pos.size(); ++k) {
    const int64_t dst = out_sl.Flat(s, static_cast<int64_t>(k));
    std::memcpy(values.raw() + dst * es, self.raw() + sl.Flat(s, pos[k]) * es, es);
    indices[dst] = pos[k];
  }
}

absl::Status SortImpl(RefCall& call, bool want_values, bool want_indices, int64_t dim, bool descending) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  const Slices sl = SlicesOf(self, dim);
  const Keys keys(self);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, NewTensor(self.dtype(), self.dims()));
  std::vector<int64_t> indices(self.numel());
  for (int64_t s = 0; s < sl.count && sl.n > 0; ++s) {
    Emit(self, sl, sl, s, SortedPositions(keys, sl, s, descending), values, indices);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor idx, FromInts(DataType::kInt64, self.dims(), indices));
  if (want_values) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(values)));
  if (want_indices) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(idx)));
  return absl::OkStatus();
}

// aten::sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
// aten::sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (...)
// torch's CPU sort is stable either way.
absl::Status Sort(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, DimArg(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(bool descending, call.Bool("descending"));
  return SortImpl(call, true, true, dim, descending);
}
// aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor (and .stable)
absl::Status Argsort(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, DimArg(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(bool descending, call.Bool("descending"));
  return SortImpl(call, false, true, dim, descending);
}
// aten::msort(Tensor self) -> Tensor: sorted along dim 0
absl::Status Msort(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(0, self.rank()));
  return SortImpl(call, true, false, dim, false);
}

// The result of a per-slice selection: dim of size k (or removed).
absl::Status SelectPerSlice(RefCall& call, const Tensor& self, int64_t dim, int64_t k, bool keep_dim,
                            const std::function<std::vector<int64_t>(const Keys&, const Slices&, int64_t)>& pick) {
  const Slices sl = SlicesOf(self, dim);
  Dims dims = self.dims();
  if (self.rank() > 0) dims[dim] = k;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, NewTensor(self.dtype(), dims));
  std::vector<int64_t> indices(values.numel());
  Slices out_sl = sl;
  out_sl.n = k;
  const Keys keys(self);
  for (int64_t s = 0; s < sl.count && k > 0; ++s) Emit(self, sl, out_sl, s, pick(keys, sl, s), values, indices);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor idx, FromInts(DataType::kInt64, dims, indices));
  if (!keep_dim && self.rank() > 0) {
    dims.erase(dims.begin() + dim);
    values = values.Alias(dims);
    idx = idx.Alias(dims);
  }
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(values)));
  return call.SetTensor(std::move(idx));
}

// aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
// Always sorted (sorted=False leaves the order unspecified); NaN is the largest.
absl::Status Topk(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, DimArg(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, call.Int("k"));
  PT2ONNX_ASSIGN_OR_RETURN(bool largest, call.Bool("largest"));
  const int64_t n = self.rank() == 0 ? 1 : self.dims()[dim];
  if (k < 0 || k > n) return call.Invalid("selected index k out of range");
  return SelectPerSlice(call, self, dim, k, true, [&](const Keys& keys, const Slices& sl, int64_t s) {
    std::vector<int64_t> pos = SortedPositions(keys, sl, s, largest);
    pos.resize(k);
    return pos;
  });
}

// aten::kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status Kthvalue(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, DimArg(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, call.Int("k"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  const int64_t n = self.rank() == 0 ? 1 : self.dims()[dim];
  if (k < 1 || k > n) return call.Invalid("kthvalue(): selected number k out of range");
  return SelectPerSlice(call, self, dim, 1, keepdim, [&](const Keys& keys, const Slices& sl, int64_t s) {
    return std::vector<int64_t>{SortedPositions(keys, sl, s, false)[k - 1]};
  });
}

// The lower median of a slice: with NaN, median gives the first NaN and
// nanmedian the median of the others (all NaN: the first NaN).
int64_t MedianPosition(const Keys& keys, const Slices& sl, int64_t s, bool ignore_nan) {
  const std::vector<int64_t> pos = SortedPositions(keys, sl, s, false);
  int64_t nans = 0, first_nan = -1;
  for (int64_t k = 0; k < sl.n; ++k) {
    if (keys.IsNan(sl.Flat(s, k))) {
      if (first_nan < 0) first_nan = k;
      ++nans;
    }
  }
  if (nans > 0 && (!ignore_nan || nans == sl.n)) return first_nan;
  const int64_t valid = sl.n - nans;
  return pos[(valid - 1) / 2];
}

absl::Status MedianDim(RefCall& call, bool ignore_nan) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, DimArg(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  if (self.rank() > 0 && self.dims()[dim] == 0) return call.Invalid("median(): cannot compute the median of an empty dim");
  return SelectPerSlice(call, self, dim, 1, keepdim, [&](const Keys& keys, const Slices& sl, int64_t s) {
    return std::vector<int64_t>{MedianPosition(keys, sl, s, ignore_nan)};
  });
}
// aten::median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status MedianDimOp(RefCall& call) { return MedianDim(call, false); }
// aten::nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
absl::Status NanmedianDimOp(RefCall& call) { return MedianDim(call, true); }

// aten::median(Tensor self) -> Tensor: over all elements (nanmedian alike)
absl::Status MedianAll(RefCall& call, bool ignore_nan) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.numel() == 0) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor nan, ScalarTensor(self.dtype(), NAN));
    return call.SetTensor(std::move(nan));
  }
  const Tensor flat = self.Alias({self.numel()});
  const Keys keys(flat);
  Slices sl;
  sl.n = flat.numel();
  const int64_t at = MedianPosition(keys, sl, 0, ignore_nan);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), {}));
  std::memcpy(out.raw(), flat.raw() + at * ElementSize(self.dtype()), ElementSize(self.dtype()));
  return call.SetTensor(std::move(out));
}
absl::Status MedianAllOp(RefCall& call) { return MedianAll(call, false); }
absl::Status NanmedianAllOp(RefCall& call) { return MedianAll(call, true); }

// aten::mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
// The most frequent value (ties: the smallest), its last position.
absl::Status Mode(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, DimArg(call, self));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  if (self.rank() > 0 && self.dims()[dim] == 0) return call.Invalid("mode(): cannot compute the mode of an empty dim");
  return SelectPerSlice(call, self, dim, 1, keepdim, [&](const Keys& keys, const Slices& sl, int64_t s) {
    const std::vector<int64_t> pos = SortedPositions(keys, sl, s, false);
    int64_t best = pos[0], best_count = 0;
    for (size_t a = 0; a < pos.size();) {
      size_t b = a;
      while (b < pos.size() && keys.Equal(sl.Flat(s, pos[a]), sl.Flat(s, pos[b]))) ++b;
      if (static_cast<int64_t>(b - a) > best_count) {
        best_count = static_cast<int64_t>(b - a);
        best = *std::max_element(pos.begin() + a, pos.begin() + b);
      }
      a = b;
    }
    return std::vector<int64_t>{best};
  });
}

}  // namespace

void RegisterSortingRef(RefRegistry& r) {
  r.Add("aten::sort.default", Sort);
  r.Add("aten::sort.stable", Sort);
  r.Add("aten::argsort.default", Argsort);
  r.Add("aten::argsort.stable", Argsort);
  r.Add("aten::msort.default", Msort);
  r.Add("aten::topk.default", Topk);
  r.Add("aten::kthvalue.default", Kthvalue);
  r.Add("aten::median.default", MedianAllOp);
  r.Add("aten::median.dim", MedianDimOp);
  r.Add("aten::nanmedian.default", NanmedianAllOp);
  r.Add("aten::nanmedian.dim", NanmedianDimOp);
  r.Add("aten::mode.default", Mode);
}

}  // namespace pt2onnx::reference
