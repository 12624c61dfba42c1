// File: ops/linear_algebra.cc
// -----------------------------------------------------------------------------
// Matrix products: linear, addmm/mm/bmm/matmul and their fused-add variants,
// vector products (mv, dot, outer, vecdot) and Einsum-based contractions
// (einsum, tensordot, inner, bilinear).
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
#include "ops/families.h"
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

// MatMul of two tensor arguments after casting both to `dtype`.
absl::StatusOr<std::string> MatMulArgs(TranslateContext& ctx, absl::string_view a,
                                       absl::string_view b, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string lhs, ctx.InputAs(a, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string rhs, ctx.InputAs(b, dtype));
  return ctx.Op("MatMul", {lhs, rhs});
}

// Einsum over tensor arguments cast to the output dtype.
absl::StatusOr<std::string> EinsumArgs(TranslateContext& ctx,
                                       const std::vector<absl::string_view>& args,
                                       const std::string& equation) {
  DataType dtype = ctx.OutputDtype(0);
  std::vector<std::string> inputs;
  for (absl::string_view arg : args) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.InputAs(arg, dtype));
    inputs.push_back(value);
  }
  return ctx.Op("Einsum", inputs, {ir::Attribute::String("equation", equation)});
}

char Letter(int i) { return static_cast<char>(i < 26 ? 'a' + i : 'A' + (i - 26)); }

// ---- linear / addmm family ---------------------------------------------------

// aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
absl::Status AtenLinear(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> bias, ctx.OptionalInput("bias"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t input_rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t weight_rank, ctx.InputRank("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));

  if (weight_rank == 1) {
    // F.linear with a 1-D weight contracts the last dim away (a dot product
    // per row), exactly MatMul's 1-D rule; a bias then broadcasts as is.
    std::string out = ctx.Op("MatMul", {input, weight});
    if (bias) out = ctx.Op("Add", {out, *bias});
    return ctx.SetOutput(0, out);
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
  return ctx.SetOutput(0, out);
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
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "mat1", "mat2", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, product, dtype));
  return ctx.SetOutput(0, out);
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
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "batch1", "batch2", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, product, dtype));
  return ctx.SetOutput(0, out);
}

// aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1,
//               Scalar alpha=1) -> Tensor
absl::Status AtenAddbmm(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "batch1", "batch2", dtype));
  // addbmm sums the per-batch products.
  std::string summed =
      ctx.Op("ReduceSum", {product, ctx.ConstantInt64s({0})}, {ir::Attribute::Int("keepdims", 0)});
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, summed, dtype));
  return ctx.SetOutput(0, out);
}

// aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status AtenAddmv(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  PT2ONNX_ASSIGN_OR_RETURN(std::string product, MatMulArgs(ctx, "mat", "vec", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, AddScaledProduct(ctx, product, dtype));
  return ctx.SetOutput(0, out);
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
  PT2ONNX_ASSIGN_OR_RETURN(std::string out, MatMulArgs(ctx, "self", other, ctx.OutputDtype(0)));
  return ctx.SetOutput(0, out);
}

// aten::mm(Tensor self, Tensor mat2) -> Tensor
// aten::bmm(Tensor self, Tensor mat2) -> Tensor
// aten::mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor
// aten::bmm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor
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
  return ctx.SetOutput(0, ctx.Op("Mul", {Unsqueeze(ctx, self, {1}), vec2}));
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

// ---- Einsum-based contractions ---------------------------------------------------

// aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
// Letters of one einsum term and whether it holds the one allowed "...";
// false for any other character.
bool ParseEinsumTerm(absl::string_view term, std::string& letters, bool& ellipsis) {
  for (size_t i = 0; i < term.size();) {
    if (term[i] == '.') {
      if (ellipsis || term.substr(i, 3) != "...") return false;
      ellipsis = true;
      i += 3;
    } else if (absl::ascii_isalpha(static_cast<unsigned char>(term[i]))) {
      letters.push_back(term[i++]);
    } else {
      return false;
    }
  }
  return true;
}

