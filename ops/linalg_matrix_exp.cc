// File: ops/linalg_matrix_exp.cc
// -----------------------------------------------------------------------------
// matrix_exp by scaling and squaring, as torch's mexp
// (aten/src/ATen/native/LinearAlgebra.cpp) computes it: each matrix is
// scaled by 2^-s so that its 1-norm is at most 1, a degree-18 polynomial
// approximates exp there and the result is squared s times. torch picks the
// polynomial degree from the norm (and runs in the input dtype); here the
// polynomial is the degree-18 Taylor sum in float64 (truncation error below
// 1/19! for a norm of 1), which leaves float64 rounding as the error for
// every norm. The squarings are an ONNX Loop over the batch's largest s,
// each matrix squared only while its own count lasts. Only MatMuls: any
// static matrix size.
#include <cmath>
#include <cstdint>
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
constexpr int kTaylorDegree = 18;
// Squarings at most: 2^128 scales any float32 norm (and float64 norms
// beyond it overflow exp anyway).
constexpr double kMaxSquarings = 128;

// aten::matrix_exp(Tensor self) -> Tensor
absl::Status AtenMatrixExp(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("matrix_exp of dtype ", DataTypeName(dtype),
                                        " (float32 and float64 are translated)"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  const size_t rank = meta->sizes.size();
  if (rank < 2) return ctx.Invalid("matrix_exp needs a batch of square matrices");
  const pt2::SymInt& rows = meta->sizes[rank - 2];
  const pt2::SymInt& cols = meta->sizes[rank - 1];
  if (rows.is_symbolic || cols.is_symbolic) {
    return ctx.Unsupported("matrix_exp of a symbolic matrix size (export with static sizes for "
                           "the last two dims)");
  }
  if (rows.value != cols.value) return ctx.Invalid("matrix_exp needs square matrices");
  const int64_t n = rows.value;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", kF64));
  if (n == 0) return ctx.SetOutput(0, ctx.CastTo(a, kF64, dtype));
  auto k = [&](double v) { return ctx.ConstantScalar(kF64, v); };
  // s = ceil(log2(|A|_1)) clipped to [0, kMaxSquarings] (NaN: 0), (..., 1, 1).
  std::string norm = ctx.Op("ReduceMax", {ctx.Op("ReduceSum", {ctx.Op("Abs", {a}), ctx.ConstantInt64s({-2})},
                                                 {Attribute::Int("keepdims", 1)}),
                                          ctx.ConstantInt64s({-1})},
                            {Attribute::Int("keepdims", 1)});
  std::string s = ctx.Op("Ceil", {ctx.Op("Div", {ctx.Op("Log", {norm}), k(std::log(2.0))})});
  s = ctx.Op("Where", {ctx.Op("IsNaN", {s}), k(0), s});
  s = ctx.Op("Min", {ctx.Op("Max", {s, k(0)}), k(kMaxSquarings)});
  std::string x = ctx.Op("Div", {a, ctx.Op("Pow", {k(2), s})});
  std::string eye = ctx.CastTo(ConstantMask(ctx, n, n, [](int64_t i, int64_t j) { return i == j; }),
                               DataType::kBool, kF64);
  // Horner: I + X/1 (I + X/2 (... (I + X/18))).
  std::string e = eye;
  for (int i = kTaylorDegree; i >= 1; --i) {
    e = ctx.Op("Add", {eye, ctx.Op("Div", {ctx.Op("MatMul", {x, e}), k(i)})});
  }
  // The batch's largest s as the trip count (0 for an empty batch).
  std::string flat = ctx.Op("Concat", {ctx.Op("Reshape", {s, ctx.ConstantInt64s({-1})}),
                                       ctx.Op("Reshape", {k(0), ctx.ConstantInt64s({1})})},
                            {Attribute::Int("axis", 0)});
  std::string trips = ctx.CastTo(ctx.Op("ReduceMax", {flat}, {Attribute::Int("keepdims", 0)}), kF64,
                                 DataType::kInt64);
  auto body = [&](const std::string& iteration, const std::vector<std::string>& c) {
    std::string i = ctx.CastTo(iteration, DataType::kInt64, kF64);
    std::string squared = ctx.Op("MatMul", {c[0], c[0]});
    return std::vector<std::string>{ctx.Op("Where", {ctx.Op("Less", {i, s}), squared, c[0]})};
  };
  std::vector<std::string> out =
      RunLoop(ctx, trips, {e}, {MatrixDims(static_cast<int64_t>(rank), n, n)}, body);
  return ctx.SetOutput(0, ctx.CastTo(out[0], kF64, dtype));
}

}  // namespace

void RegisterLinalgMatrixExpOps(OpRegistry& r) { r.Add("aten::matrix_exp.default", &AtenMatrixExp); }

}  // namespace pt2onnx::ops
