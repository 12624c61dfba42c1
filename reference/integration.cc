// File: reference/integration.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/integration.cc (trapezoid, trapz,
// cumulative_trapezoid with sample points or a constant spacing) and
// ops/logspace.cc, as plain loops in double.
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/aten/type_promotion.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// Trapezoid areas along `dim`, summed (or running sums when `cumulative`).
absl::Status Trapezoid(RefCall& call, bool with_x, bool cumulative) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, call.Input("y"));
  const int64_t rank = y.rank();
  if (rank == 0) return call.Invalid("y must have at least one dimension");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim_arg, call.Int("dim"));
  absl::StatusOr<int64_t> wrapped = WrapDim(dim_arg, rank);
  if (!wrapped.ok()) return call.Invalid(wrapped.status().message());
  const int64_t dim = *wrapped;
  const int64_t n = y.dims()[dim];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= y.dims()[d];
  for (int64_t d = dim + 1; d < rank; ++d) inner *= y.dims()[d];
  const std::vector<double> yv = ToDoubles(y);
  // Sample points laid out like y (empty: the constant spacing).
  std::vector<double> xv;
  double spacing = 1;
  if (with_x) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("x"));
    if (x.rank() == 0 || x.rank() > rank) return call.Invalid("x must have 1 to y.dim() dims");
    if (x.rank() == 1 && rank > 1) {
      if (x.dims()[0] != n) return call.Invalid("x's length differs from y's size along dim");
      const std::vector<double> points = ToDoubles(x);
      xv.resize(yv.size());
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t k = 0; k < inner; ++k) xv[(o * n + i) * inner + k] = points[i];
        }
      }
    } else {
      absl::StatusOr<Tensor> full = BroadcastTo(x, y.dims());
      if (!full.ok()) return call.Invalid(full.status().message());
      xv = ToDoubles(*full);
    }
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(spacing, call.Double("dx"));
  }
  // Integer operands: torch adds y's and subtracts x's neighbours in their
  // own dtypes and multiplies in the promoted one, wrapping at each width,
  // and sums integer areas exactly (ops/integration.cc).
  const DataType y_dtype = y.dtype();
  DataType x_dtype = y_dtype;
  if (with_x) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("x"));
    x_dtype = x.dtype();
  }
  const DataType common = aten::PromoteTypes(y_dtype, x_dtype);
  const bool integer = IsInteger(y_dtype) || IsInteger(x_dtype);
  // Integer values as int64 (saturating what a double of int64 may round past), and two's complement
  // arithmetic on them without signed overflow.
  auto to_int = [](double v) -> int64_t {
    if (!(v > -9.2e18)) return INT64_MIN;
    return v < 9.2e18 ? static_cast<int64_t>(v) : INT64_MAX;
  };
  auto as_signed = [](uint64_t v) { return static_cast<int64_t>(v); };
  auto pair_sum = [&](int64_t a, int64_t b) {
    if (!IsInteger(y_dtype)) return yv[a] + yv[b];
    return WrapToWidth(as_signed(static_cast<uint64_t>(to_int(yv[a])) + static_cast<uint64_t>(to_int(yv[b]))), y_dtype);
  };
  auto width = [&](int64_t a, int64_t b) {
    if (!with_x) return spacing;
    if (!IsInteger(x_dtype)) return xv[b] - xv[a];
    return WrapToWidth(as_signed(static_cast<uint64_t>(to_int(xv[b])) - static_cast<uint64_t>(to_int(xv[a]))), x_dtype);
  };
  auto area = [&](int64_t a, int64_t b) {
    if (!integer) return width(a, b) * (yv[a] + yv[b]) / 2;
    if (!with_x) return pair_sum(a, b) * (spacing / 2);
    // Halved after the sum, below.
    if (!IsInteger(common)) return pair_sum(a, b) * width(a, b);
    return WrapToWidth(as_signed(static_cast<uint64_t>(to_int(pair_sum(a, b))) * static_cast<uint64_t>(to_int(width(a, b)))),
                       common);
  };
  const double scale = integer && with_x ? 0.5 : 1.0;
  const int64_t intervals = n > 0 ? n - 1 : 0;
  Dims out_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != dim) out_dims.push_back(y.dims()[d]);
    else if (cumulative) out_dims.push_back(intervals);
  }
  std::vector<double> out(cumulative ? outer * intervals * inner : outer * inner, 0.0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < inner; ++k) {
      if (integer && !with_x && !cumulative) {
        // y.sum(dim) - (y[0] + y[-1]) * 0.5, times dx: the ends' sum wraps; no samples give 0.
        if (n == 0) continue;
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += yv[(o * n + i) * inner + k];
        out[o * inner + k] = (sum - pair_sum((o * n) * inner + k, (o * n + n - 1) * inner + k) * 0.5) * spacing;
        continue;
      }
      double total = 0;
      for (int64_t i = 0; i < intervals; ++i) {
        const int64_t a = (o * n + i) * inner + k, b = a + inner;
        total += area(a, b);
        if (cumulative) out[(o * intervals + i) * inner + k] = total * scale;
      }
      if (!cumulative) out[o * inner + k] = total * scale;
    }
  }
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = FloatResult(y.dtype());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(dtype, out_dims, out));
  return call.SetTensor(std::move(t));
}
// aten::trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor; trapz.x alike
absl::Status TrapezoidX(RefCall& call) { return Trapezoid(call, true, false); }
// aten::trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor; trapz.dx alike
absl::Status TrapezoidDx(RefCall& call) { return Trapezoid(call, false, false); }
// aten::cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor
absl::Status CumulativeTrapezoidX(RefCall& call) { return Trapezoid(call, true, true); }
// aten::cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor
absl::Status CumulativeTrapezoidDx(RefCall& call) { return Trapezoid(call, false, true); }

