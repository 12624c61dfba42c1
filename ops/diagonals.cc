// File: ops/diagonals.cc
// -----------------------------------------------------------------------------
// Diagonals read and written at run time, so symbolic sizes work: trace,
// linalg_diagonal and diag of a matrix gather every (C + 1)-th element of the
// flattened last two dims; diag of a vector, diagflat and diag_embed place
// the values with a Where over an (m, m) "col - row == offset" mask.
// Semantics: aten/src/ATen/native/TensorShape.cpp (diagonal, diag_embed),
// torch/_refs/__init__.py (diag, diagflat, trace).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Offsets beyond this are refused: the size arithmetic adds them to dims.
constexpr int64_t kMaxOffset = int64_t{1} << 31;

absl::StatusOr<int64_t> OffsetArg(const TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, ctx.Int(arg));
  if (offset > kMaxOffset || offset < -kMaxOffset) {
    return ctx.Invalid(absl::StrCat(arg, " ", offset, " is out of range"));
  }
  return offset;
}

// Shape(x)[:lead] followed by the 1-D `tail` (just `tail` when lead is 0).
std::string WithLeadingDims(TranslateContext& ctx, const std::string& x, int64_t lead, const std::string& tail) {
  if (lead == 0) return tail;
  return ctx.Op("Concat", {ShapeSlice(ctx, x, 0, lead), tail}, {Attribute::Int("axis", 0)});
}

// The diagonal at `offset` of the last two dims of x (rank >= 2): shape
// (..., L) with L = max(0, min(R, C - offset)) for offset >= 0 and
// max(0, min(R + offset, C)) below.
std::string DiagonalOfLast(TranslateContext& ctx, const std::string& x, int64_t rank, int64_t offset) {
  std::string rows = ShapeSlice(ctx, x, rank - 2, rank - 1);
  std::string cols = ShapeSlice(ctx, x, rank - 1, rank);
  std::string off = ctx.ConstantInt64s({offset});
  std::string length = offset >= 0 ? ctx.Op("Min", {rows, ctx.Op("Sub", {cols, off})})
                                   : ctx.Op("Min", {ctx.Op("Add", {rows, off}), cols});
  length = ctx.Op("Max", {length, ctx.ConstantInt64s({0})});
  // Row i - offset, column i for negative offsets: start at -offset * C.
  std::string start = offset >= 0 ? off : ctx.Op("Mul", {ctx.ConstantInt64s({-offset}), cols});
  std::string flat = ctx.Op("Reshape", {x, WithLeadingDims(ctx, x, rank - 2, ctx.Op("Mul", {rows, cols}))},
                            {Attribute::Int("allowzero", 1)});
  std::string steps = ctx.Op("Range", {ctx.ConstantInt64(0), Squeeze(ctx, length, {0}), ctx.ConstantInt64(1)});
  std::string at = ctx.Op("Add", {start, ctx.Op("Mul", {steps, ctx.Op("Add", {cols, ctx.ConstantInt64s({1})})})});
  return ctx.Op("Gather", {flat, at}, {Attribute::Int("axis", rank - 2)});
}

// x (..., n) placed on the `offset` diagonal of new last dims (..., m, m),
// m = n + |offset|, zeros elsewhere.
std::string EmbedInLast(TranslateContext& ctx, const std::string& x, int64_t rank, int64_t offset,
                        DataType dtype) {
  const int64_t shift = offset >= 0 ? offset : -offset;
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string padded = x;
  if (shift > 0) {
    std::string pad_shape = WithLeadingDims(ctx, x, rank - 1, ctx.ConstantInt64s({shift}));
    padded = ctx.Op("Concat", {x, ctx.Op("Expand", {zero, pad_shape})}, {Attribute::Int("axis", rank - 1)});
  }
  std::string m = ctx.Op("Add", {ctx.Op("Shape", {x}, {Attribute::Int("start", rank - 1)}),
                                 ctx.ConstantInt64s({shift})});
  std::string index = ctx.Op("Range", {ctx.ConstantInt64(0), Squeeze(ctx, m, {0}), ctx.ConstantInt64(1)});
  std::string on_diagonal =
      ctx.Op("Equal", {ctx.Op("Sub", {index, Unsqueeze(ctx, index, {1})}), ctx.ConstantInt64(offset)});
  // At (r, r + offset) the value is padded[r]; at (c - offset, c) it is padded[c].
  std::string value = Unsqueeze(ctx, padded, {offset >= 0 ? rank : rank - 1});
  // ONNX Runtime has no bool Where; for bools the mask and the value combine.
  if (dtype == DataType::kBool) return ctx.Op("And", {on_diagonal, value});
  return ctx.Op("Where", {on_diagonal, value, zero});
}

// x with dims d1, d2 moved last (others in order), as diagonal reads them.
std::string MoveLast(TranslateContext& ctx, const std::string& x, int64_t rank, int64_t d1, int64_t d2) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != d1 && d != d2) perm.push_back(d);
  }
  perm.push_back(d1);
  perm.push_back(d2);
  return ctx.Op("Transpose", {x}, {Attribute::Ints("perm", perm)});
}

