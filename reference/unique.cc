// Reference kernels: _unique2 (sorted unique of all elements), unique_dim
// (unique slices along a dim, in lexicographic order) and
// unique_consecutive (runs of equal values or slices), each with inverse
// indices and counts. NaN is never equal to anything (each NaN is a value
// of its own, sorted last); -0.0 equals 0.0.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// The tensor as `count` slices of `width` values along dim (dim < 0: every
// element a slice).
struct SliceView {
  std::vector<double> values;
  int64_t count = 0, width = 1, inner = 1, n = 1;
  double At(int64_t s, int64_t k) const {  // element k of slice s
    const int64_t outer = k / inner, in = k % inner;
    return values[(outer * n + s) * inner + in];
  }
};

SliceView ViewOf(const Tensor& t, int64_t dim) {
  SliceView v;
  v.values = ToDoubles(t);
  if (dim < 0) {
    v.count = t.numel();
    return v;
  }
  v.n = t.dims()[dim];
  for (int64_t d = dim + 1; d < t.rank(); ++d) v.inner *= t.dims()[d];
  v.count = v.n;
  v.width = v.n == 0 ? 0 : t.numel() / v.n;
  return v;
}

// -1 / 0 / 1 with NaN above everything; `equal` is false when a NaN meets.
int CompareSlices(const SliceView& v, int64_t a, int64_t b, bool& equal) {
  equal = true;
  for (int64_t k = 0; k < v.width; ++k) {
    const double x = v.At(a, k), y = v.At(b, k);
    if (std::isnan(x) || std::isnan(y)) equal = false;
    if (x < y || (!std::isnan(x) && std::isnan(y))) return equal = false, -1;
    if (y < x || (std::isnan(x) && !std::isnan(y))) return equal = false, 1;
  }
  return 0;
}

// Groups the slices in `order` into runs of equal neighbours; emits values,
// inverse and counts.
absl::Status Emit(RefCall& call, const Tensor& self, int64_t dim, const SliceView& v, const std::vector<int64_t>& order,
                  bool return_inverse, bool return_counts) {
  // The dim variants return both whether asked or not; the others empty tensors.
  if (dim >= 0) return_inverse = return_counts = true;
  std::vector<int64_t> first, counts, inverse(v.count);
  for (size_t i = 0; i < order.size(); ++i) {
    bool equal = false;
    if (i == 0 || (CompareSlices(v, order[i - 1], order[i], equal), !equal)) {
      first.push_back(order[i]);
      counts.push_back(0);
    }
    ++counts.back();
    inverse[order[i]] = static_cast<int64_t>(first.size()) - 1;
  }
  const int64_t k = static_cast<int64_t>(first.size());
  Dims dims = dim < 0 ? Dims{k} : self.dims();
  if (dim >= 0) dims[dim] = k;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, NewTensor(self.dtype(), dims));
  for (int64_t g = 0; g < k; ++g) {
    for (int64_t e = 0; e < v.width; ++e) {
      const int64_t outer = e / v.inner, in = e % v.inner;
      const int64_t src = dim < 0 ? first[g] : (outer * v.n + first[g]) * v.inner + in;
      const int64_t dst = dim < 0 ? g : (outer * k + g) * v.inner + in;
      CopyElement(values, dst, self, src);
    }
  }
  const Dims inverse_dims = dim < 0 ? self.dims() : Dims{v.count};
  PT2ONNX_ASSIGN_OR_RETURN(Tensor inv, FromInts(DataType::kInt64, return_inverse ? inverse_dims : Dims{0},
                                                return_inverse ? inverse : std::vector<int64_t>()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor cnt, FromInts(DataType::kInt64, return_counts ? Dims{k} : Dims{0},
                                                return_counts ? counts : std::vector<int64_t>()));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(values)));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(inv)));
  return call.SetTensor(std::move(cnt));
}

std::vector<int64_t> SortedOrder(const SliceView& v) {
  std::vector<int64_t> order(v.count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    bool equal;
    return CompareSlices(v, a, b, equal) < 0;
  });
  return order;
}

// aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)
// torch's CPU kernel sorts whatever `sorted` says.
absl::Status Unique2(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool inverse, call.Bool("return_inverse"));
  PT2ONNX_ASSIGN_OR_RETURN(bool counts, call.Bool("return_counts"));
  const SliceView v = ViewOf(self, -1);
  return Emit(call, self, -1, v, SortedOrder(v), inverse, counts);
}

// aten::_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)
absl::Status Unique(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool inverse, call.Bool("return_inverse"));
  const SliceView v = ViewOf(self, -1);
  return Emit(call, self, -1, v, SortedOrder(v), inverse, false);  // the third result is not bound
}

// aten::unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)
absl::Status UniqueDim(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  if (self.rank() == 0) return call.Invalid("unique_dim: a 0-d tensor has no dim");
  PT2ONNX_ASSIGN_OR_RETURN(bool inverse, call.Bool("return_inverse"));
  PT2ONNX_ASSIGN_OR_RETURN(bool counts, call.Bool("return_counts"));
  const SliceView v = ViewOf(self, dim);
  return Emit(call, self, dim, v, SortedOrder(v), inverse, counts);
}

// aten::unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)
absl::Status UniqueConsecutive(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool inverse, call.Bool("return_inverse"));
  PT2ONNX_ASSIGN_OR_RETURN(bool counts, call.Bool("return_counts"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> d, call.OptionalInt("dim"));
  int64_t dim = -1;
  if (d.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, WrapDim(*d, self.rank()));
    if (self.rank() == 0) dim = -1;
  }
  const SliceView v = ViewOf(self, dim);
  std::vector<int64_t> order(v.count);
  std::iota(order.begin(), order.end(), 0);
  return Emit(call, self, dim, v, order, inverse, counts);
}

}  // namespace

void RegisterUniqueRef(RefRegistry& r) {
  r.Add("aten::_unique2.default", Unique2);
  r.Add("aten::_unique.default", Unique);
  r.Add("aten::unique_dim.default", UniqueDim);
  r.Add("aten::unique_consecutive.default", UniqueConsecutive);
}

}  // namespace pt2onnx::reference
