// File: ops/attention.cc
// -----------------------------------------------------------------------------
// Scaled dot-product attention: aten::scaled_dot_product_attention and the
// backend forms run_decompositions() leaves behind
// (_scaled_dot_product_flash_attention_for_cpu, _flash_attention,
// _efficient_attention).
//
// Decomposed at every opset, following torch's math reference
// (_scaled_dot_product_attention_math in aten/src/ATen/native/transformers/
// attention.cpp):
//
//   s      = sqrt(scale)               scale defaults to 1/sqrt(E)
//   scores = (q * s) @ (k * s)^T       scaling both operands, as torch does,
//                                      keeps fp16 products in range
//   scores = masked / biased scores    bool or causal mask: -inf where masked;
//                                      float mask: added
//   out    = softmax(scores, -1) @ v   rows with every entry masked give 0
//                                      (torch's _safe_softmax), not NaN
//   dropout_p > 0: training-mode dropout of the softmax weights before the
//                  product (ops/random_draws.h), composite op only
//
// enable_gqa repeats each key/value head Hq/Hk times first (static heads).
//
// The causal mask is built from the runtime sizes L = q.size(-2) and
// S = k.size(-2) (Trilu over ones(L, S), top-left aligned as torch's
// ones(L, S).tril()), so symbolic sequence lengths work. ONNX's Attention
// (opset 23) is not used: its masking and GQA conventions differ in ways the
// decomposition does not have to reason about.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/random_draws.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

struct AttentionResult {
  std::string out;
  std::string logsumexp;  // (N..., L) in float; empty unless requested
};

// enable_gqa: torch repeats each key/value head Hq/Hk times along dim -3
// (repeat_interleave), so query head h reads key/value head h / (Hq/Hk).
// Head counts must be static; equal counts need nothing.
absl::StatusOr<std::string> RepeatKeyValueHeads(TranslateContext& ctx, absl::string_view arg,
                                                const std::string& kv,
                                                const pt2::TensorMeta* q_meta) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* kv_meta, ctx.InputMeta(arg));
  const int64_t q_rank = static_cast<int64_t>(q_meta->sizes.size());
  const int64_t rank = static_cast<int64_t>(kv_meta->sizes.size());
  if (q_rank < 3 || rank != q_rank) {
    return ctx.Invalid("enable_gqa=True needs query, key and value of equal rank >= 3");
  }
  const pt2::SymInt& hq = q_meta->sizes[q_rank - 3];
  const pt2::SymInt& hk = kv_meta->sizes[rank - 3];
  if (hq.is_symbolic || hk.is_symbolic) {
    return ctx.Unsupported("enable_gqa=True with a symbolic number of heads");
  }
  if (hk.value <= 0 || hq.value % hk.value != 0) {
    return ctx.Invalid(absl::StrCat("enable_gqa=True: ", hq.value, " query heads are not a "
                                    "multiple of ", hk.value, " ", arg, " heads"));
  }
  if (hq.value == hk.value) return kv;
  // (..., Hk, S, E) -> (..., Hk, G, S, E) -> (..., Hq, S, E)
  std::string expanded = ctx.Op(
      "Expand", {Unsqueeze(ctx, kv, {rank - 2}),
                 ctx.Op("Concat", {ShapeSlice(ctx, kv, 0, rank - 2),
                                   ctx.ConstantInt64s({hq.value / hk.value}),
                                   ShapeSlice(ctx, kv, rank - 2, rank)},
                        {ir::Attribute::Int("axis", 0)})});
  return ctx.Op("Reshape", {expanded, ctx.Op("Concat", {ShapeSlice(ctx, kv, 0, rank - 3),
                                                        ctx.ConstantInt64s({hq.value}),
                                                        ShapeSlice(ctx, kv, rank - 2, rank)},
                                             {ir::Attribute::Int("axis", 0)})});
}

