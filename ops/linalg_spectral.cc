// File: ops/linalg_spectral.cc
// -----------------------------------------------------------------------------
// Eigendecomposition of symmetric matrices and SVD, and what builds on
// singular values: linalg_eigh/eigvalsh, linalg_svd, svd, linalg_svdvals,
// linalg_matrix_sqrth and linalg_polar (unique, so sign-free, products of
// those), linalg_pinv (every overload, hermitian through eigh), pinverse,
// linalg_matrix_rank (every overload) and linalg_cond. Jacobi in float64
// (ops/linalg_spectral_helpers.h), static sizes up to kMaxUnrolledSize.
//
// Eigen- and singular vectors are unique only up to sign (and within a
// repeated value up to rotation): ours are Jacobi's, LAPACK's are its own,
// so vectors may differ from torch's by a column sign. Values and what only
// depends on them (pinv, rank, cond) match. For a zero singular value the U
// column is zero (LAPACK returns some orthonormal completion), and
// full_matrices=True of a non-square, non-empty matrix is refused: the
// orthonormal completion of U or V is not translated.
//
// Tolerances follow torch's get_atol_rtol and linalg_pinv/matrix_rank_impl
// (aten/src/ATen/native/LinearAlgebra.cpp): tol = max(atol, rtol * sigma_max),
// rtol defaulting to eps * max(m, n), or to 0 where a positive atol is given.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/linalg_spectral_helpers.h"
#include "ops/linalg_unrolled_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;
constexpr DataType kF64 = DataType::kDouble;

std::string Slice(TranslateContext& ctx, const std::string& x, int64_t axis, int64_t start,
                  int64_t end) {
  return ctx.Op("Slice", {x, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}),
                          ctx.ConstantInt64s({axis})});
}

// Zeros (batch of x..., rows, cols) float64.
std::string BatchedZeros(TranslateContext& ctx, const std::string& x, int64_t rows, int64_t cols) {
  return ctx.Op("Expand", {ctx.ConstantScalar(kF64, 0),
                           ctx.Op("Concat", {BatchShape(ctx, x), ctx.ConstantInt64s({rows, cols})},
                                  {Attribute::Int("axis", 0)})});
}

// `x` reshaped to the batch of `a` + `tail`: ONNX Runtime keeps the reduced
// axis of an empty ReduceSum, which this drops again.
std::string PinBatch(TranslateContext& ctx, const std::string& x, const std::string& a,
                     std::vector<int64_t> tail) {
  std::string shape = BatchShape(ctx, a);
  if (!tail.empty()) {
    shape = ctx.Op("Concat", {shape, ctx.ConstantInt64s(std::move(tail))}, {Attribute::Int("axis", 0)});
  }
  return ctx.Op("Reshape", {x, shape}, {Attribute::Int("allowzero", 1)});
}

absl::StatusOr<SpectralInput> ReadSquare(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, arg));
  if (in.rows != in.cols) return ctx.Invalid(absl::StrCat("'", arg, "' must be batches of square matrices"));
  return in;
}

// The matrix LAPACK's syevd sees: the UPLO triangle mirrored.
absl::StatusOr<std::string> Symmetrized(TranslateContext& ctx, const SpectralInput& in,
                                        const std::string& uplo) {
  if (uplo != "L" && uplo != "l" && uplo != "U" && uplo != "u") {
    return ctx.Invalid(absl::StrCat("UPLO must be 'L' or 'U', got '", uplo, "'"));
  }
  const bool lower = uplo == "L" || uplo == "l";
  std::string keep = ConstantMask(ctx, in.rows, in.rows, [lower](int64_t i, int64_t j) {
    return lower ? i >= j : i <= j;
  });
  return ctx.Op("Where", {keep, in.a, TransposeLast2(ctx, in.a, in.rank)});
}

// Eigenvalues (..., n) ascending and eigenvectors of the UPLO triangle.
absl::StatusOr<SymmetricEigen> Eigh(TranslateContext& ctx, const SpectralInput& in,
                                    const std::string& uplo) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string sym, Symmetrized(ctx, in, uplo));
  if (in.rows == 0) return SymmetricEigen{EmptyVector(ctx, sym), sym};
  return JacobiEigh(ctx, sym, in.rows, in.rank, in.empty_batch);
}

