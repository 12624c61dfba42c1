// File: ops/linalg_tensor_solve.cc
// -----------------------------------------------------------------------------
// linalg_tensorinv and linalg_tensorsolve: reshapes around the unrolled
// inverse and solve (ops/linalg_unrolled_helpers.h), so the flattened matrix
// must be static and at most kMaxUnrolledSize on a side.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/linalg_unrolled_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// The static sizes of tensor argument `arg`.
absl::StatusOr<std::vector<int64_t>> StaticSizes(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(arg));
  std::vector<int64_t> sizes;
  for (const auto& d : meta->sizes) {
    if (d.is_symbolic) {
      return ctx.Unsupported(absl::StrCat("a symbolic size in '", arg,
                                          "' (the solver is unrolled over static sizes)"));
    }
    sizes.push_back(d.value);
  }
  return sizes;
}

int64_t Product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= v[i];
  return p;
}

absl::Status CheckSide(TranslateContext& ctx, int64_t n) {
  if (n > kMaxUnrolledSize) {
    return ctx.Unsupported(absl::StrCat(
        "a flattened ", n, "x", n, " matrix (the solver is unrolled in ONNX ops, up to ",
        kMaxUnrolledSize, "x", kMaxUnrolledSize, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<DataType> FloatDtype(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("tensor solves of dtype ", DataTypeName(dtype)));
  }
  return dtype;
}

// aten::linalg_tensorinv(Tensor self, int ind=2) -> Tensor
// self reshaped to (prod(shape[:ind]), prod(shape[ind:])), inverted, and
// reshaped to shape[ind:] + shape[:ind].
absl::Status AtenLinalgTensorinv(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, StaticSizes(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t ind, ctx.Int("ind"));
  if (ind <= 0 || ind > static_cast<int64_t>(sizes.size())) {
    return ctx.Invalid("linalg_tensorinv needs 0 < ind <= self.dim()");
  }
  const int64_t rows = Product(sizes, 0, ind), cols = Product(sizes, ind, sizes.size());
  if (rows != cols) return ctx.Invalid("linalg_tensorinv needs prod(shape[:ind]) == prod(shape[ind:])");
  PT2ONNX_RETURN_IF_ERROR(CheckSide(ctx, rows));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  std::string inv = Inverse(ctx, Reshape(ctx, a, {rows, cols}), rows, dtype).x;
  std::vector<int64_t> out(sizes.begin() + ind, sizes.end());
  out.insert(out.end(), sizes.begin(), sizes.begin() + ind);
  return ctx.SetOutput(0, Reshape(ctx, inv, out));
}

// aten::linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor
// dims move to the end of self first; then self is an (other.numel(),
// prod(rest)) matrix solved against other flattened, the result shaped as
// self's trailing dims (LinearAlgebra.cpp's linalg_tensorsolve).
absl::Status AtenLinalgTensorsolve(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, StaticSizes(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> other_sizes, StaticSizes(ctx, "other"));
  const int64_t rank = static_cast<int64_t>(sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("other", dtype));
  std::optional<std::vector<int64_t>> dims;
  if (ctx.Has("dims")) {
    PT2ONNX_ASSIGN_OR_RETURN(dims, ctx.OptionalInts("dims"));
  }
  if (dims && !dims->empty()) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> moved, CheckedAxes(*dims, rank, "dims"));
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i) {
      if (std::find(moved.begin(), moved.end(), i) == moved.end()) perm.push_back(i);
    }
    perm.insert(perm.end(), moved.begin(), moved.end());
    std::vector<int64_t> permuted;
    for (int64_t p : perm) permuted.push_back(sizes[p]);
    sizes = permuted;
    a = ctx.Op("Transpose", {a}, {Attribute::Ints("perm", perm)});
  }
  const size_t other_rank = other_sizes.size();
  if (other_rank > sizes.size()) return ctx.Invalid("linalg_tensorsolve: other has too many dims");
  const int64_t rows = Product(other_sizes, 0, other_rank);
  const int64_t cols = Product(sizes, other_rank, sizes.size());
  if (rows != cols || Product(sizes, 0, other_rank) != rows) {
    return ctx.Invalid("linalg_tensorsolve: self must be square after reshaping");
  }
  PT2ONNX_RETURN_IF_ERROR(CheckSide(ctx, rows));
  std::string x = SolveSquare(ctx, Reshape(ctx, a, {rows, cols}), Reshape(ctx, b, {rows, 1}), rows,
                              1, dtype).x;
  std::vector<int64_t> out(sizes.begin() + other_rank, sizes.end());
  return ctx.SetOutput(0, Reshape(ctx, x, out));
}

}  // namespace

void RegisterLinalgTensorSolveOps(OpRegistry& r) {
  r.Add("aten::linalg_tensorinv.default", &AtenLinalgTensorinv);
  r.Add("aten::linalg_tensorsolve.default", &AtenLinalgTensorsolve);
}

}  // namespace pt2onnx::ops