// torch's einsum rules, checked here because the ONNX Einsum that would
// carry a bad equation is only caught by shape inference, which the browser
// build lacks: one term per operand, as many subscripts as the operand has
// dims (at most, with "..."), output subscripts from the inputs and unique.
absl::Status CheckEinsumEquation(TranslateContext& ctx, absl::string_view equation,
                                 size_t operands) {
  if (operands == 0) return ctx.Invalid("einsum needs at least one tensor in 'tensors'");
  size_t arrow = equation.find("->");
  std::vector<absl::string_view> terms = absl::StrSplit(equation.substr(0, arrow), ',');
  if (terms.size() != operands) {
    return ctx.Invalid(absl::StrCat("the equation '", equation, "' has ", terms.size(),
                                    " operand term(s) but 'tensors' holds ", operands));
  }
  std::string seen;
  bool any_ellipsis = false;
  for (size_t j = 0; j < terms.size(); ++j) {
    std::string letters;
    bool ellipsis = false;
    if (!ParseEinsumTerm(terms[j], letters, ellipsis)) {
      return ctx.Invalid(absl::StrCat("einsum term '", terms[j],
                                      "' may hold only letters and one '...'"));
    }
    const pt2::TensorMeta* meta = ctx.InputListMeta("tensors", j);
    if (meta != nullptr) {
      size_t rank = meta->sizes.size();
      if (ellipsis ? letters.size() > rank : letters.size() != rank) {
        return ctx.Invalid(absl::StrCat("einsum term '", terms[j], "' names ", letters.size(),
                                        " dims but operand ", j, " has ", rank));
      }
    }
    seen += letters;
    any_ellipsis = any_ellipsis || ellipsis;
  }
  if (arrow == absl::string_view::npos) return absl::OkStatus();
  std::string out;
  bool out_ellipsis = false;
  if (!ParseEinsumTerm(equation.substr(arrow + 2), out, out_ellipsis)) {
    return ctx.Invalid(absl::StrCat("einsum output '", equation.substr(arrow + 2),
                                    "' may hold only letters and one '...'"));
  }
  if (out_ellipsis && !any_ellipsis) return ctx.Invalid("einsum output has '...' but no input has");
  for (size_t i = 0; i < out.size(); ++i) {
    if (seen.find(out[i]) == std::string::npos || out.find(out[i], i + 1) != std::string::npos) {
      return ctx.Invalid(absl::StrCat("einsum output subscript '", std::string(1, out[i]),
                                      "' is not in any input or appears twice"));
    }
  }
  return absl::OkStatus();
}