// aten::linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)
// aten::linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor
absl::Status AtenLinalgEigh(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSquare(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string uplo, ctx.String("UPLO"));
  PT2ONNX_ASSIGN_OR_RETURN(SymmetricEigen e, Eigh(ctx, in, uplo));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(e.values, kF64, in.dtype)));
  if (ctx.num_outputs() > 1) return ctx.SetOutput(1, ctx.CastTo(e.vectors, kF64, in.dtype));
  return absl::OkStatus();
}

struct Svd {
  std::string u, s, v;  // float64; u (..., m, k or m), v (..., n, k or n)
};

absl::StatusOr<Svd> SvdOf(TranslateContext& ctx, const SpectralInput& in, bool full) {
  const int64_t m = in.rows, n = in.cols, k = std::min(m, n);
  if (k == 0) {
    // Nothing to decompose: the full bases are identities (as LAPACK's).
    Svd out;
    out.s = SingularValuesOf(ctx, in.a, m, n, in.rank);
    out.u = full ? BatchedEye(ctx, m, BatchShape(ctx, in.a), kF64) : Slice(ctx, in.a, -1, 0, 0);
    out.v = full ? BatchedEye(ctx, n, BatchShape(ctx, in.a), kF64)
                 : TransposeLast2(ctx, Slice(ctx, in.a, -2, 0, 0), in.rank);
    return out;
  }
  if (full && m != n) {
    return ctx.Unsupported(absl::StrCat(
        "full_matrices=True of a ", m, "x", n, " matrix (the orthonormal completion of ",
        m > n ? "U" : "V", " is not translated; use full_matrices=False / some=True)"));
  }
  ThinSvd t = JacobiSvd(ctx, in.a, m, n, in.rank, /*vectors=*/true, in.empty_batch);
  return Svd{t.u, t.s, t.v};
}

// aten::linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None)
//     -> (Tensor U, Tensor S, Tensor Vh)
absl::Status AtenLinalgSvd(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(bool full, ctx.Bool("full_matrices"));
  PT2ONNX_ASSIGN_OR_RETURN(Svd r, SvdOf(ctx, in, full));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(r.u, kF64, in.dtype)));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, ctx.CastTo(r.s, kF64, in.dtype)));
  return ctx.SetOutput(2, ctx.CastTo(TransposeLast2(ctx, r.v, in.rank), kF64, in.dtype));
}

// aten::svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)
// compute_uv=False: U and V are zeros of (m, m) and (n, n), as torch's svd.
absl::Status AtenSvd(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool some, ctx.Bool("some"));
  PT2ONNX_ASSIGN_OR_RETURN(bool compute_uv, ctx.Bool("compute_uv"));
  Svd r;
  if (compute_uv) {
    PT2ONNX_ASSIGN_OR_RETURN(Svd full, SvdOf(ctx, in, !some));
    r = full;
  } else {
    r.s = SingularValuesOf(ctx, in.a, in.rows, in.cols, in.rank, in.empty_batch);
    r.u = BatchedZeros(ctx, in.a, in.rows, in.rows);
    r.v = BatchedZeros(ctx, in.a, in.cols, in.cols);
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(r.u, kF64, in.dtype)));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, ctx.CastTo(r.s, kF64, in.dtype)));
  return ctx.SetOutput(2, ctx.CastTo(r.v, kF64, in.dtype));
}

// aten::linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor
absl::Status AtenLinalgSvdvals(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, "A"));
  return ctx.SetOutput(
      0, ctx.CastTo(SingularValuesOf(ctx, in.a, in.rows, in.cols, in.rank, in.empty_batch), kF64, in.dtype));
}