// The decomposition in the file comment. `mask_arg` names the optional
// mask/bias argument ("" for overloads without one).
absl::StatusOr<AttentionResult> EmitAttention(TranslateContext& ctx, absl::string_view mask_arg,
                                              bool want_logsumexp) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, ctx.Input("query"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string k, ctx.Input("key"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string v, ctx.Input("value"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* q_meta, ctx.InputMeta("query"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k_rank, ctx.InputRank("key"));
  const int64_t q_rank = static_cast<int64_t>(q_meta->sizes.size());
  const DataType dtype = q_meta->dtype;
  if (q_rank < 2 || k_rank < 2) return ctx.Invalid("query and key need rank >= 2");
  if (!IsFloatingPoint(dtype)) return ctx.Unsupported("non-floating query");

  PT2ONNX_ASSIGN_OR_RETURN(double dropout_p, ctx.Float("dropout_p"));
  if (!(dropout_p >= 0 && dropout_p <= 1)) {
    return ctx.Invalid(absl::StrCat("dropout_p=", dropout_p, " is outside [0, 1]"));
  }
  // The backend forms carry dropout bookkeeping (rng state, philox seed) no
  // ONNX graph can give; only the composite op's dropout is translated.
  if (dropout_p != 0.0 && ctx.key() != "aten::scaled_dot_product_attention.default") {
    return ctx.Unsupported(absl::StrCat(
        "dropout_p=", dropout_p, " in a fused attention kernel (its random-state outputs have no "
        "ONNX equivalent); export before run_decompositions(), or for inference with dropout_p=0"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(bool is_causal, ctx.Bool("is_causal"));
  if (ctx.Has("enable_gqa")) {
    PT2ONNX_ASSIGN_OR_RETURN(bool gqa, ctx.Bool("enable_gqa"));
    if (gqa) {
      PT2ONNX_ASSIGN_OR_RETURN(k, RepeatKeyValueHeads(ctx, "key", k, q_meta));
      PT2ONNX_ASSIGN_OR_RETURN(v, RepeatKeyValueHeads(ctx, "value", v, q_meta));
    }
  }

  // sqrt(scale), applied to q and k separately.
  std::string sqrt_scale;
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> scale, ctx.OptionalFloat("scale"));
  const pt2::SymInt& e = q_meta->sizes.back();
  if (scale) {
    sqrt_scale = ctx.ConstantScalar(dtype, std::sqrt(*scale));
  } else if (!e.is_symbolic) {
    const double e_size = static_cast<double>(e.value);
    sqrt_scale = ctx.ConstantScalar(dtype, 1.0 / std::sqrt(std::sqrt(e_size)));
  } else {
    std::string e_value =
        ctx.CastTo(ShapeSlice(ctx, q, q_rank - 1, q_rank), DataType::kInt64, dtype);
    sqrt_scale = ctx.Op("Pow", {e_value, ctx.ConstantScalar(dtype, -0.25)});
  }

  std::vector<int64_t> perm;
  for (int64_t i = 0; i < k_rank - 2; ++i) perm.push_back(i);
  perm.push_back(k_rank - 1);
  perm.push_back(k_rank - 2);
  std::string k_t = ctx.Op("Transpose", {k}, {ir::Attribute::Ints("perm", perm)});
  std::string scores =
      ctx.Op("MatMul", {ctx.Op("Mul", {q, sqrt_scale}), ctx.Op("Mul", {k_t, sqrt_scale})});

  const bool has_mask = !mask_arg.empty() && ctx.Has(mask_arg);
  if (is_causal && has_mask) return ctx.Invalid("is_causal=True together with an attention mask");
  std::string neg_inf = ctx.ConstantScalar(dtype, -INFINITY);
  if (is_causal) {
    std::string size = ctx.Op("Concat", {ShapeSlice(ctx, q, q_rank - 2, q_rank - 1),
                                         ShapeSlice(ctx, k, k_rank - 2, k_rank - 1)},
                              {ir::Attribute::Int("axis", 0)});
    std::string ones = ctx.Op("Expand", {ctx.ConstantScalar(DataType::kFloat, 1.0), size});
    std::string keep = ctx.CastTo(ctx.Op("Trilu", {ones}, {ir::Attribute::Int("upper", 0)}),
                                  DataType::kFloat, DataType::kBool);
    scores = ctx.Op("Where", {keep, scores, neg_inf});
  } else if (has_mask) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string mask, ctx.Input(mask_arg));
    PT2ONNX_ASSIGN_OR_RETURN(DataType mask_dtype, ctx.InputDtype(mask_arg));
    if (mask_dtype == DataType::kBool) {
      scores = ctx.Op("Where", {mask, scores, neg_inf});
    } else {
      scores = ctx.Op("Add", {scores, ctx.CastTo(mask, mask_dtype, dtype)});
    }
  }
  std::string weights = ctx.Op("Softmax", {scores}, {ir::Attribute::Int("axis", -1)});
  std::string masked_row;  // bool (..., L, 1): every score -inf
  if (has_mask) {
    // Fully masked rows: softmax over all -inf is NaN; torch (_safe_softmax,
    // and its fused kernels) gives 0, for bool and additive float masks.
    // IsInf takes 16-bit floats only from opset 20.
    std::string s32 = ctx.opset() < 20 && ElementSize(dtype) == 2
                          ? ctx.CastTo(scores, dtype, DataType::kFloat)
                          : scores;
    std::string is_neg_inf =
        ctx.CastTo(ctx.Op("IsInf", {s32}, {ir::Attribute::Int("detect_positive", 0)}),
                   DataType::kBool, DataType::kInt32);
    masked_row = ctx.CastTo(ctx.Op("ReduceMin", {is_neg_inf, ctx.ConstantInt64s({-1})},
                                   {ir::Attribute::Int("keepdims", 1)}),
                            DataType::kInt32, DataType::kBool);
    weights = ctx.Op("Where", {masked_row, ctx.ConstantScalar(dtype, 0.0), weights});
  }
  // torch's math path drops attention weights after the softmax:
  // at::dropout(attn, dropout_p, /*train=*/true).
  weights = ApplyDropout(ctx, weights, dtype, dropout_p, weights);
  AttentionResult result;
  result.out = ctx.Op("MatMul", {weights, v});
  if (want_logsumexp) {
    std::string lse = ctx.Op("ReduceLogSumExp", {scores, ctx.ConstantInt64s({-1})},
                             {ir::Attribute::Int("keepdims", has_mask ? 1 : 0)});
    if (has_mask) {
      // torch's CPU flash kernel reports 0 for a fully masked row.
      lse = ctx.Op("Squeeze",
                   {ctx.Op("Where", {masked_row, ctx.ConstantScalar(dtype, 0.0), lse}),
                    ctx.ConstantInt64s({-1})});
    }
    result.logsumexp = ctx.CastTo(lse, dtype, DataType::kFloat);
  }
  return result;
}

// Static size of dim `dim` (negative: from the back) of tensor `arg`.
std::optional<int64_t> StaticDim(const TranslateContext& ctx, absl::string_view arg,
                                 int64_t dim) {
  absl::StatusOr<const pt2::TensorMeta*> meta = ctx.InputMeta(arg);
  if (!meta.ok() || *meta == nullptr) return std::nullopt;
  const int64_t rank = static_cast<int64_t>((*meta)->sizes.size());
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || (*meta)->sizes[dim].is_symbolic) return std::nullopt;
  return (*meta)->sizes[dim].value;
}

// Outputs an overload cannot produce must be unread.
absl::Status RequireUnused(const TranslateContext& ctx, int first, int last) {
  for (int i = first; i <= last; ++i) {
    if (ctx.OutputUsed(i)) {
      return ctx.Unsupported(absl::StrCat("output ", i, " (backend bookkeeping) is used; only the "
                                          "attention output and logsumexp are supported"));
    }
  }
  return absl::OkStatus();
}

// The flash forms: output 0 and, only when the program reads it, output 1
// (logsumexp, computed in float and cast to the program's dtype).
absl::Status EmitWithLogsumexp(TranslateContext& ctx, absl::string_view mask_arg) {
  const bool lse = ctx.OutputUsed(1);
  PT2ONNX_ASSIGN_OR_RETURN(AttentionResult r, EmitAttention(ctx, mask_arg, lse));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, r.out));
  if (!lse) return absl::OkStatus();
  return ctx.SetOutput(1, ctx.CastTo(r.logsumexp, DataType::kFloat, ctx.OutputDtype(1)));
}

// aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value,
//     Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *,
//     float? scale=None, bool enable_gqa=False) -> Tensor
absl::Status AtenScaledDotProductAttention(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(AttentionResult r, EmitAttention(ctx, "attn_mask", false));
  return ctx.SetOutput(0, r.out);
}

// aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value,
//     float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None,
//     float? scale=None) -> (Tensor output, Tensor logsumexp)
absl::Status AtenScaledDotProductFlashAttentionForCpu(TranslateContext& ctx) {
  return EmitWithLogsumexp(ctx, "attn_mask");
}

// aten::_scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value,
//     float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *,
//     float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q,
//     Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor rng_state, Tensor unused,
//     Tensor debug_attn_mask)
absl::Status AtenScaledDotProductFlashAttention(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(RequireUnused(ctx, 2, 8));
  // The CUDA flash kernel aligns its causal mask to the bottom-right corner
  // when L != S (the other forms: top-left); equal static lengths agree.
  PT2ONNX_ASSIGN_OR_RETURN(bool is_causal, ctx.Bool("is_causal"));
  if (is_causal) {
    std::optional<int64_t> l = StaticDim(ctx, "query", -2), s = StaticDim(ctx, "key", -2);
    if (!l || !s || *l != *s) {
      return ctx.Unsupported(
          "is_causal=True with query and key lengths that are not equal static sizes (the "
          "flash kernel aligns the causal mask bottom-right then); re-export with "
          "F.scaled_dot_product_attention or an explicit mask");
    }
  }
  return EmitWithLogsumexp(ctx, "");
}

// aten::_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value,
//     Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., bool is_causal=False,
//     *, float? scale=None) -> (Tensor output, Tensor log_sumexp, Tensor philox_seed,
//     Tensor philox_offset)
// Its log_sumexp is padded to a multiple of 32 rows on CUDA; not reproduced.
absl::Status AtenScaledDotProductEfficientAttention(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(RequireUnused(ctx, 1, 3));
  PT2ONNX_ASSIGN_OR_RETURN(AttentionResult r, EmitAttention(ctx, "attn_bias", false));
  return ctx.SetOutput(0, r.out);
}

}  // namespace

void RegisterAttentionOps(OpRegistry& r) {
  r.Add("aten::scaled_dot_product_attention.default", &AtenScaledDotProductAttention);
  r.Add("aten::_scaled_dot_product_flash_attention_for_cpu.default",
        &AtenScaledDotProductFlashAttentionForCpu);
  r.Add("aten::_scaled_dot_product_flash_attention.default",
        &AtenScaledDotProductFlashAttention);
  r.Add("aten::_scaled_dot_product_efficient_attention.default",
        &AtenScaledDotProductEfficientAttention);
}

}  // namespace pt2onnx::ops
