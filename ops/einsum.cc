// File: ops/einsum.cc
// -----------------------------------------------------------------------------
// Einsum-based contractions: einsum itself, tensordot, inner and bilinear,
// each one ONNX Einsum node in the output dtype. Matrix and vector products
// (MatMul / Gemm) are in linear_algebra.cc.
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
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

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
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta_a, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta_b, ctx.InputMeta("other"));
  std::string sub_a(rank_a, ' '), sub_b(rank_b, ' '), out;
  int next = 0;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    char c = Letter(next++);
    int64_t da = dims_a[i], db = dims_b[i];  // a 0-d operand still passes 0
    if (da < 0 || da >= rank_a || db < 0 || db >= rank_b) return ctx.Invalid("dim out of range");
    sub_a[da] = c;
    sub_b[db] = c;
    // A pair whose one side is 1: torch sums the other side over it alone
    // (aten/src/ATen/native/Linear.cpp, tensordot), so the two get letters
    // of their own, both summed (Einsum letters that meet must match).
    const pt2::SymInt& sa = meta_a->sizes[da];
    const pt2::SymInt& sb = meta_b->sizes[db];
    if (sa.is_symbolic || sb.is_symbolic || sa.value == sb.value) continue;
    if (sa.value != 1 && sb.value != 1) {
      return ctx.Invalid(absl::StrCat("contracted dimensions need to match, but first has size ", sa.value,
                                      " in dim ", da, " and second has size ", sb.value, " in dim ", db));
    }
    sub_b[db] = Letter(next++);
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
  // ONNX Runtime's Einsum crashes on an empty batch; the result is empty anyway.
  if (std::optional<std::string> empty = StaticEmptyOutput(ctx, 0)) return ctx.SetOutput(0, *empty);
  PT2ONNX_ASSIGN_OR_RETURN(std::string out,
                           EinsumArgs(ctx, {"input1", "weight", "input2"}, "...i,oij,...j->...o"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> bias, ctx.OptionalInput("bias"));
  if (bias) out = ctx.Op("Add", {out, *bias});
  return ctx.SetOutput(0, out);
}

}  // namespace

void RegisterEinsumOps(OpRegistry& r) {
  r.Add("aten::einsum.default", &AtenEinsum);
  r.Add("aten::tensordot.default", &AtenTensordot);
  r.Add("aten::inner.default", &AtenInner);
  r.Add("aten::bilinear.default", &AtenBilinear);
}

}  // namespace pt2onnx::ops
