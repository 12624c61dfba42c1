// File: reference/counting.cc
// -----------------------------------------------------------------------------
// Reference kernels: repeat_interleave (three overloads), histc, bincount,
// with torch's semantics (aten/src/ATen/native/Repeat.cpp,
// aten/src/ATen/native/Histogram.cpp + cpu/HistogramKernel.cpp,
// aten/src/ATen/native/SummaryOps.cpp), written as plain loops.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// Slices of `x` along `axis` repeated counts[i] times each (bytes copied).
absl::StatusOr<Tensor> RepeatAlong(const RefCall& call, const Tensor& x, int64_t axis,
                                   const std::vector<int64_t>& counts, std::optional<int64_t> output_size) {
  const int64_t n = x.rank() == 0 ? 1 : x.dim(static_cast<size_t>(axis));
  if (static_cast<int64_t>(counts.size()) != n) {
    return call.Invalid(absl::StrCat("repeats must have the same size as input along dim, but got repeats.size(0) = ",
                                     counts.size(), " and input.size(", axis, ") = ", n));
  }
  int64_t total = 0;
  for (int64_t c : counts) {
    if (c < 0) return call.Invalid("repeats can not be negative");
    total += c;
  }
  if (output_size.has_value() && *output_size != total) {
    return call.Invalid(absl::StrCat("output_size ", *output_size, " differs from the sum of repeats ", total));
  }
  Dims dims = x.rank() == 0 ? Dims{1} : x.dims();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  dims[static_cast<size_t>(axis)] = total;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(x.dtype(), dims));
  const size_t bytes = static_cast<size_t>(inner) * ElementSize(x.dtype());
  uint8_t* dst = out.raw();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* src = x.raw() + (o * n + i) * bytes;
      for (int64_t k = 0; k < counts[static_cast<size_t>(i)]; ++k, dst += bytes) std::memcpy(dst, src, bytes);
    }
  }
  return out;
}

// `self` (flattened when dim is None) and the axis to repeat along.
absl::StatusOr<std::pair<Tensor, int64_t>> Source(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, call.OptionalInt("dim"));
  if (!dim.has_value()) return std::make_pair(self.Alias(Dims{self.numel()}), int64_t{0});
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, WrapDim(*dim, self.rank()));
  return std::make_pair(self, axis);
}

// aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
absl::Status RepeatInterleaveSelfInt(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(auto source, Source(call));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t r, call.Int("repeats"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> size, call.OptionalInt("output_size"));
  const Tensor& x = source.first;
  const int64_t n = x.rank() == 0 ? 1 : x.dim(static_cast<size_t>(source.second));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, RepeatAlong(call, x, source.second, std::vector<int64_t>(n, r), size));
  return call.SetTensor(std::move(out));
}

// aten::repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
absl::Status RepeatInterleaveSelfTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(auto source, Source(call));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor repeats, call.Input("repeats"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> size, call.OptionalInt("output_size"));
  if (repeats.rank() > 1) return call.Invalid("repeats must be 0-dim or 1-dim tensor");
  const Tensor& x = source.first;
  const int64_t n = x.rank() == 0 ? 1 : x.dim(static_cast<size_t>(source.second));
  std::vector<int64_t> counts = ToInts(repeats);
  if (counts.size() == 1) counts.assign(static_cast<size_t>(n), counts[0]);  // torch broadcasts one count
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, RepeatAlong(call, x, source.second, counts, size));
  return call.SetTensor(std::move(out));
}

// aten::repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor
// i repeated repeats[i] times, in the dtype of repeats.
absl::Status RepeatInterleaveTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor repeats, call.Input("repeats"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> size, call.OptionalInt("output_size"));
  if (repeats.rank() != 1) return call.Invalid("repeat_interleave only accept 1D vector as repeat");
  std::vector<int64_t> counts = ToInts(repeats);
  std::vector<int64_t> idx;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] < 0) return call.Invalid("repeats can not be negative");
    idx.insert(idx.end(), static_cast<size_t>(counts[i]), static_cast<int64_t>(i));
  }
  if (size.has_value() && *size != static_cast<int64_t>(idx.size())) {
    return call.Invalid(absl::StrCat("output_size ", *size, " differs from the sum of repeats ", idx.size()));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(repeats.dtype(), Dims{static_cast<int64_t>(idx.size())}, idx));
  return call.SetTensor(std::move(out));
}