// aten::linalg_matrix_sqrth(Tensor self) -> Tensor
// V diag(sqrt(w)) V^T from the lower triangle's eigendecomposition: the
// square root of a positive-definite matrix is unique, so the vectors'
// signs (Jacobi's, not LAPACK's) do not show.
absl::Status AtenLinalgMatrixSqrth(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSquare(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(SymmetricEigen e, Eigh(ctx, in, "L"));
  std::string scaled = ctx.Op("Mul", {e.vectors, Unsqueeze(ctx, ctx.Op("Sqrt", {e.values}), {-2})});
  std::string root = ctx.Op("MatMul", {scaled, TransposeLast2(ctx, e.vectors, in.rank)});
  return ctx.SetOutput(0, ctx.CastTo(root, kF64, in.dtype));
}

// aten::linalg_polar(Tensor A) -> (Tensor U, Tensor H)
// From the thin SVD A = W S V^T (m >= n): U = W V^T, H = V S V^T, unique for
// a matrix of full column rank whatever the singular vectors' signs.
absl::Status AtenLinalgPolar(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, "A"));
  if (in.rows < in.cols) {
    return ctx.Invalid(absl::StrCat("linalg.polar: input must have at least as many rows as columns, but got ",
                                    in.rows, " by ", in.cols, " matrices"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Svd r, SvdOf(ctx, in, false));
  std::string vt = TransposeLast2(ctx, r.v, in.rank);
  std::string u = ctx.Op("MatMul", {r.u, vt});
  std::string h = ctx.Op("MatMul", {ctx.Op("Mul", {r.v, Unsqueeze(ctx, r.s, {-2})}), vt});
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(u, kF64, in.dtype)));
  return ctx.SetOutput(1, ctx.CastTo(h, kF64, in.dtype));
}

// ---- tolerances ----------------------------------------------------------------

// atol and rtol as float64 values broadcasting against the batch (0-d or
// batch-shaped), per get_atol_rtol.
struct Tolerances {
  std::string atol, rtol;
};

double DefaultRtol(const SpectralInput& in) {
  const double eps = in.dtype == DataType::kDouble ? std::numeric_limits<double>::epsilon()
                                                   : std::numeric_limits<float>::epsilon();
  return eps * static_cast<double>(std::max(in.rows, in.cols));
}

// The Tensor? atol / Tensor? rtol overloads.
absl::StatusOr<Tolerances> TensorTolerances(TranslateContext& ctx, const SpectralInput& in,
                                            absl::string_view atol_arg, absl::string_view rtol_arg) {
  std::optional<std::string> atol, rtol;
  if (!atol_arg.empty()) {
    PT2ONNX_ASSIGN_OR_RETURN(auto a, ctx.OptionalInput(atol_arg));
    if (a) {
      PT2ONNX_ASSIGN_OR_RETURN(atol, ctx.InputAs(atol_arg, kF64));
    }
  }
  if (!rtol_arg.empty()) {
    PT2ONNX_ASSIGN_OR_RETURN(auto r, ctx.OptionalInput(rtol_arg));
    if (r) {
      PT2ONNX_ASSIGN_OR_RETURN(rtol, ctx.InputAs(rtol_arg, kF64));
    }
  }
  Tolerances t;
  t.atol = atol.value_or(ctx.ConstantScalar(kF64, 0));
  if (rtol) {
    t.rtol = *rtol;
  } else {
    std::string fallback = ctx.ConstantScalar(kF64, DefaultRtol(in));
    t.rtol = atol ? ctx.Op("Where", {ctx.Op("Greater", {*atol, ctx.ConstantScalar(kF64, 0)}),
                                     ctx.ConstantScalar(kF64, 0), fallback})
                  : fallback;
  }
  return t;
}

// The float? atol / float? rtol overloads.
absl::StatusOr<Tolerances> FloatTolerances(TranslateContext& ctx, const SpectralInput& in) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> atol, ctx.OptionalFloat("atol"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> rtol, ctx.OptionalFloat("rtol"));
  const double r = rtol ? *rtol : (atol && *atol > 0 ? 0.0 : DefaultRtol(in));
  return Tolerances{ctx.ConstantScalar(kF64, atol.value_or(0.0)), ctx.ConstantScalar(kF64, r)};
}

// The single-tolerance overloads: linalg_pinv(rcond) and pinverse take it
// as rtol, linalg_matrix_rank(tol) as atol.
absl::StatusOr<Tolerances> RcondFloat(TranslateContext& ctx, const SpectralInput&) {
  PT2ONNX_ASSIGN_OR_RETURN(double rcond, ctx.Float("rcond"));
  return Tolerances{ctx.ConstantScalar(kF64, 0), ctx.ConstantScalar(kF64, rcond)};
}
absl::StatusOr<Tolerances> RcondTensor(TranslateContext& ctx, const SpectralInput&) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string rcond, ctx.InputAs("rcond", kF64));
  return Tolerances{ctx.ConstantScalar(kF64, 0), rcond};
}
absl::StatusOr<Tolerances> TolFloat(TranslateContext& ctx, const SpectralInput&) {
  PT2ONNX_ASSIGN_OR_RETURN(double tol, ctx.Float("tol"));
  return Tolerances{ctx.ConstantScalar(kF64, tol), ctx.ConstantScalar(kF64, 0)};
}
absl::StatusOr<Tolerances> TolTensor(TranslateContext& ctx, const SpectralInput&) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string tol, ctx.InputAs("tol", kF64));
  return Tolerances{tol, ctx.ConstantScalar(kF64, 0)};
}
absl::StatusOr<Tolerances> AtolRtolTensor(TranslateContext& ctx, const SpectralInput& in) {
  return TensorTolerances(ctx, in, "atol", "rtol");
}