// A logspace bound: a Scalar or a 0-d tensor.
absl::StatusOr<double> Bound(const RefCall& call, absl::string_view name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, TensorOrScalar(call, name));
  if (t.rank() != 0) return call.Invalid(absl::StrCat(name, " must be a 0-dimensional tensor"));
  return LoadDouble(t, 0);
}

// aten::logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, ...)
// and the Tensor_Tensor / Tensor_Scalar / Scalar_Tensor overloads.
absl::Status Logspace(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double start, Bound(call, "start"));
  PT2ONNX_ASSIGN_OR_RETURN(double end, Bound(call, "end"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t steps, call.Int("steps"));
  PT2ONNX_ASSIGN_OR_RETURN(double base, call.Double("base"));
  if (steps < 0 || steps > (int64_t{1} << 32)) return call.Invalid("number of steps must be non-negative");
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = DataType::kFloat;
  if (!IsFloatingPoint(dtype)) {
    // Integer results take integer bounds (torch converts them first).
    start = std::trunc(start);
    end = std::trunc(end);
  }
  std::vector<double> v(steps);
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  for (int64_t i = 0; i < steps; ++i) {
    // The second half counts down from end, as torch, so the last point is base^end.
    const double exponent = i < steps / 2 ? start + step * i : end - step * (steps - 1 - i);
    v[i] = std::pow(base, steps == 1 ? start : exponent);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(dtype, {steps}, v));
  return call.SetTensor(std::move(t));
}

