// Reference kernels: scatter along one dim (scatter src/value, with the old
// add/multiply reduce, scatter_add, scatter_reduce sum/prod/mean/amax/amin
// with or without self), index_add / index_copy / index_fill, and the
// view-scatters select_scatter / slice_scatter, with their in-place twins.
// Writes happen in index order (duplicates: the last write wins, reductions
// accumulate); floats combine in double, integers in wrapping int64.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "reference/shape_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

enum class Reduce { kAssign, kSum, kProd, kMean, kMax, kMin };

absl::StatusOr<Reduce> ParseReduce(const RefCall& call, const std::string& name) {
  if (name == "sum" || name == "add") return Reduce::kSum;
  if (name == "prod" || name == "multiply") return Reduce::kProd;
  if (name == "mean") return Reduce::kMean;
  if (name == "amax") return Reduce::kMax;
  if (name == "amin") return Reduce::kMin;
  return call.Invalid(absl::StrCat("reduce argument must be one of sum, prod, mean, amax, amin (add, multiply for "
                                   "scatter), got '", name, "'"));
}

// Pairs (destination in self, source element) in write order.
struct Writes {
  std::vector<int64_t> dst, src;
};

template <typename T>
T Combine(Reduce r, T a, T b) {
  switch (r) {
    case Reduce::kAssign: return b;
    case Reduce::kSum:
    case Reduce::kMean:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      else return a + b;
    case Reduce::kProd:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
      else return a * b;
    case Reduce::kMax:
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return NAN;
      }
      return a > b ? a : b;
    case Reduce::kMin:
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return NAN;
      }
      return a < b ? a : b;
  }
  return b;
}

// out = self with the writes applied; include_self=false starts each written
// position from its first written value; mean divides by the count (floor
// division for integers, as torch).
template <typename T>
void ApplyWrites(std::vector<T>& out, const std::vector<T>& src, const Writes& w, Reduce r, bool include_self) {
  std::vector<int64_t> count(out.size(), -1);
  for (size_t k = 0; k < w.dst.size(); ++k) {
    const int64_t d = w.dst[k];
    const T v = src[w.src[k]];
    if (count[d] < 0) {
      count[d] = include_self ? 1 : 0;
      if (!include_self || r == Reduce::kAssign) {
        out[d] = v;
        count[d] = 1;
        continue;
      }
    }
    out[d] = Combine(r, out[d], v);
    ++count[d];
  }
  if (r != Reduce::kMean) return;
  for (size_t d = 0; d < out.size(); ++d) {
    if (count[d] <= 0) continue;
    if constexpr (std::is_integral_v<T>) {
      T q = out[d] / count[d];
      if ((out[d] % count[d] != 0) && (out[d] < 0)) --q;
      out[d] = q;
    } else {
      out[d] /= count[d];
    }
  }
}

