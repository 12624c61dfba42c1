// Reference kernels: torch.linalg.norm and torch.linalg.matrix_norm as
// torch/_refs/linalg defines them (ord ±1 / ±inf as sums then extrema,
// 'fro' as the 2-norm of the entries, 2 / -2 / 'nuc' from the singular
// values), in double, rounded once to the result dtype; and renorm.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"
#include "reference/shape_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// `self` with the wrapped dims `reduced` moved last (in that order): the
// values of each output entry are then contiguous. `out_dims` is the result
// shape (with keepdim: the reduced dims as 1).
struct Regrouped {
  std::vector<double> values;
  int64_t groups = 0, size = 1;
  Dims out_dims;
};

absl::StatusOr<Regrouped> Regroup(const Tensor& self, const std::vector<int64_t>& reduced, bool keepdim) {
  const int64_t rank = self.rank();
  std::vector<int64_t> perm;
  Regrouped g;
  for (int64_t d = 0; d < rank; ++d) {
    const bool is_reduced = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
    if (!is_reduced) perm.push_back(d);
    if (!is_reduced) g.out_dims.push_back(self.dims()[d]);
    else if (keepdim) g.out_dims.push_back(1);
  }
  for (int64_t d : reduced) {
    perm.push_back(d);
    g.size *= self.dims()[d];
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor moved, Permute(self, perm));
  g.values = ToDoubles(moved);
  g.groups = g.size == 0 ? 0 : static_cast<int64_t>(g.values.size()) / g.size;
  if (g.size == 0) {
    g.groups = 1;
    for (size_t d = 0; d + reduced.size() < perm.size(); ++d) g.groups *= self.dims()[perm[d]];
  }
  return g;
}

absl::StatusOr<std::vector<int64_t>> WrapDims(const RefCall& call, const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t d : dims) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, rank));
    if (std::find(out.begin(), out.end(), w) != out.end()) return call.Invalid("dims must be different");
    out.push_back(w);
  }
  return out;
}

double VectorNormOf(const double* x, int64_t n, double ord) {
  double acc = std::isinf(ord) && ord < 0 ? INFINITY : 0;
  for (int64_t j = 0; j < n; ++j) {
    const double a = std::fabs(x[j]);
    if (std::isinf(ord)) acc = ord > 0 ? std::max(acc, a) : std::min(acc, a);
    else if (ord == 0) acc += a != 0;
    else acc += std::pow(a, ord);
  }
  return (std::isinf(ord) || ord == 0) ? acc : std::pow(acc, 1.0 / ord);
}

// Singular values of the row-major [m, n] matrix `a`: square roots of the
// eigenvalues of the smaller Gram matrix, by cyclic Jacobi rotations.
std::vector<double> SingularValues(const double* a, int64_t m, int64_t n) {
  const bool rows = m <= n;  // Gram of the rows (m x m) or of the columns
  const int64_t k = rows ? m : n, len = rows ? n : m;
  auto at = [&](int64_t i, int64_t t) { return rows ? a[i * n + t] : a[t * n + i]; };
  std::vector<double> g(k * k, 0.0);
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t t = 0; t < len; ++t) g[i * k + j] += at(i, t) * at(j, t);
    }
  }
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int64_t p = 0; p < k; ++p) for (int64_t q = p + 1; q < k; ++q) off += g[p * k + q] * g[p * k + q];
    if (off == 0) break;
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t q = p + 1; q < k; ++q) {
        if (g[p * k + q] == 0) continue;
        const double theta = (g[q * k + q] - g[p * k + p]) / (2 * g[p * k + q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t r = 0; r < k; ++r) {
          const double gp = g[r * k + p], gq = g[r * k + q];
          g[r * k + p] = c * gp - s * gq;
          g[r * k + q] = s * gp + c * gq;
        }
        for (int64_t r = 0; r < k; ++r) {
          const double gp = g[p * k + r], gq = g[q * k + r];
          g[p * k + r] = c * gp - s * gq;
          g[q * k + r] = s * gp + c * gq;
        }
      }
    }
  }
  std::vector<double> sv(k);
  for (int64_t i = 0; i < k; ++i) sv[i] = std::sqrt(std::max(0.0, g[i * k + i]));
  return sv;
}

