// Reference kernels for LU factorizations and their uses: linalg_lu_factor
// (_ex), _lu_with_info, linalg_lu, lu_unpack, lu_solve and linalg_lu_solve,
// on linalg_support's getrf-style LU (pivots INT32, 1-based). pivot=False is
// refused as torch's CPU kernels refuse it.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/linalg_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

absl::Status CheckPivot(const RefCall& call) {
  if (!call.Has("pivot")) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(bool pivot, call.Bool("pivot"));
  if (!pivot) return call.Unsupported("LU without pivoting is not implemented on the CPU");
  return absl::OkStatus();
}

struct Factored {
  Mats lu;
  std::vector<int64_t> pivots, infos;
  int64_t k = 0;
};

absl::StatusOr<Factored> FactorInput(const RefCall& call, absl::string_view name,
                                     DataType* dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input(name));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, name));
  *dtype = t.dtype();
  Factored f;
  f.k = std::min(a.rows, a.cols);
  for (int64_t b = 0; b < a.count(); ++b) {
    Lu lu = Factor(a.at(b), a.rows, a.cols);
    f.pivots.insert(f.pivots.end(), lu.pivots.begin(), lu.pivots.end());
    f.infos.push_back(lu.info);
  }
  f.lu = std::move(a);
  return f;
}

// aten::linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)
// aten::linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False)
//     -> (Tensor LU, Tensor pivots, Tensor info)
// aten::_lu_with_info(Tensor self, bool pivot=True, bool check_errors=True)
//     -> (Tensor LU, Tensor pivots, Tensor info)
// linalg_lu_factor raises for a singular matrix (a zero U diagonal), the
// others when check_errors is set.
absl::Status LuFactorImpl(RefCall& call, absl::string_view name, bool with_info) {
  PT2ONNX_RETURN_IF_ERROR(CheckPivot(call));
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(Factored f, FactorInput(call, name, &dtype));
  bool check = !with_info;
  if (with_info && call.Has("check_errors")) {
    PT2ONNX_ASSIGN_OR_RETURN(check, call.Bool("check_errors"));
  }
  for (int64_t info : f.infos) {
    if (check && info > 0) {
      return call.Invalid(absl::StrCat("torch.linalg.lu_factor: U[", info, ",", info,
                                       "] is zero and using it on lu_solve would result in a "
                                       "division by zero"));
    }
  }
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, dtype, f.lu));
  Dims pdims = f.lu.batch;
  pdims.push_back(f.k);
  PT2ONNX_RETURN_IF_ERROR(SetInts(call, DataType::kInt32, pdims, f.pivots));
  if (with_info) return SetInts(call, DataType::kInt32, f.lu.batch, f.infos);
  return absl::OkStatus();
}
absl::Status LinalgLuFactor(RefCall& call) { return LuFactorImpl(call, "A", false); }
absl::Status LinalgLuFactorEx(RefCall& call) { return LuFactorImpl(call, "A", true); }
absl::Status LuWithInfo(RefCall& call) { return LuFactorImpl(call, "self", true); }

// P (m, m), L (m, k) and U (k, n) of each packed LU and its pivots.
absl::Status Unpack(RefCall& call, DataType dtype, const Mats& lu,
                    const std::vector<int64_t>& pivots, bool data, bool perm) {
  const int64_t m = lu.rows, n = lu.cols, k = std::min(m, n), count = lu.count();
  Mats p, l, u;
  p.batch = l.batch = u.batch = lu.batch;
  p.rows = p.cols = m;
  l.rows = m;
  l.cols = k;
  u.rows = k;
  u.cols = n;
  for (int64_t b = 0; b < count; ++b) {
    // The rows of an identity swapped as getrf swapped A's give P^T.
    std::vector<int64_t> order(m);
    for (int64_t i = 0; i < m; ++i) order[i] = i;
    for (int64_t s = 0; s < k; ++s) {
      const int64_t q = pivots[b * k + s] - 1;
      if (q < 0 || q >= m) return call.Invalid("lu_unpack: pivots out of range");
      std::swap(order[s], order[q]);
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) p.v.push_back(order[j] == i ? 1 : 0);
    }
    const double* f = lu.v.data() + b * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < k; ++j) l.v.push_back(i == j ? 1 : (i > j ? f[i * n + j] : 0));
    }
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = 0; j < n; ++j) u.v.push_back(j >= i ? f[i * n + j] : 0);
    }
  }
  if (perm) {
    PT2ONNX_RETURN_IF_ERROR(SetMats(call, dtype, p));
  } else {
    PT2ONNX_RETURN_IF_ERROR(SetMats(call, dtype, Mats{}));
  }
  if (!data) {
    PT2ONNX_RETURN_IF_ERROR(SetMats(call, dtype, Mats{}));
    return SetMats(call, dtype, Mats{});
  }
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, dtype, l));
  return SetMats(call, dtype, u);
}

