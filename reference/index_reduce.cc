// File: reference/index_reduce.cc
// -----------------------------------------------------------------------------
// Reference kernels: index_reduce (prod/mean/amax/amin of source rows into
// the rows of self that index names, with or without self) and
// segment_reduce (lengths or offsets: sum/mean/prod/max/min of each run of
// the axis), as element loops in double (floats) or int64 (integers).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

enum class Fold { kSum, kProd, kMax, kMin };

// a folded with b; max/min keep a NaN once seen (torch's maximum/minimum).
template <typename T>
T Apply(Fold f, T a, T b) {
  if constexpr (!std::is_integral_v<T>) {
    if ((f == Fold::kMax || f == Fold::kMin) && (std::isnan(a) || std::isnan(b))) return NAN;
  }
  switch (f) {
    case Fold::kSum:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      else return a + b;
    case Fold::kProd:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
      else return a * b;
    case Fold::kMax: return b > a ? b : a;
    case Fold::kMin: return b < a ? b : a;
  }
  return a;
}

// Extent of `dims` before, at and after `dim` (a 0-d tensor is 1 x 1 x 1).
struct Split3 {
  int64_t outer = 1, size = 1, inner = 1;
};
Split3 SplitAt(const Dims& dims, int64_t dim) {
  Split3 s;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d < dim) s.outer *= dims[d];
    else if (d == dim) s.size = dims[d];
    else s.inner *= dims[d];
  }
  return s;
}

template <typename T>
void IndexReduceLoop(std::vector<T>& out, const std::vector<T>& src, const std::vector<int64_t>& rows,
                     const Split3& self, int64_t n, Fold f, bool mean, bool include_self, T identity) {
  std::vector<int64_t> count(out.size(), include_self ? 1 : 0);
  if (!include_self) {
    for (int64_t o = 0; o < self.outer; ++o)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = 0; i < self.inner; ++i) out[(o * self.size + rows[k]) * self.inner + i] = identity;
  }
  for (int64_t o = 0; o < self.outer; ++o) {
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t i = 0; i < self.inner; ++i) {
        const int64_t d = (o * self.size + rows[k]) * self.inner + i;
        out[d] = Apply(f, out[d], src[(o * n + k) * self.inner + i]);
        ++count[d];
      }
    }
  }
  if (!mean) return;
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t c = count[d] == 0 ? 1 : count[d];
    if constexpr (std::is_integral_v<T>) {
      T q = out[d] / c;
      if (out[d] % c != 0 && out[d] < 0) --q;
      out[d] = q;
    } else {
      out[d] /= static_cast<double>(c);
    }
  }
}