using ToleranceReader = absl::StatusOr<Tolerances> (*)(TranslateContext&, const SpectralInput&);

// Values and their magnitudes' cut-off: max(atol, rtol * max|value|), (..., 1).
std::string Cutoff(TranslateContext& ctx, const Tolerances& t, const std::string& magnitudes) {
  std::string top = ctx.Op("ReduceMax", {magnitudes, ctx.ConstantInt64s({-1})},
                           {Attribute::Int("keepdims", 1)});
  return ctx.Op("Max", {Unsqueeze(ctx, t.atol, {-1}),
                        ctx.Op("Mul", {Unsqueeze(ctx, t.rtol, {-1}), top})});
}

bool Hermitian(TranslateContext& ctx) {
  if (!ctx.Has("hermitian")) return false;
  absl::StatusOr<bool> h = ctx.Bool("hermitian");
  return h.ok() && *h;
}

// aten::linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False) -> Tensor
// aten::linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor
// aten::linalg_pinv(Tensor self, float rcond, bool hermitian=False) -> Tensor
// aten::linalg_pinv.rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False) -> Tensor
// aten::pinverse(Tensor self, float rcond=1e-15) -> Tensor
absl::Status Pinv(TranslateContext& ctx, ToleranceReader read_tolerances) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, "self"));
  const bool hermitian = Hermitian(ctx);
  const int64_t m = in.rows, n = in.cols;
  if (m == 0 || n == 0) {
    return ctx.SetOutput(0, ctx.CastTo(BatchedZeros(ctx, in.a, n, m), kF64, in.dtype));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tolerances tol, read_tolerances(ctx, in));
  std::string zero = ctx.ConstantScalar(kF64, 0);
  std::string one = ctx.ConstantScalar(kF64, 1);
  std::string left, values, right_t;
  if (hermitian) {
    if (m != n) return ctx.Invalid("hermitian pinv needs square matrices");
    PT2ONNX_ASSIGN_OR_RETURN(SymmetricEigen e, Eigh(ctx, in, "L"));
    left = e.vectors;
    right_t = e.vectors;
    values = e.values;
  } else {
    ThinSvd t = JacobiSvd(ctx, in.a, m, n, in.rank, /*vectors=*/true, in.empty_batch);
    left = t.v;
    right_t = t.u;
    values = t.s;
  }
  std::string magnitude = ctx.Op("Abs", {values});
  std::string keep = ctx.Op("Greater", {magnitude, Cutoff(ctx, tol, magnitude)});
  std::string inverse = ctx.Op("Where", {keep, ctx.Op("Div", {one, ctx.Op("Where", {keep, values, one})}), zero});
  std::string scaled = ctx.Op("Mul", {left, Unsqueeze(ctx, inverse, {-2})});
  // left diag(inverse) right^T as a broadcast product summed over k, not a
  // MatMul of a transpose: ONNX Runtime fuses that into FusedMatMul, which
  // has no float64 kernel.
  std::string pinv = ctx.Op("ReduceSum", {ctx.Op("Mul", {Unsqueeze(ctx, scaled, {-2}),
                                                         Unsqueeze(ctx, right_t, {-3})}),
                                          ctx.ConstantInt64s({-1})},
                            {Attribute::Int("keepdims", 0)});
  pinv = PinBatch(ctx, pinv, in.a, {n, m});
  return ctx.SetOutput(0, ctx.CastTo(pinv, kF64, in.dtype));
}