// ord: "fro", "nuc", or a number among ±1, ±2, ±inf.
absl::Status MatrixNorm(RefCall& call, const Tensor& input, const std::string& ord_str, double ord,
                        std::vector<int64_t> dim, bool keepdim, std::optional<DataType> dtype) {
  Tensor self = input;
  if (!IsFloatingPoint(self.dtype())) return call.Invalid("linalg.matrix_norm: Expected a floating point tensor as input");
  if (self.rank() < 2) return call.Invalid("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  if (dim.size() != 2) return call.Invalid("linalg.matrix_norm: dim must be a 2-tuple");
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, WrapDims(call, dim, self.rank()));
  if (dtype) {
    PT2ONNX_ASSIGN_OR_RETURN(self, CastTensor(self, *dtype));
  }
  const bool numeric = ord_str.empty();
  if (numeric && !(std::fabs(ord) == 1 || std::fabs(ord) == 2 || std::isinf(ord))) {
    return call.Invalid(absl::StrCat("linalg.matrix_norm: Order ", ord, " not supported."));
  }
  if (!numeric && ord_str != "fro" && ord_str != "nuc") {
    return call.Invalid(absl::StrCat("linalg.matrix_norm: Order ", ord_str, " not supported."));
  }
  const int64_t m = self.dims()[dims[0]], n = self.dims()[dims[1]];
  PT2ONNX_ASSIGN_OR_RETURN(Regrouped g, Regroup(self, dims, keepdim));
  std::vector<double> out(g.groups);
  for (int64_t b = 0; b < g.groups; ++b) {
    const double* a = g.values.data() + b * g.size;
    if (ord_str == "fro") {
      out[b] = VectorNormOf(a, g.size, 2);
    } else if (ord_str == "nuc" || std::fabs(ord) == 2) {
      const std::vector<double> sv = SingularValues(a, m, n);
      if (sv.empty()) return call.Invalid("linalg.matrix_norm: the singular values of an empty matrix are undefined");
      if (ord_str == "nuc") {
        out[b] = 0;
        for (double s : sv) out[b] += s;
      } else {
        out[b] = ord > 0 ? *std::max_element(sv.begin(), sv.end()) : *std::min_element(sv.begin(), sv.end());
      }
    } else {
      // ±1: column sums (over rows) then extremum; ±inf: row sums then extremum.
      const bool columns = std::fabs(ord) == 1;
      const int64_t outer = columns ? n : m, inner = columns ? m : n;
      if (outer == 0) return call.Invalid("linalg.matrix_norm: Expected a non-empty matrix");
      double acc = ord > 0 ? -INFINITY : INFINITY;
      for (int64_t o = 0; o < outer; ++o) {
        double sum = 0;
        for (int64_t i = 0; i < inner; ++i) sum += std::fabs(columns ? a[i * n + o] : a[o * n + i]);
        acc = ord > 0 ? std::max(acc, sum) : std::min(acc, sum);
      }
      out[b] = acc;
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(self.dtype(), g.out_dims, out));
  return call.SetTensor(std::move(t));
}

absl::StatusOr<std::optional<DataType>> OptionalDtype(const RefCall& call) {
  if (!call.Has("dtype")) return std::optional<DataType>();
  return call.Dtype("dtype");
}

// aten::linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status LinalgMatrixNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(double ord, call.Double("ord"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dim, call.Ints("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, OptionalDtype(call));
  return MatrixNorm(call, self, "", ord, dim, keepdim, dtype);
}

// aten::linalg_matrix_norm.str_ord(Tensor self, str ord="fro", int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status LinalgMatrixNormStr(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string ord, call.String("ord"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dim, call.Ints("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, OptionalDtype(call));
  return MatrixNorm(call, self, ord, 0, dim, keepdim, dtype);
}

// aten::linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
// A matrix norm when ord is given and the reduction covers two dims (dim of
// two entries, or none on a 2-D input); otherwise the vector norm (ord 2 by
// default) over dim, or over every element.
absl::Status LinalgNorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::optional<double> ord;
  if (call.Has("ord")) {
    PT2ONNX_ASSIGN_OR_RETURN(ord, call.Double("ord"));
  }
  std::optional<std::vector<int64_t>> dim;
  if (call.Has("dim")) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, call.Ints("dim"));
    if (dim->size() != 1 && dim->size() != 2) return call.Invalid("linalg.norm: If dim is specified, it must be of length 1 or 2.");
  } else if (ord && self.rank() != 1 && self.rank() != 2) {
    return call.Invalid("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D.");
  }
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, OptionalDtype(call));
  if (ord && ((dim && dim->size() == 2) || (!dim && self.rank() == 2))) {
    return MatrixNorm(call, self, "", *ord, dim.value_or(std::vector<int64_t>{0, 1}), keepdim, dtype);
  }
  if (!IsFloatingPoint(self.dtype())) return call.Invalid("linalg.vector_norm: Expected a floating point tensor as input");
  if (dtype) {
    PT2ONNX_ASSIGN_OR_RETURN(self, CastTensor(self, *dtype));
  }
  std::vector<int64_t> reduced;
  if (dim) {
    PT2ONNX_ASSIGN_OR_RETURN(reduced, WrapDims(call, *dim, self.rank()));
  } else {
    for (int64_t d = 0; d < self.rank(); ++d) reduced.push_back(d);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Regrouped g, Regroup(self, reduced, keepdim));
  const double p = ord.value_or(2.0);
  std::vector<double> out(g.groups);
  for (int64_t b = 0; b < g.groups; ++b) {
    if (g.size == 0 && p < 0) return call.Invalid("linalg.vector_norm cannot compute a negative norm of an empty tensor");
    out[b] = VectorNormOf(g.values.data() + b * g.size, g.size, p);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(self.dtype(), g.out_dims, out));
  return call.SetTensor(std::move(t));
}

