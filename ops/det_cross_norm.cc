// File: ops/det_cross_norm.cc
// -----------------------------------------------------------------------------
// Linear-algebra ops with an exact ONNX form: determinants (ONNX Det),
// cross products, and matrix / vector norms (ord 2, -2 and 'nuc' through
// the Jacobi singular values of ops/linalg_spectral_helpers.h). Also
// nonzero_static.
#include <algorithm>
#include <cmath>
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

// ---- determinants ------------------------------------------------------------

absl::Status Det(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank(arg));
  if (rank < 2) {
    return ctx.Invalid(absl::StrCat("the determinant needs (..., n, n) matrices, got rank ", rank));
  }
  for (int i = 1; i < ctx.num_outputs(); ++i) {
    if (ctx.OutputUsed(i)) {
      return ctx.Unsupported(absl::StrCat("reading output ", i,
                                          " (the LU factors or pivots) of the determinant"));
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs(arg, dtype));
  return ctx.SetOutput(0, ctx.Op("Det", {a}));
}

// aten::linalg_det(Tensor A) -> Tensor
absl::Status AtenLinalgDet(TranslateContext& ctx) { return Det(ctx, "A"); }
// aten::_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)
absl::Status AtenLinalgDetInternal(TranslateContext& ctx) { return Det(ctx, "A"); }
// aten::det(Tensor self) -> Tensor
absl::Status AtenDet(TranslateContext& ctx) { return Det(ctx, "self"); }

// ---- cross products ----------------------------------------------------------

// c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} (indices mod 3) along `axis` of the
// broadcast operands, as torch's kernel computes each component.
absl::Status Cross(TranslateContext& ctx, int64_t dim) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  const int64_t rank = ctx.OutputRank(0);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of aten::cross"));
  const pt2::TensorMeta* out = ctx.OutputMeta(0);
  if (out == nullptr || static_cast<int64_t>(out->sizes.size()) != rank ||
      out->sizes[axis].is_symbolic || out->sizes[axis].value != 3) {
    return ctx.Invalid("the cross product needs size 3 along dim");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("other", dtype));
  std::string a_shape = ctx.Op("Shape", {a});
  a = ctx.Op("Expand", {a, ctx.Op("Shape", {b})});
  b = ctx.Op("Expand", {b, a_shape});
  auto rolled = [&](const std::string& v, std::vector<int64_t> order) {
    return ctx.Op("Gather", {v, ctx.ConstantInt64s(std::move(order))},
                  {Attribute::Int("axis", axis)});
  };
  std::string first = ctx.Op("Mul", {rolled(a, {1, 2, 0}), rolled(b, {2, 0, 1})});
  std::string second = ctx.Op("Mul", {rolled(a, {2, 0, 1}), rolled(b, {1, 2, 0})});
  return ctx.SetOutput(0, ctx.Op("Sub", {first, second}));
}

// aten::linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor
absl::Status AtenLinalgCross(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  return Cross(ctx, dim);
}

// aten::cross(Tensor self, Tensor other, int? dim=None) -> Tensor
// dim=None means the first dim of size 3 (torch's deprecated default).
absl::Status AtenCross(TranslateContext& ctx) {
  std::optional<int64_t> dim;
  if (ctx.Has("dim")) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, ctx.OptionalInt("dim"));
  }
  if (!dim) {
    const pt2::TensorMeta* out = ctx.OutputMeta(0);
    for (size_t i = 0; out != nullptr && i < out->sizes.size() && !dim; ++i) {
      if (!out->sizes[i].is_symbolic && out->sizes[i].value == 3) dim = static_cast<int64_t>(i);
    }
    if (!dim) return ctx.Invalid("dim=None needs a dim of static size 3");
  }
  return Cross(ctx, *dim);
}

// ---- norms -------------------------------------------------------------------

std::string Reduce(TranslateContext& ctx, absl::string_view op, const std::string& x,
                   const std::vector<int64_t>& axes, bool keepdim) {
  std::vector<std::string> inputs = {x};
  if (!axes.empty()) inputs.push_back(ctx.ConstantInt64s(axes));
  return ctx.Op(op, inputs, {Attribute::Int("keepdims", keepdim ? 1 : 0)});
}

// The vector p-norm over `axes` (all when empty), as linalg_vector_norm.
std::string VectorNorm(TranslateContext& ctx, const std::string& x, double ord,
                       const std::vector<int64_t>& axes,
                       bool keepdim, DataType dtype) {
  if (ord == 2) return Reduce(ctx, "ReduceL2", x, axes, keepdim);
  if (ord == 1) return Reduce(ctx, "ReduceL1", x, axes, keepdim);
  std::string magnitude = ctx.Op("Abs", {x});
  if (std::isinf(ord)) return Reduce(ctx, ord > 0 ? "ReduceMax" : "ReduceMin", magnitude, axes,
                                     keepdim);
  if (ord == 0) {
    std::string nonzero = ctx.Op("Not", {ctx.Op("Equal", {x, ctx.ConstantScalar(dtype, 0)})});
    return Reduce(ctx, "ReduceSum", ctx.CastTo(nonzero, DataType::kBool, dtype), axes, keepdim);
  }
  std::string powered = ctx.Op("Pow", {magnitude, ctx.ConstantScalar(dtype, ord)});
  return ctx.Op("Pow",
                {Reduce(ctx, "ReduceSum", powered, axes, keepdim),
                 ctx.ConstantScalar(dtype, 1.0 / ord)});
}