// aten::index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor
absl::Status IndexReduceImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor index, call.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor source, call.Input("source"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduce, call.String("reduce"));
  bool include_self = true;
  if (call.Has("include_self")) {
    PT2ONNX_ASSIGN_OR_RETURN(include_self, call.Bool("include_self"));
  }
  Fold f;
  if (reduce == "prod") f = Fold::kProd;
  else if (reduce == "mean") f = Fold::kSum;
  else if (reduce == "amax") f = Fold::kMax;
  else if (reduce == "amin") f = Fold::kMin;
  else return call.Invalid(absl::StrCat("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce));
  if (self.dtype() == DataType::kBool) return call.Invalid("index_reduce of a bool tensor");
  if (source.dtype() != self.dtype()) return call.Invalid("index_reduce_(): self and source must have the same scalar type");
  if (index.rank() > 1) return call.Invalid("index_reduce_(): Index is supposed to be a vector");
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> idx, IndexValues(index));
  const Split3 s = SplitAt(self.dims(), dim);
  const int64_t n = static_cast<int64_t>(idx.size());
  const Split3 src = SplitAt(source.dims(), dim);
  if (src.outer * src.size * src.inner != s.outer * n * s.inner || (source.rank() > 0 && src.size != n)) {
    return call.Invalid(absl::StrCat("index_reduce_(): Number of indices (", n, ") should be equal to source.size(dim)"));
  }
  for (int64_t& v : idx) {
    PT2ONNX_ASSIGN_OR_RETURN(v, WrapIndex(v, s.size));
  }
  const bool mean = reduce == "mean";
  Tensor out;
  if (IsFloatLike(self.dtype())) {
    const double inf = std::numeric_limits<double>::infinity();
    const double identity = f == Fold::kProd ? 1 : f == Fold::kMax ? -inf : f == Fold::kMin ? inf : 0;
    std::vector<double> v = ToDoubles(self);
    IndexReduceLoop(v, ToDoubles(source), idx, s, n, f, mean, include_self, identity);
    PT2ONNX_ASSIGN_OR_RETURN(out, FromDoubles(self.dtype(), self.dims(), v));
  } else {
    // Integer identities: the dtype's extremes for amax/amin.
    int64_t identity = f == Fold::kProd ? 1 : 0;
    if (f == Fold::kMax || f == Fold::kMin) {
      switch (self.dtype()) {
        case DataType::kUint8: identity = f == Fold::kMax ? 0 : 255; break;
        case DataType::kInt8: identity = f == Fold::kMax ? -128 : 127; break;
        case DataType::kInt16: identity = f == Fold::kMax ? INT16_MIN : INT16_MAX; break;
        case DataType::kInt32: identity = f == Fold::kMax ? INT32_MIN : INT32_MAX; break;
        default: identity = f == Fold::kMax ? INT64_MIN : INT64_MAX; break;
      }
    }
    std::vector<int64_t> v = ToInts(self);
    IndexReduceLoop(v, ToInts(source), idx, s, n, f, mean, include_self, identity);
    PT2ONNX_ASSIGN_OR_RETURN(out, FromInts(self.dtype(), self.dims(), v));
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status IndexReduce(RefCall& call) { return IndexReduceImpl(call, false); }
absl::Status IndexReduceInPlace(RefCall& call) { return IndexReduceImpl(call, true); }

// aten::segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor
// Each segment folds from `initial` (else the identity); mean divides by the
// length, except an empty one, which is `initial` or NaN
// (aten/src/ATen/native/SegmentReduce.cpp).
absl::Status SegmentReduce(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor data, call.Input("data"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduce, call.String("reduce"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> lengths, call.OptionalInput("lengths"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> offsets, call.OptionalInput("offsets"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> indices, call.OptionalInput("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t a, call.Int("axis"));
  if (indices) return call.Invalid("segment_reduce(): indices based reduction is not supported yet.");
  if (!lengths && !offsets) return call.Invalid("segment_reduce(): Either lengths or offsets must be defined.");
  if (!IsFloatLike(data.dtype())) return call.Invalid("segment_reduce of a non-floating tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, WrapDim(a, data.rank()));
  const Tensor& bounds = offsets ? *offsets : *lengths;
  if (bounds.rank() != axis + 1) {
    return call.Invalid("segment_reduce(): Expected axis to be the last dimension of lengths/offsets");
  }
  std::optional<double> initial;
  if (call.Has("initial")) {
    PT2ONNX_ASSIGN_OR_RETURN(RefScalar v, call.Scalar("initial"));
    initial = v.AsDouble();
  }
  const bool mean = reduce == "mean";
  Fold f;
  if (reduce == "sum" || mean) f = Fold::kSum;
  else if (reduce == "prod") f = Fold::kProd;
  else if (reduce == "max") f = Fold::kMax;
  else if (reduce == "min") f = Fold::kMin;
  else return call.Invalid(absl::StrCat("segment_reduce: unknown reduce '", reduce, "'"));
  const double inf = std::numeric_limits<double>::infinity();
  const double start = initial ? *initial : f == Fold::kProd ? 1 : f == Fold::kMax ? -inf : f == Fold::kMin ? inf : 0;

  const Split3 s = SplitAt(data.dims(), axis);
  const int64_t width = bounds.dims()[axis];
  const int64_t segments = offsets ? width - 1 : width;
  if (segments < 0) return call.Invalid("segment_reduce: empty offsets");
  std::vector<int64_t> b = ToInts(bounds);
  if (static_cast<int64_t>(b.size()) != s.outer * width) {
    return call.Invalid("segment_reduce: the leading dims of lengths/offsets must be data's");
  }
  const std::vector<double> x = ToDoubles(data);
  Dims out_dims = data.dims();
  out_dims[axis] = segments;
  std::vector<double> out(static_cast<size_t>(s.outer * segments * s.inner));
  for (int64_t o = 0; o < s.outer; ++o) {
    int64_t end = offsets ? b[o * width] : 0;
    for (int64_t g = 0; g < segments; ++g) {
      int64_t begin = end, length;
      if (offsets) {
        end = b[o * width + g + 1];
        length = end - begin;
      } else {
        length = b[o * width + g];
        end = begin + length;
      }
      if (length < 0 || begin < 0 || end > s.size) {
        return call.Invalid(absl::StrCat("segment_reduce: segment [", begin, ", ", end, ") outside the axis"));
      }
      for (int64_t i = 0; i < s.inner; ++i) {
        double acc = start;
        for (int64_t j = begin; j < end; ++j) acc = Apply(f, acc, x[(o * s.size + j) * s.inner + i]);
        if (mean) {
          if (length == 0 && !initial) acc = NAN;
          else if (length > 0) acc /= static_cast<double>(length);
        }
        out[(o * segments + g) * s.inner + i] = acc;
      }
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(data.dtype(), out_dims, out));
  return call.SetTensor(std::move(result));
}

}  // namespace

void RegisterIndexReduceRef(RefRegistry& r) {
  r.Add("aten::index_reduce.default", IndexReduce);
  r.Add("aten::index_reduce_.default", IndexReduceInPlace);
  r.Add("aten::segment_reduce.default", SegmentReduce);
}

}  // namespace pt2onnx::reference