absl::Status AtenEinsum(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string equation, ctx.String("equation"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  // torch tolerates blanks around terms; ONNX's grammar is stricter. `path`
  // only orders the contractions, which Einsum decides itself.
  equation = absl::StrReplaceAll(equation, {{" ", ""}});
  PT2ONNX_RETURN_IF_ERROR(CheckEinsumEquation(ctx, equation, tensors.size()));
  // Einsum needs operands of one type: bring any other to the result's.
  const DataType dtype = ctx.OutputDtype(0);
  for (size_t j = 0; j < tensors.size(); ++j) {
    const pt2::TensorMeta* meta = ctx.InputListMeta("tensors", j);
    if (meta != nullptr) tensors[j] = ctx.CastTo(tensors[j], meta->dtype, dtype);
  }
  return ctx.SetOutput(
      0, ctx.Op("Einsum", tensors, {ir::Attribute::String("equation", equation)}));
}

// aten::tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor
// Spelled as an Einsum: contracted dims share a letter, the result lists the
// free dims of self then those of other (torch's order).
absl::Status AtenTensordot(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank_a, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank_b, ctx.InputRank("other"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims_a, ctx.Ints("dims_self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims_b, ctx.Ints("dims_other"));
  if (dims_a.size() != dims_b.size()) {
    return ctx.Invalid("dims_self and dims_other have different lengths");
  }
  if (rank_a + rank_b > 52) return ctx.Unsupported("more than 52 dimensions in total");
  PT2ONNX_ASSIGN_OR_RETURN(dims_a, CheckedAxes(ctx, "dims_self", dims_a, rank_a));
  PT2ONNX_ASSIGN_OR_RETURN(dims_b, CheckedAxes(ctx, "dims_other", dims_b, rank_b));
  if (rank_a == 0 || rank_b == 0) {
    if (!dims_a.empty()) return ctx.Invalid("tensordot contracts a dim of a 0-d tensor");
  }
  std::string sub_a(rank_a, ' '), sub_b(rank_b, ' '), out;
  int next = 0;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    char c = Letter(next++);
    int64_t da = dims_a[i], db = dims_b[i];  // a 0-d operand still passes 0
    if (da < 0 || da >= rank_a || db < 0 || db >= rank_b) return ctx.Invalid("dim out of range");
    sub_a[da] = c;
    sub_b[db] = c;
  }
  for (char& c : sub_a) {
    if (c == ' ') out.push_back(c = Letter(next++));
  }
  for (char& c : sub_b) {
    if (c == ' ') out.push_back(c = Letter(next++));
  }
  PT2ONNX_ASSIGN_OR_RETURN(
      std::string result,
      EinsumArgs(ctx, {"self", "other"}, absl::StrCat(sub_a, ",", sub_b, "->", out)));
  return ctx.SetOutput(0, result);
}

// aten::inner(Tensor self, Tensor other) -> Tensor
// Contracts the last dims: result dims are self.shape[:-1] + other.shape[:-1].
absl::Status AtenInner(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank_a, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank_b, ctx.InputRank("other"));
  DataType dtype = ctx.OutputDtype(0);
  if (rank_a == 0 || rank_b == 0) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
    PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("other", dtype));
    return ctx.SetOutput(0, ctx.Op("Mul", {a, b}));
  }
  if (rank_a + rank_b > 51) return ctx.Unsupported("more than 51 dimensions in total");
  std::string sub_a, sub_b;
  int next = 1;
  for (int64_t i = 0; i + 1 < rank_a; ++i) sub_a.push_back(Letter(next++));
  for (int64_t i = 0; i + 1 < rank_b; ++i) sub_b.push_back(Letter(next++));
  std::string equation = absl::StrCat(sub_a, "a,", sub_b, "a->", sub_a, sub_b);
  PT2ONNX_ASSIGN_OR_RETURN(std::string result, EinsumArgs(ctx, {"self", "other"}, equation));
  return ctx.SetOutput(0, result);
}

// aten::bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor
// y[..., o] = sum_ij x1[..., i] * W[o, i, j] * x2[..., j] + b[o]
absl::Status AtenBilinear(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string out,
                           EinsumArgs(ctx, {"input1", "weight", "input2"}, "...i,oij,...j->...o"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> bias, ctx.OptionalInput("bias"));
  if (bias) out = ctx.Op("Add", {out, *bias});
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
  r.Add("aten::bmm.default", &AtenMm);
  r.Add("aten::bmm.dtype", &AtenMm);
  r.Add("aten::matmul.default", &AtenMatmul);
  r.Add("aten::linalg_matmul.default", &AtenMatmul);
  r.Add("aten::vdot.default", &AtenMatmul);
  r.Add("aten::mv.default", &AtenMv);
  r.Add("aten::dot.default", &AtenDot);
  r.Add("aten::outer.default", &AtenOuter);
  r.Add("aten::linalg_vecdot.default", &AtenLinalgVecdot);
  r.Add("aten::chain_matmul.default", &AtenChainMatmul);
  r.Add("aten::einsum.default", &AtenEinsum);
  r.Add("aten::tensordot.default", &AtenTensordot);
  r.Add("aten::inner.default", &AtenInner);
  r.Add("aten::bilinear.default", &AtenBilinear);
}

}  // namespace pt2onnx::ops
