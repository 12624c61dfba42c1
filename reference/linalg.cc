// Reference kernels: cross products (cross, linalg_cross), determinants
// (det, linalg_det, _linalg_det with LAPACK's getrf LU and pivots) and
// p-norm distances (cdist, pdist, _pdist_forward), in
// double, rounded once to the result dtype.
#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// aten::linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor
// aten::cross(Tensor self, Tensor other, int? dim=None) -> Tensor (None: the
// first dim of size 3)
absl::Status Cross(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "other"}));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(self.dims(), other.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim_arg, call.OptionalInt("dim"));
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t dim = -1;
  if (dim_arg.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, WrapDim(*dim_arg, rank));
  } else {
    for (int64_t d = 0; d < rank && dim < 0; ++d) {
      if (dims[d] == 3) dim = d;
    }
    if (dim < 0) return call.Invalid("no dimension of size 3 in input");
  }
  if (rank == 0 || dims[dim] != 3) return call.Invalid(absl::StrCat("inputs dimension ", dim, " must have length 3"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, BroadcastTo(self, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(other, dims));
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < rank; ++d) inner *= dims[d];
  const std::vector<double> va = ToDoubles(a), vb = ToDoubles(b);
  std::vector<double> out(va.size());
  const int64_t outer = inner == 0 ? 0 : static_cast<int64_t>(va.size()) / (3 * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return (o * 3 + k) * inner + i; };
      out[at(0)] = va[at(1)] * vb[at(2)] - va[at(2)] * vb[at(1)];
      out[at(1)] = va[at(2)] * vb[at(0)] - va[at(0)] * vb[at(2)];
      out[at(2)] = va[at(0)] * vb[at(1)] - va[at(1)] * vb[at(0)];
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(dtype, dims, out));
  return call.SetTensor(std::move(result));
}

// LU of each [n, n] matrix as LAPACK's getrf: partial pivoting on the first
// largest |value| of the column, L unit-lower and U packed in place, 1-based
// pivots; a zero pivot column is left as is (a singular matrix, det 0).
struct LuResult {
  std::vector<double> lu, det;
  std::vector<int64_t> pivots;
};

LuResult BatchedLu(const std::vector<double>& a, int64_t batch, int64_t n) {
  LuResult r;
  r.lu = a;
  r.det.assign(batch, 1.0);
  r.pivots.assign(batch * n, 0);
  for (int64_t b = 0; b < batch; ++b) {
    double* m = r.lu.data() + b * n * n;
    double det = 1;
    for (int64_t k = 0; k < n; ++k) {
      int64_t p = k;
      for (int64_t i = k + 1; i < n; ++i) {
        if (std::fabs(m[i * n + k]) > std::fabs(m[p * n + k])) p = i;
      }
      r.pivots[b * n + k] = p + 1;
      if (p != k) {
        for (int64_t j = 0; j < n; ++j) std::swap(m[k * n + j], m[p * n + j]);
        det = -det;
      }
      const double pivot = m[k * n + k];
      det *= pivot;
      if (pivot == 0) continue;
      for (int64_t i = k + 1; i < n; ++i) {
        const double f = m[i * n + k] / pivot;
        m[i * n + k] = f;
        for (int64_t j = k + 1; j < n; ++j) m[i * n + j] -= f * m[k * n + j];
      }
    }
    r.det[b] = det;
  }
  return r;
}

absl::Status Determinant(RefCall& call, const char* name, bool with_lu) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, call.Input(name));
  if (a.rank() < 2 || a.dims()[a.rank() - 1] != a.dims()[a.rank() - 2]) {
    return call.Invalid("linalg.det: A must be batches of square matrices");
  }
  if (!IsFloatLike(a.dtype())) return call.Invalid("linalg.det: Expected a floating point tensor as input");
  const int64_t n = a.dims().back();
  const int64_t batch = n == 0 ? a.numel() : a.numel() / (n * n);
  Dims batch_dims(a.dims().begin(), a.dims().end() - 2);
  int64_t batch_count = 1;
  for (int64_t d : batch_dims) batch_count *= d;
  LuResult lu = BatchedLu(ToDoubles(a), n == 0 ? batch_count : batch, n);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor det, FromDoubles(a.dtype(), batch_dims, lu.det));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(det)));
  if (!with_lu) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor packed, FromDoubles(a.dtype(), a.dims(), lu.lu));
  Dims pivot_dims = batch_dims;
  pivot_dims.push_back(n);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor pivots, FromInts(DataType::kInt32, pivot_dims, lu.pivots));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(packed)));
  return call.SetTensor(std::move(pivots));
}
// aten::linalg_det(Tensor A) -> Tensor
absl::Status LinalgDet(RefCall& call) { return Determinant(call, "A", false); }
// aten::det(Tensor self) -> Tensor
absl::Status Det(RefCall& call) { return Determinant(call, "self", false); }
// aten::_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)
absl::Status LinalgDetInternal(RefCall& call) { return Determinant(call, "A", true); }