// The 2-norm (ord 2), its minimum counterpart (ord -2) or the nuclear norm
// of the matrices over (row, col), from the singular values
// (ops/linalg_spectral_helpers.h: static sizes up to kMaxUnrolledSize).
absl::StatusOr<std::string> SpectralNorm(TranslateContext& ctx, const std::string& x, double ord,
                                         bool nuc, int64_t row, int64_t col, int64_t rank,
                                         bool keepdim, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  const pt2::SymInt& rows = meta->sizes[static_cast<size_t>(row)];
  const pt2::SymInt& cols = meta->sizes[static_cast<size_t>(col)];
  if (rows.is_symbolic || cols.is_symbolic || rows.value > kMaxUnrolledSize ||
      cols.value > kMaxUnrolledSize) {
    return ctx.Unsupported(absl::StrCat(
        "a matrix norm from singular values of a matrix with a symbolic size or one above ",
        kMaxUnrolledSize, " (the SVD is built from ONNX ops for static sizes up to that)"));
  }
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != row && i != col) perm.push_back(i);
  }
  perm.push_back(row);
  perm.push_back(col);
  std::string moved = ctx.Op("Transpose", {ctx.CastTo(x, dtype, DataType::kDouble)},
                             {Attribute::Ints("perm", perm)});
  bool empty_batch = false;
  for (int64_t i = 0; i < rank; ++i) {
    const pt2::SymInt& d = meta->sizes[static_cast<size_t>(i)];
    if (i != row && i != col && !d.is_symbolic && d.value == 0) empty_batch = true;
  }
  std::string sv = SingularValuesOf(ctx, moved, rows.value, cols.value, rank, empty_batch);
  std::string y = nuc ? Reduce(ctx, "ReduceSum", sv, {-1}, false)
                      : Reduce(ctx, ord > 0 ? "ReduceMax" : "ReduceMin", sv, {-1}, false);
  y = ctx.CastTo(y, DataType::kDouble, dtype);
  return keepdim ? Unsqueeze(ctx, y, {std::min(row, col), std::max(row, col)}) : y;
}

// Matrix norms over (row, col): 'fro', 'nuc', ord ±2 through singular
// values, and the max/min absolute column (ord 1, -1) or row (ord inf, -inf)
// sums.
absl::StatusOr<std::string> MatrixNorm(TranslateContext& ctx, const std::string& x, double ord,
                                       bool fro, bool nuc, int64_t row, int64_t col, int64_t rank,
                                       bool keepdim, DataType dtype) {
  if (fro) return Reduce(ctx, "ReduceL2", x, {row, col}, keepdim);
  if (nuc || std::abs(ord) == 2) {
    return SpectralNorm(ctx, x, ord, nuc, row, col, rank, keepdim, dtype);
  }
  if (ord != 1 && ord != -1 && !std::isinf(ord)) {
    return ctx.Invalid(absl::StrCat("matrix norm of order ", ord,
                                    " (orders 'fro', 'nuc', 1, -1, 2, -2, inf and -inf exist)"));
  }
  const bool columns = std::abs(ord) == 1;
  const int64_t summed = columns ? row : col;
  const int64_t ranked = columns ? col : row;
  std::string sums = Reduce(ctx, "ReduceSum", ctx.Op("Abs", {x}), {summed}, true);
  std::string best = Reduce(ctx, ord > 0 ? "ReduceMax" : "ReduceMin", sums, {ranked}, true);
  return keepdim ? best : Squeeze(ctx, best, {std::min(row, col), std::max(row, col)});
}

struct NormArgs {
  std::string x;
  DataType dtype;
  int64_t rank;
  bool keepdim;
};
absl::StatusOr<NormArgs> ReadNormArgs(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) return ctx.Unsupported(absl::StrCat("norms of dtype ",
                                                                   DataTypeName(dtype)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return NormArgs{std::move(x), dtype, rank, keepdim};
}

absl::StatusOr<std::vector<int64_t>> MatrixDims(TranslateContext& ctx, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dim"));
  if (dims.size() != 2) return ctx.Invalid("a matrix norm needs dim to name 2 dims");
  return CheckedAxes(dims, rank, "dim of aten::linalg_matrix_norm");
}

// aten::linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenLinalgMatrixNorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(NormArgs n, ReadNormArgs(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, MatrixDims(ctx, n.rank));
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue ord, ctx.Scalar("ord"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y,
                           MatrixNorm(ctx, n.x, ord.AsDouble(), false, false, dims[0], dims[1],
                                      n.rank, n.keepdim, n.dtype));
  return ctx.SetOutput(0, y);
}

