// Reference kernels for the linear solvers: LU (LAPACK getrf's partial
// pivoting: first largest |value| of the column, 1-based pivots, a zero pivot
// recorded in info and its column left as is), the solves and inverses built
// on it, slogdet/logdet, triangular solves, matrix_power and multi_dot. Plain
// double math a matrix at a time, rounded once to the result dtype. Where
// torch raises (singular inputs to the non-_ex ops) these kernels raise too.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/linalg_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

absl::Status Singular(const RefCall& call, absl::string_view op) {
  return call.Invalid(absl::StrCat(op, ": The solver failed because the input matrix is singular."));
}

// A X = B by LU with B's columns carried along; infos per batch entry.
absl::StatusOr<std::vector<int64_t>> SolveInPlace(Mats& a, Mats& b) {
  std::vector<int64_t> infos;
  const int64_t n = a.rows;
  for (int64_t i = 0; i < a.count(); ++i) {
    Lu lu = Factor(a.at(i), n, n);
    infos.push_back(lu.info);
    LuSolveOne(a.at(i), lu.pivots.data(), b.at(i), n, b.cols, false);
  }
  return infos;
}

absl::StatusOr<Mats> SquareInput(const RefCall& call, absl::string_view name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input(name));
  PT2ONNX_ASSIGN_OR_RETURN(Mats m, ReadMats(call, t, name));
  if (m.rows != m.cols) return call.Invalid(absl::StrCat(name, " must be batches of square matrices"));
  return m;
}

Mats Identities(const Dims& batch, int64_t n) {
  Mats e;
  e.batch = batch;
  e.rows = e.cols = n;
  e.v.assign(e.count() * n * n, 0.0);
  for (int64_t b = 0; b < e.count(); ++b) {
    for (int64_t i = 0; i < n; ++i) e.v[(b * n + i) * n + i] = 1;
  }
  return e;
}

// aten::linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)
// aten::linalg_inv(Tensor A) -> Tensor (raises for a singular matrix)
absl::Status LinalgInvEx(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, SquareInput(call, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("A"));
  Mats x = Identities(a.batch, a.rows);
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> infos, SolveInPlace(a, x));
  if (call.key() == "aten::linalg_inv.default") {
    for (int64_t info : infos) {
      if (info > 0) return Singular(call, "linalg.inv");
    }
    return SetMats(call, t.dtype(), x);
  }
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, t.dtype(), x));
  return SetInts(call, DataType::kInt32, a.batch, infos);
}

// aten::linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor
// aten::linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False)
//     -> (Tensor result, Tensor info)
absl::Status LinalgSolve(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor ta, call.Input("A"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tb, call.Input("B"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, SquareInput(call, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(bool left, call.Bool("left"));
  // BatchLinearAlgebra.cpp's vector rule: B 1-D, or A's shape minus its last dim.
  Dims a_less(ta.dims().begin(), ta.dims().end() - 1);
  const bool vector = tb.rank() == 1 || (tb.rank() == ta.rank() - 1 && tb.dims() == a_less);
  Mats b;
  if (vector) {
    b.batch.assign(tb.dims().begin(), tb.dims().end() - 1);
    b.rows = tb.dims().back();
    b.cols = 1;
    b.v = ToDoubles(tb);
    if (!left) return call.Unsupported("linalg_solve with left=False and a vector B");
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(b, ReadMats(call, tb, "B"));
  }
  if (!left) {
    a = Transposed(a);
    b = Transposed(b);
  }
  if (b.rows != a.rows) return call.Invalid("linalg.solve: Incompatible shapes of A and B");
  PT2ONNX_ASSIGN_OR_RETURN(auto both, Broadcast2(a, b));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> infos, SolveInPlace(both.first, both.second));
  const bool ex = call.key() == "aten::linalg_solve_ex.default";
  for (int64_t info : infos) {
    if (info > 0 && !ex) return Singular(call, "torch.linalg.solve");
  }
  Mats x = left ? both.second : Transposed(both.second);
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"A", "B"}));
  Dims dims = x.dims();
  if (vector) dims.pop_back();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(dtype, dims, x.v));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(out)));
  if (ex) return SetInts(call, DataType::kInt32, both.first.batch, infos);
  return absl::OkStatus();
}

