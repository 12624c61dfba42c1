// File: reference/nan_reductions.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/nan_reductions.cc: nansum, nanmean, aminmax and
// isreal, as loops over each output's slice in double (int64 for integer
// sums), not the ONNX expansions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// Which output element each input element reduces into.
struct Slices {
  Dims out_dims;
  int64_t outputs = 1;
  std::vector<int64_t> output_of;  // per input element, row-major
};

// `dims` empty: every dim. A 0-d input accepts dim 0 / -1.
absl::StatusOr<Slices> SliceMap(const Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  const int64_t rank = self.rank();
  std::vector<bool> reduced(rank, dims.empty());
  for (int64_t d : dims) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, rank));
    if (rank == 0) continue;
    if (reduced[w]) return absl::InvalidArgumentError(absl::StrCat("dim ", w, " appears twice"));
    reduced[w] = true;
  }
  Slices s;
  std::vector<int64_t> out_stride(rank, 0);
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (reduced[d]) continue;
    out_stride[d] = s.outputs;
    s.outputs *= self.dims()[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) s.out_dims.push_back(self.dims()[d]);
    else if (keepdim) s.out_dims.push_back(1);
  }
  s.output_of.resize(self.numel());
  std::vector<int64_t> index(rank, 0);
  for (int64_t e = 0; e < self.numel(); ++e) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) o += index[d] * out_stride[d];
    s.output_of[e] = o;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < self.dims()[d]) break;
      index[d] = 0;
    }
  }
  return s;
}

absl::StatusOr<std::vector<int64_t>> OptionalDimList(const RefCall& call) {
  if (!call.Has("dim")) return std::vector<int64_t>{};  // None: every dim
  return call.Ints("dim");
}

// nansum / nanmean: NaN counts as 0 and is left out of the mean's count.
absl::Status NanSumMean(RefCall& call, bool mean) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalDimList(call));
  bool keepdim = false;
  if (call.Has("keepdim")) {
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  const DataType out = dtype.value_or(IsFloatingPoint(self.dtype()) ? self.dtype() : DataType::kInt64);
  if (mean && !IsFloatingPoint(out)) return call.Invalid("nanmean(): expected a floating point input or dtype");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, CastTensor(self, out));
  absl::StatusOr<Slices> s = SliceMap(x, dims, keepdim);
  if (!s.ok()) return call.Invalid(s.status().message());
  if (!IsFloatingPoint(out)) {
    const std::vector<int64_t> v = ToInts(x);
    std::vector<int64_t> sums(s->outputs, 0);
    for (size_t e = 0; e < v.size(); ++e) {
      // Wrapping two's-complement addition, as torch's int64 sum.
      sums[s->output_of[e]] = static_cast<int64_t>(static_cast<uint64_t>(sums[s->output_of[e]]) +
                                                   static_cast<uint64_t>(v[e]));
    }
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(out, s->out_dims, sums));
    return call.SetTensor(std::move(t));
  }
  const std::vector<double> v = ToDoubles(x);
  std::vector<double> sums(s->outputs, 0.0), counts(s->outputs, 0.0);
  for (size_t e = 0; e < v.size(); ++e) {
    if (std::isnan(v[e])) continue;
    sums[s->output_of[e]] += v[e];
    counts[s->output_of[e]] += 1;
  }
  if (mean) {
    for (int64_t o = 0; o < s->outputs; ++o) sums[o] /= counts[o];
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(out, s->out_dims, sums));
  return call.SetTensor(std::move(t));
}
// aten::nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status Nansum(RefCall& call) { return NanSumMean(call, false); }
// aten::nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status Nanmean(RefCall& call) { return NanSumMean(call, true); }

// aten::aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
// NaN in a slice makes both of its results NaN.
absl::Status Aminmax(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, call.OptionalInt("dim"));
  bool keepdim = false;
  if (call.Has("keepdim")) {
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  if (self.numel() == 0) return call.Invalid("aminmax(): cannot reduce an empty tensor");
  std::vector<int64_t> dims;
  if (dim.has_value()) dims.push_back(*dim);
  absl::StatusOr<Slices> s = SliceMap(self, dims, keepdim);
  if (!s.ok()) return call.Invalid(s.status().message());
  std::vector<bool> seen(s->outputs, false);
  if (IsFloatingPoint(self.dtype())) {
    const std::vector<double> v = ToDoubles(self);
    std::vector<double> lo(s->outputs), hi(s->outputs);
    for (size_t e = 0; e < v.size(); ++e) {
      const int64_t o = s->output_of[e];
      if (!seen[o]) {
        lo[o] = hi[o] = v[e];
        seen[o] = true;
      } else if (std::isnan(v[e]) || std::isnan(lo[o])) {
        lo[o] = hi[o] = NAN;
      } else {
        lo[o] = std::fmin(lo[o], v[e]);
        hi[o] = std::fmax(hi[o], v[e]);
      }
    }
    PT2ONNX_ASSIGN_OR_RETURN(Tensor tlo, FromDoubles(self.dtype(), s->out_dims, lo));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor thi, FromDoubles(self.dtype(), s->out_dims, hi));
    PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(tlo)));
    return call.SetTensor(std::move(thi));
  }
  const std::vector<int64_t> v = ToInts(self);
  std::vector<int64_t> lo(s->outputs), hi(s->outputs);
  for (size_t e = 0; e < v.size(); ++e) {
    const int64_t o = s->output_of[e];
    if (!seen[o]) {
      lo[o] = hi[o] = v[e];
      seen[o] = true;
    } else {
      lo[o] = std::min(lo[o], v[e]);
      hi[o] = std::max(hi[o], v[e]);
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tlo, FromInts(self.dtype(), s->out_dims, lo));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor thi, FromInts(self.dtype(), s->out_dims, hi));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(tlo)));
  return call.SetTensor(std::move(thi));
}

// aten::isreal(Tensor self) -> Tensor: true everywhere for a real tensor.
absl::Status Isreal(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (IsComplex(self.dtype())) return call.Unsupported("isreal of a complex tensor");
  std::vector<int64_t> ones(self.numel(), 1);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(DataType::kBool, self.dims(), ones));
  return call.SetTensor(std::move(t));
}

}  // namespace

void RegisterNanReductionsRef(RefRegistry& r) {
  r.Add("aten::nansum.default", Nansum);
  r.Add("aten::nanmean.default", Nanmean);
  r.Add("aten::aminmax.default", Aminmax);
  r.Add("aten::isreal.default", Isreal);
}

}  // namespace pt2onnx::reference