// aten::linalg_matrix_norm.str_ord(Tensor self, str ord="fro", int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenLinalgMatrixNormStr(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(NormArgs n, ReadNormArgs(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, MatrixDims(ctx, n.rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::string ord, ctx.String("ord"));
  if (ord != "fro" && ord != "nuc") {
    return ctx.Invalid(absl::StrCat("matrix norm '", ord, "' (orders 'fro' and 'nuc' exist)"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string y,
                           MatrixNorm(ctx, n.x, 2, ord == "fro", ord == "nuc", dims[0], dims[1],
                                      n.rank, n.keepdim, n.dtype));
  return ctx.SetOutput(0, y);
}

// aten::linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
// ord None: the 2-norm of the flattened input (or over dim; 'fro' over two
// dims). Otherwise a vector norm over one dim (or a 1-D input) and a matrix
// norm over two dims (or a 2-D input).
absl::Status AtenLinalgNorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(NormArgs n, ReadNormArgs(ctx));
  std::optional<std::vector<int64_t>> dims;
  if (ctx.Has("dim")) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, ctx.OptionalInts("dim"));
  }
  std::optional<double> ord;
  if (ctx.Has("ord")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("ord"));
    if (arg.kind != pt2::Argument::Kind::kNone) {
      PT2ONNX_ASSIGN_OR_RETURN(ScalarValue v, ctx.Scalar("ord"));
      ord = v.AsDouble();
    }
  }
  std::vector<int64_t> axes;
  if (dims) {
    PT2ONNX_ASSIGN_OR_RETURN(axes, CheckedAxes(*dims, n.rank, "dim of aten::linalg_norm"));
  }
  if (!ord) {  // the 2-norm of the elements, over dim or everything
    return ctx.SetOutput(0, VectorNorm(ctx, n.x, 2, axes, n.keepdim, n.dtype));
  }
  const size_t count = dims ? axes.size() : static_cast<size_t>(n.rank);
  if (count == 1) return ctx.SetOutput(0, VectorNorm(ctx, n.x, *ord, axes, n.keepdim, n.dtype));
  if (count == 2) {
    const int64_t row = dims ? axes[0] : 0;
    const int64_t col = dims ? axes[1] : 1;
    PT2ONNX_ASSIGN_OR_RETURN(std::string y, MatrixNorm(ctx, n.x, *ord, false, false, row, col,
                                                                n.rank, n.keepdim, n.dtype));
    return ctx.SetOutput(0, y);
  }
  return ctx.Invalid("linalg_norm with ord needs a 1-D or 2-D input or a dim of 1 or 2 entries");
}

// ---- nonzero_static ----------------------------------------------------------

// aten::nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor
// nonzero's first `size` rows, padded with fill_value rows when fewer.
absl::Status AtenNonzeroStatic(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t fill, ctx.Int("fill_value"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string size, ctx.SymIntAsTensor("size"));
  std::string size1 = Reshape(ctx, size, {1});
  if (rank == 0) {
    // A 0-d input has no coordinates: `size` rows of width 0.
    return ctx.SetOutput(0, ctx.Op("Expand", {ctx.ConstantInt64(fill),
                                              ctx.Op("Concat", {size1, ctx.ConstantInt64s({0})},
                                                     {Attribute::Int("axis", 0)})}));
  }
  std::string found = ctx.Op("Transpose", {ctx.Op("NonZero", {self})},
                             {Attribute::Ints("perm", {1, 0})});
  std::string filler = ctx.Op("Expand", {ctx.ConstantInt64(fill),
                                         ctx.Op("Concat", {size1, ctx.ConstantInt64s({rank})},
                                                {Attribute::Int("axis", 0)})});
  std::string both = ctx.Op("Concat", {found, filler}, {Attribute::Int("axis", 0)});
  return ctx.SetOutput(0,
                       ctx.Op("Slice",
                              {both, ctx.ConstantInt64s({0}), size1, ctx.ConstantInt64s({0})}));
}

}  // namespace

void RegisterDetCrossNormOps(OpRegistry& r) {
  r.Add("aten::_linalg_det.default", &AtenLinalgDetInternal);
  r.Add("aten::cross.default", &AtenCross);
  r.Add("aten::det.default", &AtenDet);
  r.Add("aten::linalg_cross.default", &AtenLinalgCross);
  r.Add("aten::linalg_det.default", &AtenLinalgDet);
  r.Add("aten::linalg_matrix_norm.default", &AtenLinalgMatrixNorm);
  r.Add("aten::linalg_matrix_norm.str_ord", &AtenLinalgMatrixNormStr);
  r.Add("aten::linalg_norm.default", &AtenLinalgNorm);
  r.Add("aten::nonzero_static.default", &AtenNonzeroStatic);
}

}  // namespace pt2onnx::ops
