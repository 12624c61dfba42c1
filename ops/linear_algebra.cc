// File: ops/linear_algebra.cc
// -----------------------------------------------------------------------------
// Matrix products: linear, addmm/mm/bmm/matmul and their fused-add variants,
// vector products (mv, dot, outer, vecdot) and chain_matmul. Einsum-based
// contractions (einsum, tensordot, inner, bilinear) are in einsum.cc.
//
// torch.matmul and ONNX MatMul both follow numpy.matmul (1-D operands are
// promoted and the added dimension removed again, batch dimensions broadcast),
// so every matmul-like overload maps onto MatMul without reshapes. Gemm is
// used where torch's semantics are exactly Gemm's (2-D operands, C broadcast
// to (M, N)), which keeps the graph close to torch.onnx's.
//
// Deliberately absent: linalg_inv and the other decompositions (ONNX has no
// Inverse in the default domain; the unsupported-op fixture relies on it).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// Gemm is typed for these (and integers), and torch.onnx emits it for them.
bool IsGemmType(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kDouble ||
         dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
}

// The dtype a product of `dtype` operands is computed in. ONNX MatMul and
// ReduceSum have no int8/int16/uint8 types, so those products run in int32 and
// are cast back: torch's integer products wrap modulo 2^bits, and wrapping
// arithmetic in int32 followed by a narrowing Cast leaves the same low bits.
DataType ProductType(DataType dtype) {
  return dtype == DataType::kInt8 || dtype == DataType::kInt16 || dtype == DataType::kUint8
             ? DataType::kInt32
             : dtype;
}

// x * s, skipping the Mul when s == 1.
std::string ScaleBy(TranslateContext& ctx, const std::string& x, DataType dtype, double s) {
  if (s == 1.0) return x;
  return ctx.Op("Mul", {x, ctx.ConstantScalar(dtype, s)});
}

// beta * self + alpha * product, as torch's add-fused products compute it.
// With beta == 0 `self` is ignored entirely (torch does not propagate NaN/inf
// from it), so it is not even read.
absl::StatusOr<std::string> AddScaledProduct(TranslateContext& ctx, const std::string& product,
                                             DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue beta, ctx.Scalar("beta"));
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue alpha, ctx.Scalar("alpha"));
  if (dtype == DataType::kBool) {
    return ctx.Unsupported("bool operands with beta/alpha are not supported; cast to an integer "
                           "or floating dtype before export");
  }
  std::string scaled = ScaleBy(ctx, product, dtype, alpha.AsDouble());
  if (beta.AsDouble() == 0.0) return scaled;
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputAs("self", dtype));
  return ctx.Op("Add", {ScaleBy(ctx, self, dtype, beta.AsDouble()), scaled});
}

// MatMul of two tensor arguments after casting both to `dtype` (callers pass
// ProductType(output dtype) and cast the result back).
absl::StatusOr<std::string> MatMulArgs(TranslateContext& ctx, absl::string_view a,
                                       absl::string_view b, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string lhs, ctx.InputAs(a, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string rhs, ctx.InputAs(b, dtype));
  return ctx.Op("MatMul", {lhs, rhs});
}

// ---- linear / addmm family ---------------------------------------------------

// aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
absl::Status AtenLinear(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> bias, ctx.OptionalInput("bias"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t input_rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t weight_rank, ctx.InputRank("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  const DataType compute = ProductType(dtype);
  if (compute != dtype) {
    input = ctx.CastTo(input, dtype, compute);
    weight = ctx.CastTo(weight, dtype, compute);
    if (bias) bias = ctx.CastTo(*bias, dtype, compute);
  }

  if (weight_rank == 1) {
    // F.linear with a 1-D weight contracts the last dim away (a dot product
    // per row), exactly MatMul's 1-D rule; a bias then broadcasts as is.
    std::string out = ctx.Op("MatMul", {input, weight});
    if (bias) out = ctx.Op("Add", {out, *bias});
    return ctx.SetOutput(0, ctx.CastTo(out, compute, dtype));
  }
  if (weight_rank != 2) {
    return ctx.Invalid(absl::StrCat("weight has rank ", weight_rank, ", expected 2"));
  }
  if (input_rank == 2 && IsGemmType(dtype)) {
    // Gemm computes input @ weight^T + bias in one node; the weight stays in
    // torch's (out, in) layout, so no Transpose is needed.
    std::vector<std::string> inputs = {input, weight};
    if (bias) inputs.push_back(*bias);
    return ctx.SetOutput(0, ctx.Op("Gemm", inputs, {ir::Attribute::Int("transB", 1)}));
  }
  // The weight is normally an initializer: constant folding turns this
  // Transpose into a pre-transposed initializer.
  std::string weight_t = ctx.Op("Transpose", {weight}, {ir::Attribute::Ints("perm", {1, 0})});
  std::string out = ctx.Op("MatMul", {input, weight_t});
  if (bias) out = ctx.Op("Add", {out, *bias});
  return ctx.SetOutput(0, ctx.CastTo(out, compute, dtype));
}

absl::Status AddmmImpl(TranslateContext& ctx, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue beta, ctx.Scalar("beta"));
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue alpha, ctx.Scalar("alpha"));
  if (IsGemmType(dtype)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string mat1, ctx.InputAs("mat1", dtype));
    PT2ONNX_ASSIGN_OR_RETURN(std::string mat2, ctx.InputAs("mat2", dtype));
    std::vector<std::string> inputs = {mat1, mat2};
    // Gemm's C is optional; leaving it out for beta == 0 also keeps NaN/inf
    // in self from leaking through 0 * C, as in torch.
    if (beta.AsDouble() != 0.0) {
      PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputAs("self", dtype));
      inputs.push_back(self);
    }
    return ctx.SetOutput(
        0, ctx.Op("Gemm", inputs,
                  {ir::Attribute::Float("alpha", static_cast<float>(alpha.AsDouble())),
                   ir::Attribute::Float("beta", static_cast<float>(beta.AsDouble()))}));
  }
  const DataType compute = ProductType(dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "mat1", "mat2", compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, product, compute));
  return ctx.SetOutput(0, ctx.CastTo(out, compute, dtype));
}

// aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status AtenAddmm(TranslateContext& ctx) { return AddmmImpl(ctx, ctx.OutputDtype(0)); }

// aten::addmm.dtype(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1,
//                   Scalar alpha=1) -> Tensor
// The low-precision operands are widened first, which is what accumulating
// in out_dtype amounts to.
absl::Status AtenAddmmDtype(TranslateContext& ctx) { return AddmmImpl(ctx, ctx.OutputDtype(0)); }

// aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1,
//                Scalar alpha=1) -> Tensor
// (Not baddbmm.dtype: torch 2.15 cannot trace it, its meta kernel fails, so no
// exported program holds it to check a translation against.)
absl::Status AtenBaddbmm(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  const DataType compute = ProductType(dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "batch1", "batch2", compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, product, compute));
  return ctx.SetOutput(0, ctx.CastTo(out, compute, dtype));
}

// aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1,
//               Scalar alpha=1) -> Tensor
absl::Status AtenAddbmm(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  const DataType compute = ProductType(dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "batch1", "batch2", compute));
  // addbmm sums the per-batch products.
  std::string summed =
      ctx.Op("ReduceSum", {product, ctx.ConstantInt64s({0})}, {ir::Attribute::Int("keepdims", 0)});
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, summed, compute));
  return ctx.SetOutput(0, ctx.CastTo(out, compute, dtype));
}

// aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status AtenAddmv(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  const DataType compute = ProductType(dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "mat", "vec", compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, product, compute));
  return ctx.SetOutput(0, ctx.CastTo(out, compute, dtype));
}

// aten::addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status AtenAddr(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(std::string vec1, ctx.InputAs("vec1", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string vec2, ctx.InputAs("vec2", dtype));
  std::string outer = ctx.Op("Mul", {Unsqueeze(ctx, vec1, {1}), vec2});
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, outer, dtype));
  return ctx.SetOutput(0, out);
}

// ---- plain products ------------------------------------------------------------

// Shared by the overloads whose result is exactly numpy.matmul(self, <other>):
// mm, bmm, matmul, mv, dot, vdot (real) and linalg_matmul.
absl::Status MatMulOf(TranslateContext& ctx, absl::string_view other) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (IsComplex(dtype)) return ctx.Unsupported("complex operands are not supported");
  const DataType out_dtype = ctx.OutputDtype(0);
  const DataType compute = ProductType(out_dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, MatMulArgs(ctx, "self", other, compute));
  return ctx.SetOutput(0, ctx.CastTo(out, compute, out_dtype));
}