// The result: self (copied, or in place) with the writes of src applied.
absl::Status Finish(RefCall& call, Tensor self, const Tensor& src, const Writes& w, Reduce r, bool include_self,
                    bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor s, src.dtype() == self.dtype() ? src : CastTensor(src, self.dtype()));
  Tensor out;
  if (IsFloatLike(self.dtype())) {
    std::vector<double> v = ToDoubles(self);
    ApplyWrites(v, ToDoubles(s), w, r, include_self);
    PT2ONNX_ASSIGN_OR_RETURN(out, FromDoubles(self.dtype(), self.dims(), v));
  } else {
    std::vector<int64_t> v = ToInts(self);
    ApplyWrites(v, ToInts(s), w, r, include_self);
    PT2ONNX_ASSIGN_OR_RETURN(out, FromInts(self.dtype(), self.dims(), v));
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

// scatter's writes: for each index element at coords c, self[c with
// c[dim] = index[c]] gets src[c]. Index values must be in [0, size).
absl::StatusOr<Writes> ScatterWrites(const RefCall& call, const Tensor& self, int64_t dim, const Tensor& index,
                                     const Dims& src_dims) {
  if (index.rank() != self.rank() || (index.rank() != static_cast<int64_t>(src_dims.size()) && index.numel() > 0)) {
    return call.Invalid("Index tensor must have the same number of dimensions as self and src tensors");
  }
  for (int64_t d = 0; d < index.rank(); ++d) {
    if (index.dims()[d] > src_dims[d] || (d != dim && index.dims()[d] > self.dims()[d])) {
      return call.Invalid(absl::StrCat("Expected index ", DimsString(index.dims()), " to be no larger than self ",
                                       DimsString(self.dims()), " apart from dimension ", dim,
                                       " and to be no larger than src ", DimsString(src_dims)));
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> idx, IndexValues(index));
  const std::vector<int64_t> self_strides = RowMajorStrides(self.dims()), src_strides = RowMajorStrides(src_dims);
  const int64_t size = self.rank() == 0 ? 1 : self.dims()[dim];
  Writes w;
  for (int64_t i = 0; i < index.numel(); ++i) {
    std::vector<int64_t> c = Coords(i, index.dims());
    w.src.push_back(Offset(c, src_strides));
    if (idx[i] < 0 || idx[i] >= size) {
      return call.Invalid(absl::StrCat("index ", idx[i], " is out of bounds for dimension ", dim, " with size ", size));
    }
    if (self.rank() > 0) c[dim] = idx[i];
    w.dst.push_back(Offset(c, self_strides));
  }
  return w;
}

// The (Tensor self, int dim, Tensor index, ...) head of scatter and index_*,
// dim wrapped into self's rank.
struct SelfDimIndex {
  Tensor self;
  int64_t dim = 0;
  Tensor index;
};

absl::StatusOr<SelfDimIndex> ReadSelfDimIndex(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor index, call.Input("index"));
  return SelfDimIndex{std::move(self), dim, std::move(index)};
}

// scatter.src / .value / .reduce / .value_reduce, scatter_add, scatter_reduce.two
absl::Status ScatterImpl(RefCall& call, Reduce r, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(SelfDimIndex args, ReadSelfDimIndex(call));
  auto& [self, dim, index] = args;
  if (call.Has("reduce")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string name, call.String("reduce"));
    PT2ONNX_ASSIGN_OR_RETURN(r, ParseReduce(call, name));
  }
  bool include_self = true;
  if (call.Has("include_self")) {
    PT2ONNX_ASSIGN_OR_RETURN(include_self, call.Bool("include_self"));
  }
  Tensor src;
  if (call.Has("src")) {
    PT2ONNX_ASSIGN_OR_RETURN(src, call.Input("src"));
    if (src.dtype() != self.dtype()) return call.Invalid("scatter(): Expected self.dtype to be equal to src.dtype");
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor value, TensorOrScalar(call, "value"));
    PT2ONNX_ASSIGN_OR_RETURN(src, BroadcastTo(value, index.dims()));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Writes w, ScatterWrites(call, self, dim, index, src.dims()));
  return Finish(call, self, src, w, r, include_self, in_place);
}
// aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
absl::Status Scatter(RefCall& call) { return ScatterImpl(call, Reduce::kAssign, false); }
absl::Status ScatterInPlace(RefCall& call) { return ScatterImpl(call, Reduce::kAssign, true); }
// aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
absl::Status ScatterAdd(RefCall& call) { return ScatterImpl(call, Reduce::kSum, false); }
absl::Status ScatterAddInPlace(RefCall& call) { return ScatterImpl(call, Reduce::kSum, true); }

// index_add / index_copy / index_fill: slice i of source along dim goes to
// slice index[i] of self (negative indices wrap).
absl::StatusOr<Writes> IndexWrites(const RefCall& call, const Tensor& self, int64_t dim, const Tensor& index,
                                   const Dims& src_dims) {
  if (index.rank() > 1) return call.Invalid("index_*(): Index is supposed to be a vector");
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> idx, IndexValues(index));
  const int64_t size = self.rank() == 0 ? 1 : self.dims()[dim];
  Dims expect = self.dims();
  if (self.rank() > 0) expect[dim] = index.numel();
  if (Dims(src_dims) != expect && !(self.rank() == 0 && src_dims.empty())) {
    return call.Invalid(absl::StrCat("index_*(): source ", DimsString(src_dims), " must have self's shape ",
                                     "with dim ", dim, " of the index's length"));
  }
  const std::vector<int64_t> self_strides = RowMajorStrides(self.dims()), src_strides = RowMajorStrides(src_dims);
  Writes w;
  int64_t total = 1;  // src_dims are an existing tensor's
  for (int64_t n : src_dims) total *= n;
  for (int64_t i = 0; i < total; ++i) {
    std::vector<int64_t> c = Coords(i, src_dims);
    w.src.push_back(i);
    const int64_t k = self.rank() > 0 ? c[dim] : 0;
    PT2ONNX_ASSIGN_OR_RETURN(int64_t at, WrapIndex(idx[k], size));
    if (self.rank() > 0) c[dim] = at;
    w.dst.push_back(Offset(c, self_strides));
  }
  return w;
}

absl::Status IndexAddImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(SelfDimIndex args, ReadSelfDimIndex(call));
  auto& [self, dim, index] = args;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor source, call.Input("source"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar alpha, call.Scalar("alpha"));
  PT2ONNX_ASSIGN_OR_RETURN(Writes w, IndexWrites(call, self, dim, index, source.dims()));
  Tensor scaled;
  if (IsFloatLike(self.dtype())) {
    PT2ONNX_ASSIGN_OR_RETURN(scaled, UnaryMapDouble(source, self.dtype(), [&](double x) { return alpha.AsDouble() * x; }));
  } else {
    std::vector<int64_t> v = ToInts(source);
    for (int64_t& x : v) x = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(alpha.i));
    PT2ONNX_ASSIGN_OR_RETURN(scaled, FromInts(self.dtype(), source.dims(), v));
  }
  return Finish(call, self, scaled, w, Reduce::kSum, true, in_place);
}
// aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
absl::Status IndexAdd(RefCall& call) { return IndexAddImpl(call, false); }
absl::Status IndexAddInPlace(RefCall& call) { return IndexAddImpl(call, true); }