// aten::linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)
// aten::logdet(Tensor self) -> Tensor: NaN for a negative determinant
// (LinearAlgebra.cpp derives it from slogdet).
absl::Status Slogdet(RefCall& call, absl::string_view name, bool log_only) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input(name));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, SquareInput(call, name));
  std::vector<double> signs, logs;
  for (int64_t b = 0; b < a.count(); ++b) {
    Lu lu = Factor(a.at(b), a.rows, a.rows);
    signs.push_back(lu.sign);
    logs.push_back(lu.log_abs);
    if (log_only && lu.sign < 0) logs.back() = std::numeric_limits<double>::quiet_NaN();
  }
  if (!log_only) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor s, FromDoubles(t.dtype(), a.batch, signs));
    PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(s)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor l, FromDoubles(t.dtype(), a.batch, logs));
  return call.SetTensor(std::move(l));
}
absl::Status LinalgSlogdet(RefCall& call) { return Slogdet(call, "A", false); }
absl::Status Logdet(RefCall& call) { return Slogdet(call, "self", true); }

// op(T) X = B (left) or X op(T) = B for the triangle of T; batches broadcast.
absl::StatusOr<Mats> TriangularSolveMats(const Mats& t_in, const Mats& b_in, bool upper,
                                         bool left, bool unit) {
  Mats t = left ? t_in : Transposed(t_in);
  Mats b = left ? b_in : Transposed(b_in);
  if (!left) upper = !upper;
  PT2ONNX_ASSIGN_OR_RETURN(auto both, Broadcast2(t, b));
  const int64_t n = t.rows;
  for (int64_t i = 0; i < both.first.count(); ++i) {
    const double* tm = both.first.at(i);
    TriSolve([&](int64_t r, int64_t c) { return tm[r * n + c]; }, both.second.at(i), n,
             both.second.cols, !upper, unit);
  }
  return left ? both.second : Transposed(both.second);
}

// aten::linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True,
//                               bool unitriangular=False) -> Tensor
absl::Status LinalgSolveTriangular(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Mats t, SquareInput(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tb, call.Input("B"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats b, ReadMats(call, tb, "B"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, call.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(bool left, call.Bool("left"));
  PT2ONNX_ASSIGN_OR_RETURN(bool unit, call.Bool("unitriangular"));
  if ((left ? b.rows : b.cols) != t.rows) return call.Invalid("linalg.solve_triangular: Incompatible shapes");
  PT2ONNX_ASSIGN_OR_RETURN(Mats x, TriangularSolveMats(t, b, upper, left, unit));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "B"}));
  return SetMats(call, dtype, x);
}

// aten::triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False,
//                        bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)
absl::Status TriangularSolve(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, SquareInput(call, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tb, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats b, ReadMats(call, tb, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, call.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(bool transpose, call.Bool("transpose"));
  PT2ONNX_ASSIGN_OR_RETURN(bool unit, call.Bool("unitriangular"));
  if (b.rows != a.rows) return call.Invalid("triangular_solve: Incompatible shapes");
  PT2ONNX_ASSIGN_OR_RETURN(auto both, Broadcast2(a, b));
  Mats t = transpose ? Transposed(both.first) : both.first;
  PT2ONNX_ASSIGN_OR_RETURN(Mats x, TriangularSolveMats(t, both.second, transpose ? !upper : upper,
                                                       true, unit));
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, tb.dtype(), x));
  return SetMats(call, tb.dtype(), both.first);
}

Mats MatMul(const Mats& a, const Mats& b) {
  Mats c;
  c.batch = a.batch;
  c.rows = a.rows;
  c.cols = b.cols;
  c.v.assign(a.count() * c.rows * c.cols, 0.0);
  for (int64_t i = 0; i < a.count(); ++i) {
    for (int64_t r = 0; r < a.rows; ++r) {
      for (int64_t col = 0; col < b.cols; ++col) {
        double acc = 0;
        for (int64_t k = 0; k < a.cols; ++k) {
          acc += a.v[(i * a.rows + r) * a.cols + k] * b.v[(i * b.rows + k) * b.cols + col];
        }
        c.v[(i * c.rows + r) * c.cols + col] = acc;
      }
    }
  }
  return c;
}