// aten::linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False) -> Tensor
// aten::linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor
// aten::linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor
// aten::linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False) -> Tensor
absl::Status MatrixRank(TranslateContext& ctx, absl::string_view arg,
                        ToleranceReader read_tolerances) {
  PT2ONNX_ASSIGN_OR_RETURN(SpectralInput in, ReadSpectralInput(ctx, arg));
  const int64_t m = in.rows, n = in.cols;
  if (m == 0 || n == 0) {
    std::string zeros = ctx.Op("ReduceSum", {BatchedZeros(ctx, in.a, 1, 1), ctx.ConstantInt64s({-2, -1})},
                               {Attribute::Int("keepdims", 0)});
    return ctx.SetOutput(0, ctx.CastTo(zeros, kF64, DataType::kInt64));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tolerances tol, read_tolerances(ctx, in));
  std::string values;
  if (Hermitian(ctx)) {
    if (m != n) return ctx.Invalid("hermitian matrix_rank needs square matrices");
    PT2ONNX_ASSIGN_OR_RETURN(SymmetricEigen e, Eigh(ctx, in, "L"));
    values = ctx.Op("Abs", {e.values});
  } else {
    values = SingularValuesOf(ctx, in.a, m, n, in.rank, in.empty_batch);
  }
  std::string above = ctx.Op("Greater", {values, Cutoff(ctx, tol, values)});
  std::string count = ctx.Op("ReduceSum", {ctx.CastTo(above, DataType::kBool, DataType::kInt64),
                                           ctx.ConstantInt64s({-1})},
                             {Attribute::Int("keepdims", 0)});
  return ctx.SetOutput(0, PinBatch(ctx, count, in.a, {}));
}

absl::Status AtenLinalgPinvAtolRtolTensor(TranslateContext& ctx) { return Pinv(ctx, AtolRtolTensor); }
absl::Status AtenLinalgPinvAtolRtolFloat(TranslateContext& ctx) { return Pinv(ctx, FloatTolerances); }
absl::Status AtenLinalgPinvRcond(TranslateContext& ctx) { return Pinv(ctx, RcondFloat); }
absl::Status AtenLinalgPinvRcondTensor(TranslateContext& ctx) { return Pinv(ctx, RcondTensor); }
absl::Status AtenMatrixRankAtolRtolTensor(TranslateContext& ctx) {
  return MatrixRank(ctx, "input", AtolRtolTensor);
}
absl::Status AtenMatrixRankAtolRtolFloat(TranslateContext& ctx) {
  return MatrixRank(ctx, "self", FloatTolerances);
}
absl::Status AtenMatrixRankTol(TranslateContext& ctx) { return MatrixRank(ctx, "self", TolFloat); }
absl::Status AtenMatrixRankTolTensor(TranslateContext& ctx) {
  return MatrixRank(ctx, "input", TolTensor);
}

}  // namespace

void RegisterLinalgSpectralOps(OpRegistry& r) {
  r.Add("aten::linalg_eigh.default", &AtenLinalgEigh);
  r.Add("aten::linalg_eigvalsh.default", &AtenLinalgEigh);
  r.Add("aten::linalg_svd.default", &AtenLinalgSvd);
  r.Add("aten::linalg_matrix_sqrth.default", &AtenLinalgMatrixSqrth);
  r.Add("aten::linalg_polar.default", &AtenLinalgPolar);
  r.Add("aten::svd.default", &AtenSvd);
  r.Add("aten::linalg_svdvals.default", &AtenLinalgSvdvals);
  r.Add("aten::linalg_pinv.atol_rtol_tensor", &AtenLinalgPinvAtolRtolTensor);
  r.Add("aten::linalg_pinv.atol_rtol_float", &AtenLinalgPinvAtolRtolFloat);
  r.Add("aten::linalg_pinv.default", &AtenLinalgPinvRcond);
  r.Add("aten::linalg_pinv.rcond_tensor", &AtenLinalgPinvRcondTensor);
  r.Add("aten::pinverse.default", &AtenLinalgPinvRcond);
  r.Add("aten::linalg_matrix_rank.atol_rtol_tensor", &AtenMatrixRankAtolRtolTensor);
  r.Add("aten::linalg_matrix_rank.atol_rtol_float", &AtenMatrixRankAtolRtolFloat);
  r.Add("aten::linalg_matrix_rank.default", &AtenMatrixRankTol);
  r.Add("aten::linalg_matrix_rank.tol_tensor", &AtenMatrixRankTolTensor);
}

}  // namespace pt2onnx::ops