absl::Status IndexCopyImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(SelfDimIndex args, ReadSelfDimIndex(call));
  auto& [self, dim, index] = args;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor source, call.Input("source"));
  if (source.dtype() != self.dtype()) return call.Invalid("index_copy_(): self and source expected to have the same dtype");
  PT2ONNX_ASSIGN_OR_RETURN(Writes w, IndexWrites(call, self, dim, index, source.dims()));
  return Finish(call, self, source, w, Reduce::kAssign, true, in_place);
}
// aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor
absl::Status IndexCopy(RefCall& call) { return IndexCopyImpl(call, false); }
absl::Status IndexCopyInPlace(RefCall& call) { return IndexCopyImpl(call, true); }

absl::Status IndexFillImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(SelfDimIndex args, ReadSelfDimIndex(call));
  auto& [self, dim, index] = args;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor value, TensorOrScalar(call, "value"));
  if (value.rank() != 0) return call.Invalid("index_fill_ only supports a 0-dimensional value tensor");
  Dims src_dims = self.dims();
  if (self.rank() > 0) src_dims[dim] = index.numel();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src, BroadcastTo(value, src_dims));
  PT2ONNX_ASSIGN_OR_RETURN(Writes w, IndexWrites(call, self, dim, index, src_dims));
  return Finish(call, self, src, w, Reduce::kAssign, true, in_place);
}
// aten::index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor (.int_Tensor: a 0-d value)
absl::Status IndexFill(RefCall& call) { return IndexFillImpl(call, false); }
absl::Status IndexFillInPlace(RefCall& call) { return IndexFillImpl(call, true); }

// Writes to the elements of self that a view of self's iota shows.
absl::StatusOr<Writes> ViewWrites(const Tensor& view_offsets) {
  Writes w;
  w.dst = ToInts(view_offsets);
  for (size_t i = 0; i < w.dst.size(); ++i) w.src.push_back(static_cast<int64_t>(i));
  return w;
}

absl::StatusOr<Tensor> Iota(const Tensor& self) {
  std::vector<int64_t> v(self.numel());
  for (int64_t i = 0; i < self.numel(); ++i) v[i] = i;
  return FromInts(DataType::kInt64, self.dims(), v);
}

// aten::select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor
absl::Status SelectScatter(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src, call.Input("src"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t index, call.Int("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor iota, Iota(self));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor view, SelectDim(iota, dim, index));
  if (view.dims() != src.dims()) return call.Invalid("select_scatter: src must have the shape of the selected slice");
  PT2ONNX_ASSIGN_OR_RETURN(Writes w, ViewWrites(view));
  return Finish(call, self, src, w, Reduce::kAssign, true, false);
}

// aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor
absl::Status SliceScatter(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src, call.Input("src"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor iota, Iota(self));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor view, SliceByArgs(call, iota));
  if (view.dims() != src.dims()) return call.Invalid("slice_scatter: src must have the shape of the slice");
  PT2ONNX_ASSIGN_OR_RETURN(Writes w, ViewWrites(view));
  return Finish(call, self, src, w, Reduce::kAssign, true, false);
}

}  // namespace

void RegisterScatterRef(RefRegistry& r) {
  r.Add("aten::scatter.src", Scatter);
  r.Add("aten::scatter.value", Scatter);
  r.Add("aten::scatter.reduce", Scatter);
  r.Add("aten::scatter.value_reduce", Scatter);
  r.Add("aten::scatter_.src", ScatterInPlace);
  r.Add("aten::scatter_.value", ScatterInPlace);
  r.Add("aten::scatter_add.default", ScatterAdd);
  r.Add("aten::scatter_add_.default", ScatterAddInPlace);
  r.Add("aten::scatter_reduce.two", Scatter);
  r.Add("aten::scatter_reduce_.two", ScatterInPlace);
  r.Add("aten::index_add.default", IndexAdd);
  r.Add("aten::index_add_.default", IndexAddInPlace);
  r.Add("aten::index_copy.default", IndexCopy);
  r.Add("aten::index_copy_.default", IndexCopyInPlace);
  r.Add("aten::index_fill.int_Scalar", IndexFill);
  r.Add("aten::index_fill.int_Tensor", IndexFill);
  r.Add("aten::index_fill_.int_Scalar", IndexFillInPlace);
  r.Add("aten::index_fill_.int_Tensor", IndexFillInPlace);
  r.Add("aten::select_scatter.default", SelectScatter);
  r.Add("aten::slice_scatter.default", SliceScatter);
}

}  // namespace pt2onnx::reference