// aten::linalg_matrix_power(Tensor self, int n) -> Tensor
// n < 0 inverts first (raising for a singular matrix, as torch's inv does).
absl::Status LinalgMatrixPower(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t power, call.Int("n"));
  if (t.rank() < 2 || t.dims()[t.rank() - 1] != t.dims()[t.rank() - 2]) {
    return call.Invalid("linalg.matrix_power: A must be batches of square matrices");
  }
  Mats a;
  a.batch.assign(t.dims().begin(), t.dims().end() - 2);
  a.rows = a.cols = t.dims().back();
  a.v = ToDoubles(t);
  if (power < 0) {
    if (!IsFloatLike(t.dtype())) return call.Invalid("linalg.matrix_power: negative powers need a float input");
    Mats x = Identities(a.batch, a.rows);
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> infos, SolveInPlace(a, x));
    for (int64_t info : infos) {
      if (info > 0) return Singular(call, "linalg.inv");
    }
    a = x;
    power = -power;
  }
  Mats result = Identities(a.batch, a.rows);
  for (int64_t i = 0; i < power; ++i) result = MatMul(result, a);
  return SetMats(call, t.dtype(), result);
}

// aten::linalg_multi_dot(Tensor[] tensors) -> Tensor
// A 1-D first (last) operand is a row (column) vector, dropped again after.
absl::Status LinalgMultiDot(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> ts, call.Inputs("tensors"));
  if (ts.size() < 2) return call.Invalid("multi_dot(): expected at least 2 tensors but got 1");
  const bool first_vec = ts.front().rank() == 1, last_vec = ts.back().rank() == 1;
  Mats acc;
  for (size_t i = 0; i < ts.size(); ++i) {
    Mats m;
    const Tensor& t = ts[i];
    if (t.rank() == 1 && (i == 0 || i + 1 == ts.size())) {
      m.rows = i == 0 ? 1 : t.dims()[0];
      m.cols = i == 0 ? t.dims()[0] : 1;
    } else if (t.rank() == 2) {
      m.rows = t.dims()[0];
      m.cols = t.dims()[1];
    } else {
      return call.Invalid("multi_dot(): tensors must be 2-D (the first and last may be 1-D)");
    }
    m.v = ToDoubles(t);
    if (i == 0) {
      acc = m;
    } else {
      if (acc.cols != m.rows) return call.Invalid("multi_dot(): tensors cannot be multiplied");
      acc = MatMul(acc, m);
    }
  }
  Dims dims;
  if (!first_vec) dims.push_back(acc.rows);
  if (!last_vec) dims.push_back(acc.cols);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(call.OutputDtype(0), dims, acc.v));
  return call.SetTensor(std::move(out));
}

int64_t Product(const Dims& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= d[i];
  return p;
}

// aten::linalg_tensorinv(Tensor self, int ind=2) -> Tensor
absl::Status LinalgTensorinv(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t ind, call.Int("ind"));
  if (ind <= 0 || ind > t.rank()) return call.Invalid("Expected a strictly positive integer for 'ind'");
  if (!IsFloatLike(t.dtype())) return call.Invalid("linalg.tensorinv: expected a floating point input");
  const Dims& d = t.dims();
  const int64_t n = Product(d, 0, ind);
  if (n != Product(d, ind, d.size())) return call.Invalid("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind])");
  Mats a;
  a.rows = a.cols = n;
  a.v = ToDoubles(t);
  Mats x = Identities({}, n);
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> infos, SolveInPlace(a, x));
  if (infos[0] > 0) return call.Invalid("linalg.inv: The diagonal element is zero, the inversion could not be completed because the input matrix is singular.");
  Dims out(d.begin() + ind, d.end());
  out.insert(out.end(), d.begin(), d.begin() + ind);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor r, FromDoubles(t.dtype(), out, x.v));
  return call.SetTensor(std::move(r));
}