// aten::linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)
absl::Status LinalgLu(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(CheckPivot(call));
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(Factored f, FactorInput(call, "A", &dtype));
  return Unpack(call, dtype, f.lu, f.pivots, true, true);
}

// aten::lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True,
//                 bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)
absl::Status LuUnpack(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("LU_data"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats lu, ReadMats(call, t, "LU_data"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor piv, call.Input("LU_pivots"));
  PT2ONNX_ASSIGN_OR_RETURN(bool data, call.Bool("unpack_data"));
  PT2ONNX_ASSIGN_OR_RETURN(bool perm, call.Bool("unpack_pivots"));
  const int64_t k = std::min(lu.rows, lu.cols);
  Dims expect = lu.batch;
  expect.push_back(k);
  if (piv.dims() != expect) return call.Invalid("lu_unpack: LU_pivots must have shape (*, min(m, n))");
  return Unpack(call, t.dtype(), lu, ToInts(piv), data, perm);
}

// X with A X = B (adjoint: A^T X = B) from A's LU and pivots, batches
// broadcast; left=False solves X A = B through the transposes.
absl::Status LuSolveImpl(RefCall& call, const char* lu_name, const char* piv_name,
                         const char* b_name, bool left, bool adjoint) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tlu, call.Input(lu_name));
  PT2ONNX_ASSIGN_OR_RETURN(Mats lu, ReadMats(call, tlu, lu_name));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tb, call.Input(b_name));
  PT2ONNX_ASSIGN_OR_RETURN(Mats b, ReadMats(call, tb, b_name));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tp, call.Input(piv_name));
  if (lu.rows != lu.cols) return call.Invalid("lu_solve: LU must be batches of square matrices");
  const int64_t n = lu.rows;
  if (tp.rank() < 1 || tp.dims().back() != n) return call.Invalid("lu_solve: pivots must have shape (*, n)");
  Mats piv;  // pivots as (..., n, 1) matrices, so they broadcast with LU
  piv.batch.assign(tp.dims().begin(), tp.dims().end() - 1);
  piv.rows = n;
  piv.cols = 1;
  for (int64_t v : ToInts(tp)) piv.v.push_back(static_cast<double>(v));
  if (!left) {
    b = Transposed(b);
    adjoint = !adjoint;
  }
  if (b.rows != n) return call.Invalid("lu_solve: Incompatible shapes of A and B");
  PT2ONNX_ASSIGN_OR_RETURN(Dims batch, BroadcastDims(lu.batch, piv.batch));
  PT2ONNX_ASSIGN_OR_RETURN(batch, BroadcastDims(batch, b.batch));
  lu = ExpandBatch(lu, batch);
  piv = ExpandBatch(piv, batch);
  b = ExpandBatch(b, batch);
  for (int64_t i = 0; i < b.count(); ++i) {
    std::vector<int64_t> p(n);
    for (int64_t j = 0; j < n; ++j) {
      p[j] = static_cast<int64_t>(piv.v[i * n + j]);
      if (p[j] < 1 || p[j] > n) return call.Invalid("lu_solve: pivots out of range");
    }
    LuSolveOne(lu.at(i), p.data(), b.at(i), n, b.cols, adjoint);
  }
  return SetMats(call, tb.dtype(), left ? b : Transposed(b));
}

// aten::linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True,
//                       bool adjoint=False) -> Tensor
absl::Status LinalgLuSolve(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool left, call.Bool("left"));
  PT2ONNX_ASSIGN_OR_RETURN(bool adjoint, call.Bool("adjoint"));
  return LuSolveImpl(call, "LU", "pivots", "B", left, adjoint);
}

// aten::lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor
absl::Status LuSolve(RefCall& call) {
  return LuSolveImpl(call, "LU_data", "LU_pivots", "self", true, false);
}

}  // namespace

void RegisterLinalgLuRef(RefRegistry& r) {
  r.Add("aten::linalg_lu_factor.default", LinalgLuFactor);
  r.Add("aten::linalg_lu_factor_ex.default", LinalgLuFactorEx);
  r.Add("aten::_lu_with_info.default", LuWithInfo);
  r.Add("aten::linalg_lu.default", LinalgLu);
  r.Add("aten::lu_unpack.default", LuUnpack);
  r.Add("aten::linalg_lu_solve.default", LinalgLuSolve);
  r.Add("aten::lu_solve.default", LuSolve);
}

}  // namespace pt2onnx::reference