// aten::gradient.scalarint(Tensor self, *, Scalar? spacing=None, int? dim=None, int edge_order=1) -> Tensor[]
// One tensor per dim (every dim when None): interior (x[i+1] - x[i-1]) / h / 2,
// ends by first- or second-order one-sided differences, each rounded to the
// tensor's precision step by step as ATen's tensor ops do.
template <typename T>
void GradientAlong(const std::vector<double>& x, std::vector<double>& out, int64_t outer, int64_t n, int64_t inner,
                   T h, int64_t edge_order) {
  auto at = [&](int64_t o, int64_t k, int64_t i) { return static_cast<T>(x[(o * n + k) * inner + i]); };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 1; k + 1 < n; ++k) {
        out[(o * n + k) * inner + i] = static_cast<T>(static_cast<T>(at(o, k + 1, i) - at(o, k - 1, i)) / h) / T(2);
      }
      T first, last;
      if (edge_order == 1) {
        first = static_cast<T>(at(o, 1, i) - at(o, 0, i)) / h;
        last = static_cast<T>(at(o, n - 1, i) - at(o, n - 2, i)) / h;
      } else {
        first = static_cast<T>(static_cast<T>(T(-1.5) * at(o, 0, i) + T(2) * at(o, 1, i)) - T(0.5) * at(o, 2, i)) / h;
        last = static_cast<T>(static_cast<T>(T(0.5) * at(o, n - 3, i) - T(2) * at(o, n - 2, i)) + T(1.5) * at(o, n - 1, i)) / h;
      }
      out[(o * n) * inner + i] = first;
      out[(o * n + n - 1) * inner + i] = last;
    }
  }
}

absl::Status GradientScalarint(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, call.OptionalInt("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t edge_order, call.Int("edge_order"));
  double h = 1;
  if (call.Has("spacing")) {
    PT2ONNX_ASSIGN_OR_RETURN(RefScalar v, call.Scalar("spacing"));
    h = v.AsDouble();
  }
  if (!IsFloatLike(self.dtype())) return call.Unsupported("torch.gradient of a non-floating tensor");
  if (edge_order != 1 && edge_order != 2) return call.Invalid("torch.gradient only supports edge_order=1 and edge_order=2.");
  if (self.rank() == 0) return call.Invalid("torch.gradient needs a tensor of at least one dim");
  std::vector<int64_t> dims;
  if (dim) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t d, WrapDim(*dim, self.rank()));
    dims.push_back(d);
  } else {
    for (int64_t d = 0; d < self.rank(); ++d) dims.push_back(d);
  }
  const std::vector<double> x = ToDoubles(self);
  std::vector<Tensor> results;
  for (int64_t d : dims) {
    const int64_t n = self.dim(d);
    if (n < edge_order + 1) return call.Invalid("torch.gradient expected each dimension size to be at least edge_order+1");
    int64_t outer = 1, inner = 1;
    for (int64_t a = 0; a < self.rank(); ++a) {
      if (a < d) outer *= self.dim(a);
      if (a > d) inner *= self.dim(a);
    }
    std::vector<double> out(x.size());
    if (self.dtype() == DataType::kFloat) {
      GradientAlong<float>(x, out, outer, n, inner, static_cast<float>(h), edge_order);
    } else {
      GradientAlong<double>(x, out, outer, n, inner, h, edge_order);
    }
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(self.dtype(), self.dims(), out));
    results.push_back(std::move(t));
  }
  return call.SetTensors(std::move(results));
}

}  // namespace

void RegisterIntegrationRef(RefRegistry& r) {
  r.Add("aten::gradient.scalarint", GradientScalarint);
  r.Add("aten::trapezoid.x", TrapezoidX);
  r.Add("aten::trapezoid.dx", TrapezoidDx);
  r.Add("aten::trapz.x", TrapezoidX);
  r.Add("aten::trapz.dx", TrapezoidDx);
  r.Add("aten::cumulative_trapezoid.x", CumulativeTrapezoidX);
  r.Add("aten::cumulative_trapezoid.dx", CumulativeTrapezoidDx);
  r.Add("aten::logspace.default", Logspace);
  r.Add("aten::logspace.Tensor_Tensor", Logspace);
  r.Add("aten::logspace.Tensor_Scalar", Logspace);
  r.Add("aten::logspace.Scalar_Tensor", Logspace);
}

}  // namespace pt2onnx::reference