// aten::renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor
// Each slice along dim whose p-norm exceeds maxnorm is scaled by
// maxnorm / (norm + 1e-7) (torch's renorm_out).
absl::Status Renorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar p_arg, call.Scalar("p"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar maxnorm_arg, call.Scalar("maxnorm"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  const double p = p_arg.AsDouble(), maxnorm = maxnorm_arg.AsDouble();
  if (!(p > 0)) return call.Invalid("renorm: non-positive-norm not supported");
  if (!(maxnorm >= 0)) return call.Invalid("renorm: expected maxnorm to be >= 0");
  if (self.rank() < 2) return call.Invalid("renorm: input needs at least 2 dimensions");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  const int64_t n = self.dims()[dim];
  int64_t inner = 1;
  for (int64_t k = dim + 1; k < self.rank(); ++k) inner *= self.dims()[k];
  const std::vector<double> x = ToDoubles(self);
  std::vector<double> acc(n, 0.0);
  for (int64_t i = 0; i < self.numel(); ++i) {
    const double m = std::fabs(x[i]);
    double& a = acc[(i / inner) % n];
    a = std::isinf(p) ? std::max(a, m) : a + std::pow(m, p);
  }
  std::vector<double> factor(n, 1.0);
  for (int64_t k = 0; k < n; ++k) {
    const double norm = std::isinf(p) ? acc[k] : std::pow(acc[k], 1 / p);
    if (norm > maxnorm) factor[k] = maxnorm / (norm + 1e-7);
  }
  std::vector<double> out(x.size());
  for (int64_t i = 0; i < self.numel(); ++i) out[i] = x[i] * factor[(i / inner) % n];
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(call.OutputDtype(), self.dims(), out));
  return call.SetTensor(std::move(result));
}

// aten::embedding_renorm(Tensor self, Tensor indices, float max_norm, float norm_type) -> Tensor
// Each row an index names (negative ones from the end) whose norm exceeds
// max_norm is scaled by max_norm / (norm + 1e-7)
// (aten/src/ATen/native/Embedding.cpp, embedding_renorm_).
absl::Status EmbeddingRenorm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, call.Input("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(double max_norm, call.Double("max_norm"));
  PT2ONNX_ASSIGN_OR_RETURN(double norm_type, call.Double("norm_type"));
  if (self.rank() != 2) return call.Invalid("the weight must be 2-D (rows, dim)");
  const int64_t rows = self.dims()[0], width = self.dims()[1];
  std::vector<double> x = ToDoubles(self);
  std::vector<bool> named(static_cast<size_t>(rows), false);
  for (int64_t index : ToInts(indices)) {
    const int64_t row = index < 0 ? index + rows : index;
    if (row < 0 || row >= rows) return call.Invalid(absl::StrCat("index ", index, " is out of range for ", rows, " rows"));
    named[static_cast<size_t>(row)] = true;
  }
  for (int64_t r = 0; r < rows; ++r) {
    if (!named[static_cast<size_t>(r)]) continue;
    double* row = x.data() + r * width;
    const double norm = VectorNormOf(row, width, norm_type);
    if (!(norm > max_norm)) continue;
    const double scale = max_norm / (norm + 1e-7);
    for (int64_t j = 0; j < width; ++j) row[j] *= scale;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(self.dtype(), self.dims(), x));
  return call.SetTensor(std::move(result));
}

}  // namespace

void RegisterNormsRef(RefRegistry& r) {
  r.Add("aten::embedding_renorm.default", EmbeddingRenorm);
  r.Add("aten::renorm.default", Renorm);
  r.Add("aten::linalg_matrix_norm.default", LinalgMatrixNorm);
  r.Add("aten::linalg_matrix_norm.str_ord", LinalgMatrixNormStr);
  r.Add("aten::linalg_norm.default", LinalgNorm);
}

}  // namespace pt2onnx::reference
