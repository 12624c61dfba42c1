// File: reference/grouped_matmul.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/grouped_matmul.cc: ATen's _grouped_mm and
// transformers' grouped_mm_fallback, as plain loops in double.
#include <algorithm>
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

// input (S, K) rows grouped by offs (G,) times weight (G, K, N): for each
// group g with end = offs[g], rows [start, end) (Python slicing: clamped to
// [0, S], empty when start >= end) = input rows @ weight[g]; start = end;
// other rows zero (transformers 5.x, src/transformers/integrations/moe.py,
// _grouped_mm_fallback, writes zeros; ATen leaves them unwritten).
absl::StatusOr<Tensor> GroupedRows(const RefCall& call, const Tensor& input, const Tensor& weight,
                                   const Tensor& offs, DataType out_dtype) {
  if (input.rank() != 2 || weight.rank() != 3 || offs.rank() != 1) {
    return call.Invalid("expects input (S, K), weight (groups, K, N) and offs (groups,)");
  }
  const int64_t s = input.dim(0), k = input.dim(1), e = weight.dim(0), n = weight.dim(2);
  if (weight.dim(1) != k || offs.dim(0) != e) {
    return call.Invalid(absl::StrCat("input ", DimsString(input.dims()), ", weight ", DimsString(weight.dims()),
                                     " and offs ", DimsString(offs.dims()), " do not match"));
  }
  std::vector<double> x = ToDoubles(input), w = ToDoubles(weight), out(static_cast<size_t>(s * n), 0.0);
  std::vector<int64_t> ends = ToInts(offs);
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + s : v, 0, s); };
  int64_t start = 0;
  for (int64_t i = 0; i < e; ++i) {
    const int64_t end = ends[static_cast<size_t>(i)];
    for (int64_t r = clamp(start); r < clamp(end); ++r) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += x[r * k + p] * w[(i * k + p) * n + j];
        out[r * n + j] = acc;
      }
    }
    start = end;
  }
  return FromDoubles(out_dtype, Dims{s, n}, out);
}

// a (B, M, K) @ b (B, K, N), each batch on its own.
absl::StatusOr<Tensor> Batched(const RefCall& call, const Tensor& a, const Tensor& b, DataType out_dtype) {
  const int64_t batch = a.dim(0), m = a.dim(1), k = a.dim(2), n = b.dim(2);
  if (b.dim(0) != batch || b.dim(1) != k) {
    return call.Invalid(absl::StrCat("self ", DimsString(a.dims()), " and mat2 ", DimsString(b.dims()), " do not match"));
  }
  const std::vector<double> x = ToDoubles(a), w = ToDoubles(b);
  std::vector<double> out(static_cast<size_t>(batch * m * n), 0.0);
  for (int64_t t = 0; t < batch; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += x[(t * m + i) * k + p] * w[(t * k + p) * n + j];
        out[(t * m + i) * n + j] = acc;
      }
    }
  }
  return FromDoubles(out_dtype, Dims{batch, m, n}, out);
}

// a (M, K) and b (K, N), K split by offs (G,): (G, M, N).
absl::StatusOr<Tensor> GroupedContraction(const RefCall& call, const Tensor& a, const Tensor& b, const Tensor& offs,
                                          DataType out_dtype) {
  const int64_t m = a.dim(0), k = a.dim(1), n = b.dim(1), groups = offs.numel();
  if (b.dim(0) != k) {
    return call.Invalid(absl::StrCat("self ", DimsString(a.dims()), " and mat2 ", DimsString(b.dims()), " do not match"));
  }
  // The result holds groups copies of an (M, N) product: bounded before it is allocated.
  constexpr int64_t kMaxElements = int64_t{1} << 31;
  if (m > 0 && n > 0 && groups > kMaxElements / m / n) {
    return call.Invalid(absl::StrCat(groups, " groups of a ", m, "x", n, " product exceed 2^31 elements"));
  }
  const std::vector<double> x = ToDoubles(a), w = ToDoubles(b);
  const std::vector<int64_t> ends = ToInts(offs);
  std::vector<double> out(static_cast<size_t>(groups * m * n), 0.0);
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + k : v, 0, k); };
  int64_t start = 0;
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t end = ends[static_cast<size_t>(g)];
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = clamp(start); p < clamp(end); ++p) acc += x[i * k + p] * w[p * n + j];
        out[(g * m + i) * n + j] = acc;
      }
    }
    start = end;
  }
  return FromDoubles(out_dtype, Dims{groups, m, n}, out);
}

// aten::_grouped_mm(Tensor self, Tensor mat2, Tensor? offs=None, Tensor? bias=None, ScalarType? out_dtype=None)
//     -> Tensor
absl::Status GroupedMm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, call.Input("mat2"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> offs, call.OptionalInput("offs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias, call.OptionalInput("bias"));
  if (bias.has_value()) return call.Unsupported("_grouped_mm with a bias");
  DataType out_dtype = call.OutputDtype();
  if (out_dtype == DataType::kUndefined) out_dtype = a.dtype();
  Tensor result;
  if (a.rank() == 2 && b.rank() == 3 && offs.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(result, GroupedRows(call, a, b, *offs, out_dtype));
  } else if (a.rank() == 3 && b.rank() == 3 && !offs.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(result, Batched(call, a, b, out_dtype));
  } else if (a.rank() == 2 && b.rank() == 2 && offs.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(result, GroupedContraction(call, a, b, *offs, out_dtype));
  } else {
    return call.Unsupported(absl::StrCat("_grouped_mm of a ", a.rank(), "-D and a ", b.rank(), "-D operand"));
  }
  return call.SetTensor(std::move(result));
}

// transformers::grouped_mm_fallback(Tensor input, Tensor weight, Tensor offs) -> Tensor
absl::Status GroupedMmFallback(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor offs, call.Input("offs"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, GroupedRows(call, input, weight, offs, input.dtype()));
  return call.SetTensor(std::move(result));
}

}  // namespace

void RegisterGroupedMatmulRef(RefRegistry& r) {
  r.Add("aten::_grouped_mm.default", GroupedMm);
  r.Add("transformers::grouped_mm_fallback.default", GroupedMmFallback);
}

}  // namespace pt2onnx::reference
