// Reference kernels: searchsorted and bucketize (torch's binary search, so a
// sequence holding NaN gives torch's answer, not a count; values and
// boundaries compared in their promoted domain), and nonzero /
// nonzero_static (row-major coordinates; NaN counts as nonzero).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// The first position in [0, n) whose value is >= v (right: > v), by torch's
// bisection: "not (x >= v)" moves right, so NaN never stops it.
template <typename T, typename At>
int64_t Bisect(int64_t n, T v, bool right, const At& at) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const T x = at(mid);
    const bool go_right = right ? !(x > v) : !(x >= v);
    if (go_right) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Bucket positions of `values` in `sequence` (1-D, or N-D with one row per
// row of values), through `sorter` when given.
absl::Status SearchImpl(RefCall& call, const Tensor& sequence, const Tensor& values, bool right, bool out_int32,
                        const std::optional<Tensor>& sorter) {
  if (sequence.rank() == 0) return call.Invalid("searchsorted: the boundaries must have at least 1 dim");
  const int64_t n = sequence.dims().back();
  const bool one_row = sequence.rank() == 1;
  if (!one_row) {
    if (values.rank() != sequence.rank() ||
        !std::equal(sequence.dims().begin(), sequence.dims().end() - 1, values.dims().begin())) {
      return call.Invalid("searchsorted: boundaries and input must have the same leading dims");
    }
  }
  std::vector<int64_t> order;
  if (sorter.has_value()) {
    if (sorter->dims() != sequence.dims()) return call.Invalid("searchsorted: sorter must have the boundaries' shape");
    PT2ONNX_ASSIGN_OR_RETURN(order, IndexValues(*sorter));
    for (int64_t o : order) {
      if (o < 0 || o >= n) return call.Invalid("searchsorted: sorter index out of range");
    }
  }
  const int64_t row_len = values.rank() == 0 ? 1 : values.dims().back();
  const bool as_float = IsFloatLike(sequence.dtype()) || IsFloatLike(values.dtype());
  const std::vector<double> sf = as_float ? ToDoubles(sequence) : std::vector<double>();
  const std::vector<double> vf = as_float ? ToDoubles(values) : std::vector<double>();
  const std::vector<int64_t> si = as_float ? std::vector<int64_t>() : ToInts(sequence);
  const std::vector<int64_t> vi = as_float ? std::vector<int64_t>() : ToInts(values);
  std::vector<int64_t> out(values.numel());
  for (int64_t i = 0; i < values.numel(); ++i) {
    const int64_t base = one_row ? 0 : (i / row_len) * n;
    auto pos = [&](int64_t m) { return base + (order.empty() ? m : order[base + m]); };
    out[i] = as_float ? Bisect<double>(n, vf[i], right, [&](int64_t m) { return sf[pos(m)]; })
                      : Bisect<int64_t>(n, vi[i], right, [&](int64_t m) { return si[pos(m)]; });
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromInts(out_int32 ? DataType::kInt32 : DataType::kInt64, values.dims(), out));
  return call.SetTensor(std::move(result));
}

// aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False,
//                           str? side=None, Tensor? sorter=None) -> Tensor (.Scalar: a Scalar self)
absl::Status Searchsorted(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor sequence, call.Input("sorted_sequence"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool out_int32, call.Bool("out_int32"));
  PT2ONNX_ASSIGN_OR_RETURN(bool right, call.Bool("right"));
  if (call.Has("side")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string side, call.String("side"));
    if (side != "left" && side != "right") return call.Invalid("side can only be 'left' or 'right'");
    if (side == "left" && right) return call.Invalid("side and right can't be set to opposites");
    right = side == "right";
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> sorter, call.OptionalInput("sorter"));
  if (values.rank() == 0 && sequence.rank() > 1) return call.Invalid("searchsorted: a scalar needs 1-D boundaries");
  return SearchImpl(call, sequence, values, right, out_int32, sorter);
}

// aten::bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor
absl::Status Bucketize(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor boundaries, call.Input("boundaries"));
  PT2ONNX_ASSIGN_OR_RETURN(bool out_int32, call.Bool("out_int32"));
  PT2ONNX_ASSIGN_OR_RETURN(bool right, call.Bool("right"));
  if (boundaries.rank() != 1) return call.Invalid("boundaries tensor must be 1 dimension");
  return SearchImpl(call, boundaries, values, right, out_int32, std::nullopt);
}

// The coordinates of the nonzero elements, row after row; `rows` counts them.
std::vector<int64_t> NonzeroCoords(const Tensor& self, int64_t& rows) {
  std::vector<int64_t> coords;
  rows = 0;
  const bool is_float = IsFloatLike(self.dtype());
  for (int64_t i = 0; i < self.numel(); ++i) {
    const bool nonzero = is_float ? LoadDouble(self, i) != 0 || std::isnan(LoadDouble(self, i)) : LoadInt(self, i) != 0;
    if (!nonzero) continue;
    ++rows;
    const std::vector<int64_t> c = Coords(i, self.dims());
    coords.insert(coords.end(), c.begin(), c.end());
  }
  return coords;
}

// aten::nonzero(Tensor self) -> Tensor: [n, rank] int64
absl::Status Nonzero(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  int64_t rows = 0;
  const std::vector<int64_t> coords = NonzeroCoords(self, rows);
  const int64_t rank = self.rank();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(DataType::kInt64, {rows, rank}, coords));
  return call.SetTensor(std::move(out));
}

// aten::nonzero_numpy(Tensor self) -> Tensor[]: nonzero's columns (a 0-d
// input counts as 1-D)
absl::Status NonzeroNumpy(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  int64_t rows = 0;
  const std::vector<int64_t> coords = NonzeroCoords(self, rows);
  const int64_t rank = self.rank();
  std::vector<Tensor> columns;
  for (int64_t d = 0; d < std::max<int64_t>(rank, 1); ++d) {
    std::vector<int64_t> column(rows, 0);
    for (int64_t r = 0; r < rows && rank > 0; ++r) column[r] = coords[r * rank + d];
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(DataType::kInt64, {rows}, column));
    columns.push_back(std::move(t));
  }
  return call.SetTensors(std::move(columns));
}

// aten::nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor:
// the first `size` rows, padded with fill_value
absl::Status NonzeroStatic(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t size, call.Int("size"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t fill, call.Int("fill_value"));
  if (size < 0) return call.Invalid("nonzero_static: 'size' must be an non-negative integer");
  const int64_t rank = self.rank();
  int64_t rows = 0;
  const std::vector<int64_t> coords = NonzeroCoords(self, rows);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(DataType::kInt64, {size, rank}));
  for (int64_t i = 0; i < out.numel(); ++i) {
    StoreInt(out, i, i < static_cast<int64_t>(coords.size()) ? coords[i] : fill);
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterBucketingRef(RefRegistry& r) {
  r.Add("aten::searchsorted.Tensor", Searchsorted);
  r.Add("aten::searchsorted.Scalar", Searchsorted);
  r.Add("aten::bucketize.Tensor", Bucketize);
  r.Add("aten::bucketize.Scalar", Bucketize);
  r.Add("aten::nonzero.default", Nonzero);
  r.Add("aten::nonzero_numpy.default", NonzeroNumpy);
  r.Add("aten::nonzero_static.default", NonzeroStatic);
}

}  // namespace pt2onnx::reference