// aten::linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor
// dims move to the end of self; then self is (other.numel(), rest) and the
// result has self's trailing shape.
absl::Status LinalgTensorsolve(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  if (!IsFloatLike(t.dtype())) return call.Invalid("linalg.tensorsolve: expected a floating point input");
  Dims d = t.dims();
  const int64_t rank = t.rank();
  std::vector<int64_t> perm;
  std::optional<std::vector<int64_t>> dims;
  if (call.Has("dims")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, call.Arg("dims"));
    if (arg.kind != pt2::Argument::Kind::kNone) {
      PT2ONNX_ASSIGN_OR_RETURN(dims, call.Ints("dims"));
    }
  }
  std::vector<int64_t> moved;
  for (int64_t v : dims.value_or(std::vector<int64_t>{})) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(v, rank));
    moved.push_back(w);
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (std::find(moved.begin(), moved.end(), i) == moved.end()) perm.push_back(i);
  }
  perm.insert(perm.end(), moved.begin(), moved.end());
  Dims pd;
  for (int64_t p : perm) pd.push_back(d[p]);
  const std::vector<double> src = ToDoubles(t);
  const std::vector<int64_t> strides = RowMajorStrides(d);
  std::vector<double> v(src.size());
  const std::vector<int64_t> pstrides = RowMajorStrides(pd);
  for (int64_t flat = 0; flat < static_cast<int64_t>(src.size()); ++flat) {
    int64_t rem = flat, off = 0;
    for (size_t k = 0; k < pd.size(); ++k) {
      const int64_t idx = rem / pstrides[k];
      rem %= pstrides[k];
      off += idx * strides[perm[k]];
    }
    v[flat] = src[off];
  }
  const size_t orank = other.rank();
  if (orank > pd.size()) return call.Invalid("linalg.tensorsolve: other has too many dimensions");
  const int64_t n = other.numel();
  if (Product(pd, orank, pd.size()) != n || Product(pd, 0, orank) != n) {
    return call.Invalid("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim])");
  }
  Mats a, b;
  a.rows = a.cols = n;
  a.v = v;
  b.rows = n;
  b.cols = 1;
  b.v = ToDoubles(other);
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> infos, SolveInPlace(a, b));
  if (infos[0] > 0) return Singular(call, "torch.linalg.solve");
  Dims out(pd.begin() + orank, pd.end());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor r, FromDoubles(t.dtype(), out, b.v));
  return call.SetTensor(std::move(r));
}

// aten::linalg_householder_product(Tensor input, Tensor tau) -> Tensor
// The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T,
// v_i = (0, .., 0, 1, A[i+1:, i]).
absl::Status LinalgHouseholderProduct(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tau_t, call.Input("tau"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "input"));
  const int64_t m = a.rows, n = a.cols;
  const int64_t k = tau_t.rank() == 0 ? 0 : tau_t.dims().back();
  if (m < n || n < k) return call.Invalid("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to input.shape[-1], which must be >= tau.shape[-1]");
  if (tau_t.numel() != a.count() * k) return call.Invalid("torch.linalg.householder_product: batch dimensions of tau must match input");
  const std::vector<double> tau = ToDoubles(tau_t);
  Mats q;
  q.batch = a.batch;
  q.rows = m;
  q.cols = n;
  q.v.assign(a.count() * m * n, 0.0);
  for (int64_t b = 0; b < a.count(); ++b) {
    double* qm = q.at(b);
    const double* am = a.at(b);
    for (int64_t i = 0; i < n; ++i) qm[i * n + i] = 1;
    for (int64_t i = k - 1; i >= 0; --i) {
      auto vi = [&](int64_t r) { return r < i ? 0.0 : (r == i ? 1.0 : am[r * n + i]); };
      for (int64_t c = 0; c < n; ++c) {
        double dot = 0;
        for (int64_t r = 0; r < m; ++r) dot += vi(r) * qm[r * n + c];
        for (int64_t r = 0; r < m; ++r) qm[r * n + c] -= tau[b * k + i] * vi(r) * dot;
      }
    }
  }
  return SetMats(call, t.dtype(), q);
}

}  // namespace

void RegisterLinalgSolversRef(RefRegistry& r) {
  r.Add("aten::linalg_inv_ex.default", LinalgInvEx);
  r.Add("aten::linalg_inv.default", LinalgInvEx);
  r.Add("aten::linalg_solve.default", LinalgSolve);
  r.Add("aten::linalg_solve_ex.default", LinalgSolve);
  r.Add("aten::linalg_slogdet.default", LinalgSlogdet);
  r.Add("aten::logdet.default", Logdet);
  r.Add("aten::linalg_solve_triangular.default", LinalgSolveTriangular);
  r.Add("aten::triangular_solve.default", TriangularSolve);
  r.Add("aten::linalg_matrix_power.default", LinalgMatrixPower);
  r.Add("aten::linalg_multi_dot.default", LinalgMultiDot);
  r.Add("aten::linalg_tensorinv.default", LinalgTensorinv);
  r.Add("aten::linalg_tensorsolve.default", LinalgTensorsolve);
  r.Add("aten::linalg_householder_product.default", LinalgHouseholderProduct);
}

}  // namespace pt2onnx::reference