// aten::mm(Tensor self, Tensor mat2) -> Tensor
// aten::bmm(Tensor self, Tensor mat2) -> Tensor
// aten::mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor
// aten::bmm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor
// aten::_int_mm(Tensor self, Tensor mat2) -> Tensor: int8 x int8 summed in int32 (torchao's
// dynamic int8 activation x int8 weight products), a MatMul of the operands widened to int32.
absl::Status AtenMm(TranslateContext& ctx) { return MatMulOf(ctx, "mat2"); }

// aten::matmul(Tensor self, Tensor other) -> Tensor
// aten::linalg_matmul(Tensor self, Tensor other) -> Tensor
// aten::vdot(Tensor self, Tensor other) -> Tensor   (conj is a no-op for real dtypes)
absl::Status AtenMatmul(TranslateContext& ctx) { return MatMulOf(ctx, "other"); }

// aten::mv(Tensor self, Tensor vec) -> Tensor
absl::Status AtenMv(TranslateContext& ctx) { return MatMulOf(ctx, "vec"); }

// aten::dot(Tensor self, Tensor tensor) -> Tensor
// MatMul of two 1-D operands is their 0-d inner product.
absl::Status AtenDot(TranslateContext& ctx) { return MatMulOf(ctx, "tensor"); }

// aten::outer(Tensor self, Tensor vec2) -> Tensor
absl::Status AtenOuter(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string vec2, ctx.InputAs("vec2", dtype));
  // ONNX Mul has no bool variant; on bools the product is And.
  return ctx.SetOutput(0, ctx.Op(dtype == DataType::kBool ? "And" : "Mul", {Unsqueeze(ctx, self, {1}), vec2}));
}

// aten::linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor
absl::Status AtenLinalgVecdot(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  if (IsComplex(dtype)) return ctx.Unsupported("complex operands are not supported");
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("x", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("y", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank_x, ctx.InputRank("x"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank_y, ctx.InputRank("y"));
  // dim indexes the broadcast of x and y.
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, AxisArg(ctx, "dim", std::max(rank_x, rank_y)));
  std::string product = ctx.Op("Mul", {x, y});
  return ctx.SetOutput(0, ctx.Op("ReduceSum", {product, ctx.ConstantInt64s({dim})},
                                 {ir::Attribute::Int("keepdims", 0)}));
}

// aten::chain_matmul(Tensor[] matrices) -> Tensor
absl::Status AtenChainMatmul(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> matrices, ctx.Inputs("matrices"));
  if (matrices.empty()) return ctx.Invalid("chain_matmul needs at least one matrix");
  std::string out = matrices[0];
  for (size_t i = 1; i < matrices.size(); ++i) out = ctx.Op("MatMul", {out, matrices[i]});
  if (matrices.size() == 1) out = ctx.Op("Identity", {out});
  return ctx.SetOutput(0, out);
}

}  // namespace

void RegisterLinearAlgebraOps(OpRegistry& r) {
  r.Add("aten::linear.default", &AtenLinear);
  r.Add("aten::addmm.default", &AtenAddmm);
  r.Add("aten::addmm.dtype", &AtenAddmmDtype);
  r.Add("aten::baddbmm.default", &AtenBaddbmm);
  r.Add("aten::addbmm.default", &AtenAddbmm);
  r.Add("aten::addmv.default", &AtenAddmv);
  r.Add("aten::addr.default", &AtenAddr);
  r.Add("aten::mm.default", &AtenMm);
  r.Add("aten::mm.dtype", &AtenMm);
  r.Add("aten::_int_mm.default", &AtenMm);
  r.Add("aten::bmm.default", &AtenMm);
  r.Add("aten::bmm.dtype", &AtenMm);
  r.Add("aten::matmul.default", &AtenMatmul);
  r.Add("aten::vdot.default", &AtenMatmul);
  r.Add("aten::mv.default", &AtenMv);
  r.Add("aten::dot.default", &AtenDot);
  r.Add("aten::outer.default", &AtenOuter);
  r.Add("aten::linalg_vecdot.default", &AtenLinalgVecdot);
  r.Add("aten::chain_matmul.default", &AtenChainMatmul);
}

}  // namespace pt2onnx::ops