// aten::linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)
absl::Status AtenLinalgDiagonal(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("A"));
  if (rank < 2) return ctx.Invalid("diagonal needs two distinct dimensions");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, OffsetArg(ctx, "offset"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, AxisArg(ctx, "dim1", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d2, AxisArg(ctx, "dim2", rank));
  if (d1 == d2) return ctx.Invalid("diagonal needs two distinct dimensions");
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.Input("A"));
  return ctx.SetOutput(0, DiagonalOfLast(ctx, MoveLast(ctx, a, rank, d1, d2), rank, offset));
}

// aten::trace(Tensor self) -> Tensor
// The diagonal's sum in the output dtype (int64 for integer and bool input).
absl::Status AtenTrace(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 2) return ctx.Invalid(absl::StrCat("trace expects a matrix, got rank ", rank));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputAs("self", dtype));
  return ctx.SetOutput(0, ctx.Op("ReduceSum", {DiagonalOfLast(ctx, self, 2, 0), ctx.ConstantInt64s({0})},
                                 {Attribute::Int("keepdims", 0)}));
}

// aten::diag(Tensor self, int diagonal=0) -> Tensor
// A vector becomes a matrix with it on that diagonal; a matrix gives its diagonal.
absl::Status AtenDiag(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, OffsetArg(ctx, "diagonal"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  if (rank == 1) return ctx.SetOutput(0, EmbedInLast(ctx, self, 1, offset, dtype));
  if (rank == 2) return ctx.SetOutput(0, DiagonalOfLast(ctx, self, 2, offset));
  return ctx.Invalid(absl::StrCat("diag expects a vector or a matrix, got rank ", rank));
}

// aten::diagflat(Tensor self, int offset=0) -> Tensor
absl::Status AtenDiagflat(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, OffsetArg(ctx, "offset"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  return ctx.SetOutput(0, EmbedInLast(ctx, Reshape(ctx, self, {-1}), 1, offset, dtype));
}

// aten::diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor
// The last dim of self becomes the `offset` diagonal of output dims dim1
// (rows) and dim2 (columns); the other dims keep their order.
absl::Status AtenDiagEmbed(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < 1) return ctx.Invalid("diag_embed needs at least one dimension");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, OffsetArg(ctx, "offset"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, AxisArg(ctx, "dim1", rank + 1));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d2, AxisArg(ctx, "dim2", rank + 1));
  if (d1 == d2) return ctx.Invalid("diagonal dimensions cannot be identical");
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  std::string embedded = EmbedInLast(ctx, self, rank, offset, dtype);
  std::vector<int64_t> perm(rank + 1, -1);
  perm[d1] = rank - 1;
  perm[d2] = rank;
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p < 0) p = next++;
  }
  return ctx.SetOutput(0, ctx.Op("Transpose", {embedded}, {Attribute::Ints("perm", perm)}));
}

// aten::diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor
// self with its (offset, dim1, dim2) diagonal replaced by src (shaped like
// that diagonal: the other dims, then its length): ScatterND of src's rows at
// (k + max(-offset, 0), k + max(offset, 0)) on the (dim1, dim2)-first layout.
absl::Status AtenDiagonalScatter(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string src, ctx.InputAs("src", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t src_rank, ctx.InputRank("src"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, OffsetArg(ctx, "offset"));
  if (rank < 2) return ctx.Invalid("diagonal_scatter needs a tensor of at least 2 dims");
  if (src_rank != rank - 1) return ctx.Invalid("diagonal_scatter: src must have the diagonal's shape");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, AxisArg(ctx, "dim1", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d2, AxisArg(ctx, "dim2", rank));
  if (d1 == d2) return ctx.Invalid("diagonal dimensions cannot be identical");
  std::vector<int64_t> perm = {d1, d2};
  for (int64_t a = 0; a < rank; ++a) {
    if (a != d1 && a != d2) perm.push_back(a);
  }
  std::vector<int64_t> src_perm = {rank - 2};
  for (int64_t a = 0; a < rank - 2; ++a) src_perm.push_back(a);
  std::string xt = TransposeBy(ctx, self, perm);
  std::string st = TransposeBy(ctx, src, src_perm);
  std::string length = Reshape(ctx, ShapeSlice(ctx, src, rank - 2, rank - 1), {});
  std::string k = ctx.Op("Range", {ctx.ConstantInt64(0), length, ctx.ConstantInt64(1)});
  std::string rows = ctx.Op("Add", {k, ctx.ConstantInt64(offset < 0 ? -offset : 0)});
  std::string cols = ctx.Op("Add", {k, ctx.ConstantInt64(offset > 0 ? offset : 0)});
  std::string at = ctx.Op("Concat", {Unsqueeze(ctx, rows, {1}), Unsqueeze(ctx, cols, {1})},
                          {Attribute::Int("axis", 1)});
  std::string yt = ctx.Op("ScatterND", {xt, at, st});
  return ctx.SetOutput(0, TransposeBy(ctx, yt, InversePermutation(perm)));
}

}  // namespace

void RegisterDiagonalOps(OpRegistry& r) {
  r.Add("aten::diagonal_scatter.default", &AtenDiagonalScatter);
  r.Add("aten::linalg_diagonal.default", &AtenLinalgDiagonal);
  r.Add("aten::trace.default", &AtenTrace);
  r.Add("aten::diag.default", &AtenDiag);
  r.Add("aten::diagflat.default", &AtenDiagflat);
  r.Add("aten::diag_embed.default", &AtenDiagEmbed);
}

}  // namespace pt2onnx::ops