// The p-norm of a difference vector: p = 0 counts nonzeros, inf is the max.
double PNorm(const double* a, const double* b, int64_t m, double p) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::fabs(a[k] - b[k]);
    if (p == 0) acc += d != 0;
    else if (std::isinf(p)) acc = std::max(acc, d);
    else if (p == 1) acc += d;
    else acc += std::pow(d, p);
  }
  if (p == 0 || p == 1 || std::isinf(p)) return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1 / p);
}

// aten::cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor
// aten::_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor
// [..., P, M] x [..., R, M] -> [..., P, R], batch dims broadcast; computed
// directly (torch's matrix-product form for p = 2 differs by its rounding).
absl::Status Cdist(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x1, call.Input("x1"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x2, call.Input("x2"));
  PT2ONNX_ASSIGN_OR_RETURN(double p, call.Double("p"));
  if (p < 0) return call.Invalid("cdist only supports non-negative p values");
  if (x1.rank() < 2 || x2.rank() < 2 || x1.dims().back() != x2.dims().back()) {
    return call.Invalid("cdist: X1 and X2 must have at least 2 dims and the same number of columns");
  }
  if (x1.dtype() != x2.dtype() || !IsFloatLike(x1.dtype())) return call.Invalid("cdist only supports floating-point dtypes");
  const int64_t m = x1.dims().back(), np = x1.dims()[x1.rank() - 2], nr = x2.dims()[x2.rank() - 2];
  Dims b1(x1.dims().begin(), x1.dims().end() - 2), b2(x2.dims().begin(), x2.dims().end() - 2);
  PT2ONNX_ASSIGN_OR_RETURN(Dims batch, BroadcastDims(b1, b2));
  const std::vector<int64_t> i1 = BroadcastIndices(b1, batch), i2 = BroadcastIndices(b2, batch);
  const std::vector<double> v1 = ToDoubles(x1), v2 = ToDoubles(x2);
  std::vector<double> out;
  out.reserve(i1.size() * np * nr);
  for (size_t b = 0; b < i1.size(); ++b) {
    for (int64_t i = 0; i < np; ++i) {
      for (int64_t j = 0; j < nr; ++j) {
        const double* a = v1.data() + (i1[b] * np + i) * m;
        const double* c = v2.data() + (i2[b] * nr + j) * m;
        out.push_back(PNorm(a, c, m, p));
      }
    }
  }
  Dims dims = batch;
  dims.push_back(np);
  dims.push_back(nr);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(x1.dtype(), dims, out));
  return call.SetTensor(std::move(result));
}

// aten::pdist(Tensor self, float p=2) -> Tensor (_pdist_forward alike):
// distances of rows i < j, row-major.
absl::Status PdistImpl(RefCall& call, const char* name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input(name));
  PT2ONNX_ASSIGN_OR_RETURN(double p, call.Double("p"));
  if (x.rank() != 2) return call.Invalid("pdist only supports 2D tensors, got: " + std::to_string(x.rank()) + "D");
  if (p < 0) return call.Invalid("pdist only supports non-negative p values");
  if (!IsFloatLike(x.dtype())) return call.Invalid("pdist only supports floating-point dtypes");
  const int64_t n = x.dims()[0], m = x.dims()[1];
  const std::vector<double> v = ToDoubles(x);
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) out.push_back(PNorm(v.data() + i * m, v.data() + j * m, m, p));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(x.dtype(), {static_cast<int64_t>(out.size())}, out));
  return call.SetTensor(std::move(result));
}
absl::Status Pdist(RefCall& call) { return PdistImpl(call, "self"); }
absl::Status PdistForward(RefCall& call) { return PdistImpl(call, "self"); }

}  // namespace

void RegisterLinalgRef(RefRegistry& r) {
  r.Add("aten::cross.default", Cross);
  r.Add("aten::linalg_cross.default", Cross);
  r.Add("aten::det.default", Det);
  r.Add("aten::linalg_det.default", LinalgDet);
  r.Add("aten::_linalg_det.default", LinalgDetInternal);
  r.Add("aten::cdist.default", Cdist);
  r.Add("aten::_cdist_forward.default", Cdist);
  r.Add("aten::pdist.default", Pdist);
  r.Add("aten::_pdist_forward.default", PdistForward);
}

}  // namespace pt2onnx::reference