// x rounded to float32 when the tensor is float32 (torch bins in the input dtype).
double InDtype(DataType dtype, double x) { return dtype == DataType::kDouble ? x : static_cast<float>(x); }

// aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor
absl::Status Histc(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t bins, call.Int("bins"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar min_s, call.Scalar("min"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar max_s, call.Scalar("max"));
  if (bins <= 0) return call.Invalid("bins must be > 0");
  if (!IsFloatLike(self.dtype())) return call.Unsupported("histc of a non floating-point tensor");
  std::vector<double> x = ToDoubles(self);
  const DataType dt = self.dtype();
  double lo = min_s.AsDouble(), hi = max_s.AsDouble();
  if (lo == hi && !x.empty()) {  // Histogram.cpp: the data's extrema
    lo = *std::min_element(x.begin(), x.end());
    hi = *std::max_element(x.begin(), x.end());
    for (double v : x) {
      if (std::isnan(v)) return call.Invalid("range of [nan, nan] is not finite");
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) return call.Invalid("range is not finite");
  if (!(lo < hi)) return call.Invalid("max must be larger than min");
  lo = InDtype(dt, lo);
  hi = InDtype(dt, hi);
  std::vector<double> hist(static_cast<size_t>(bins), 0.0);
  for (double v : x) {
    if (!(v >= lo && v <= hi)) continue;  // outside, or NaN
    // HistogramKernel.cpp (LINEAR_INTERPOLATION): each operation in the input dtype.
    double scaled = InDtype(dt, InDtype(dt, InDtype(dt, v - lo) * static_cast<double>(InDtype(dt, bins))) / InDtype(dt, hi - lo));
    int64_t pos = static_cast<int64_t>(scaled);
    if (pos == bins) pos -= 1;
    hist[static_cast<size_t>(pos)] += 1;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(dt, Dims{bins}, hist));
  return call.SetTensor(std::move(out));
}

// aten::bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor
absl::Status Bincount(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> weights, call.OptionalInput("weights"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t minlength, call.Int("minlength"));
  if (self.rank() != 1 || IsFloatLike(self.dtype()) || self.dtype() == DataType::kBool) {
    return call.Invalid("bincount only supports 1-d non-negative integral inputs.");
  }
  if (minlength < 0) return call.Invalid("minlength should be >= 0");
  std::vector<int64_t> x = ToInts(self);
  int64_t length = minlength;
  for (int64_t v : x) {
    if (v < 0) return call.Invalid("bincount only supports 1-d non-negative integral inputs.");
    length = std::max(length, v + 1);
  }
  if (weights.has_value() && weights->numel() != self.numel()) {
    return call.Invalid("weights should be 1-d and have the same length as input");
  }
  // SummaryOps.cpp: float weights sum in float, any other weights in double, counts in int64.
  DataType out_dtype = !weights.has_value() ? DataType::kInt64
                       : weights->dtype() == DataType::kFloat ? DataType::kFloat : DataType::kDouble;
  std::vector<double> w = weights.has_value() ? ToDoubles(*weights) : std::vector<double>();
  std::vector<double> sums(static_cast<size_t>(length), 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    double add = w.empty() ? 1.0 : w[i];
    double s = sums[static_cast<size_t>(x[i])] + add;
    sums[static_cast<size_t>(x[i])] = out_dtype == DataType::kFloat ? static_cast<float>(s) : s;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(out_dtype, Dims{length}, sums));
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterCountingRef(RefRegistry& r) {
  r.Add("aten::repeat_interleave.self_int", RepeatInterleaveSelfInt);
  r.Add("aten::repeat_interleave.self_Tensor", RepeatInterleaveSelfTensor);
  r.Add("aten::repeat_interleave.Tensor", RepeatInterleaveTensor);
  r.Add("aten::histc.default", Histc);
  r.Add("aten::bincount.default", Bincount);
}

}  // namespace pt2onnx::reference
