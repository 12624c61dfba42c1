// Reference kernels: scaled dot-product attention as torch's math path
// defines it: softmax(q @ k^T * scale + mask) @ v in double, causal and bool
// masks as -inf, rows with every score masked give 0 (torch's
// _safe_softmax), grouped-query heads repeated when enable_gqa; dropout_p > 0
// (the composite op only) drops weights after the softmax.
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "reference/random_draws.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

struct AttentionResult {
  Tensor output;
  Tensor logsumexp;
};

// `mask_name` null: the overload has no mask argument. `causal_bottom_right`:
// the causal mask keeps key j for query i when j <= i + S - L (CUDA flash),
// else when j <= i (the other forms, top-left aligned).
// `allow_dropout`: dropout_p > 0 drops attention weights as torch's math path
// does (at::dropout(attn, dropout_p, true): keep with 1 - p, scale by
// 1 / (1 - p), p == 1 gives zeros); the backend forms refuse it.
absl::StatusOr<AttentionResult> Attend(RefCall& call, const char* mask_name, bool gqa_arg,
                                       bool causal_bottom_right = false, bool allow_dropout = false) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor q, call.Input("query"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor k, call.Input("key"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v, call.Input("value"));
  std::optional<Tensor> mask;
  if (mask_name != nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(mask, call.OptionalInput(mask_name));
  }
  PT2ONNX_ASSIGN_OR_RETURN(double dropout_p, call.Double("dropout_p"));
  PT2ONNX_ASSIGN_OR_RETURN(bool is_causal, call.Bool("is_causal"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> scale_arg, call.OptionalDouble("scale"));
  bool gqa = false;
  if (gqa_arg) {
    PT2ONNX_ASSIGN_OR_RETURN(gqa, call.Bool("enable_gqa"));
  }
  if (!(dropout_p >= 0 && dropout_p <= 1)) return call.Invalid("dropout_p is outside [0, 1]");
  if (dropout_p != 0 && !allow_dropout) {
    return call.Unsupported("dropout in a fused attention kernel (its random state has no reference)");
  }
  RandomStream stream;
  const double keep_scale = dropout_p == 1 ? 0 : 1 / (1 - dropout_p);
  if (q.rank() < 2 || k.rank() != q.rank() || v.rank() != q.rank()) return call.Invalid("q, k, v ranks differ");
  const int64_t r = q.rank();
  const int64_t L = q.dims()[r - 2], E = q.dims()[r - 1], S = k.dims()[r - 2], Ev = v.dims()[r - 1];
  if (k.dims()[r - 1] != E || v.dims()[r - 2] != S) return call.Invalid("key/value sizes do not match the query");
  // Batch dims: q's; k/v broadcast, with heads (dim -3) repeated under GQA.
  Dims batch(q.dims().begin(), q.dims().end() - 2);
  Dims kb(k.dims().begin(), k.dims().end() - 2), vb(v.dims().begin(), v.dims().end() - 2);
  int64_t kv_repeat = 1;
  if (gqa && r >= 3 && kb[r - 3] != batch[r - 3]) {
    if (kb[r - 3] == 0 || batch[r - 3] % kb[r - 3] != 0) return call.Invalid("query heads must be a multiple of key heads");
    kv_repeat = batch[r - 3] / kb[r - 3];
  }
  const int64_t causal_shift = causal_bottom_right ? S - L : 0;
  const double scale = scale_arg.value_or(1.0 / std::sqrt(static_cast<double>(E)));
  std::vector<double> qv = ToDoubles(q), kv = ToDoubles(k), vv = ToDoubles(v);
  std::vector<double> mv;
  std::vector<int64_t> mask_index;
  bool bool_mask = false;
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  if (mask) {
    bool_mask = mask->dtype() == DataType::kBool;
    Dims full = batch;
    full.push_back(L);
    full.push_back(S);
    PT2ONNX_ASSIGN_OR_RETURN(Dims check, BroadcastDims(mask->dims(), full));
    if (check != full) return call.Invalid("attn_mask does not broadcast to the scores");
    mask_index = BroadcastIndices(mask->dims(), full);
    mv = ToDoubles(*mask);
  }
  // Index of each batch entry in k/v after GQA repetition and broadcasting.
  auto kv_batch_index = [&](const Dims& kvdims, int64_t flat) {
    int64_t index = 0, stride = 1;
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
      int64_t pos = flat % batch[d];
      flat /= batch[d];
      if (d == r - 3) pos /= kv_repeat;
      const int64_t size = kvdims[d];
      index += (size == 1 ? 0 : pos) * stride;
      stride *= size;
    }
    return index;
  };
  std::vector<double> out(nb * L * Ev, 0.0), lse(nb * L, 0.0), scores(S);
  for (int64_t b = 0; b < nb; ++b) {
    const double* qb = qv.data() + b * L * E;
    const double* kbp = kv.data() + kv_batch_index(kb, b) * S * E;
    const double* vbp = vv.data() + kv_batch_index(vb, b) * S * Ev;
    for (int64_t i = 0; i < L; ++i) {
      double mx = -INFINITY;
      for (int64_t j = 0; j < S; ++j) {
        double s = 0;
        for (int64_t e = 0; e < E; ++e) s += qb[i * E + e] * kbp[j * E + e];
        s *= scale;
        if (is_causal && j > i + causal_shift) s = -INFINITY;
        if (mask) {
          const double m = mv[mask_index[(b * L + i) * S + j]];
          if (bool_mask) {
            if (m == 0) s = -INFINITY;
          } else {
            s += m;
          }
        }
        scores[j] = s;
        mx = std::max(mx, s);
      }
      double* o = out.data() + (b * L + i) * Ev;
      if (std::isinf(mx) && mx < 0) {
        lse[b * L + i] = 0;  // every score masked: zeros, and torch's CPU kernel reports 0
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < S; ++j) sum += std::exp(scores[j] - mx);
      lse[b * L + i] = mx + std::log(sum);
      for (int64_t j = 0; j < S; ++j) {
        double p = std::exp(scores[j] - mx) / sum;
        if (dropout_p != 0) p *= stream.Uniform() < 1 - dropout_p ? keep_scale : 0.0;
        for (int64_t e = 0; e < Ev; ++e) o[e] += p * vbp[j * Ev + e];
      }
    }
  }
  Dims out_dims = batch;
  out_dims.push_back(L);
  out_dims.push_back(Ev);
  Dims lse_dims = batch;
  lse_dims.push_back(L);
  AttentionResult result;
  PT2ONNX_ASSIGN_OR_RETURN(result.output, FromDoubles(q.dtype(), out_dims, out));
  const DataType lse_dtype = call.OutputDtype(1) == DataType::kUndefined ? DataType::kFloat : call.OutputDtype(1);
  PT2ONNX_ASSIGN_OR_RETURN(result.logsumexp, FromDoubles(lse_dtype, lse_dims, lse));
  return result;
}

// aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
absl::Status Sdpa(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(AttentionResult r, Attend(call, "attn_mask", true, false, /*allow_dropout=*/true));
  PT2ONNX_ASSIGN_OR_RETURN(double dropout_p, call.Double("dropout_p"));
  if (dropout_p != 0) return SetRandom(call, std::move(r.output));
  return call.SetTensor(r.output);
}
// aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)
absl::Status SdpaFlashCpu(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(AttentionResult r, Attend(call, "attn_mask", false));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(r.output));
  return call.SetTensor(r.logsumexp);
}

// aten::_scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor rng_state, Tensor unused, Tensor debug_attn_mask)
// Output and logsumexp as the CUDA kernel defines them; max_q / max_k are
// the lengths; the rest is backend bookkeeping, refused if read.
absl::Status SdpaFlash(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool debug_mask, call.Bool("return_debug_mask"));
  if (debug_mask) return call.Unsupported("return_debug_mask=True (dropout bookkeeping)");
  PT2ONNX_ASSIGN_OR_RETURN(AttentionResult r, Attend(call, nullptr, false, /*causal_bottom_right=*/true));
  const int64_t l = r.output.dims()[r.output.rank() - 2];
  PT2ONNX_ASSIGN_OR_RETURN(Tensor key, call.Input("key"));
  const int64_t s = key.dims()[key.rank() - 2];
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(r.output));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(r.logsumexp));
  const char* why = "backend bookkeeping of the flash kernel; only output and logsumexp are computed";
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable(std::string("cum_seq_q: ") + why)));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable(std::string("cum_seq_k: ") + why)));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::OfInt(l)));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::OfInt(s)));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable(std::string("rng_state: ") + why)));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable(std::string("unused: ") + why)));
  return call.Set(RefValue::Unavailable(std::string("debug_attn_mask: ") + why));
}

// aten::_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, *, float? scale=None) -> (Tensor output, Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset)
// The output only: the CUDA log_sumexp pads its rows to a multiple of 32
// with values the kernel leaves unspecified, and the rest is dropout state.
absl::Status SdpaEfficient(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(AttentionResult r, Attend(call, "attn_bias", false));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(r.output));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable(
      "log_sumexp of the memory-efficient kernel (rows padded to a multiple of 32 on CUDA)")));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable("philox_seed: dropout state")));
  return call.Set(RefValue::Unavailable("philox_offset: dropout state"));
}

}  // namespace

void RegisterAttentionRef(RefRegistry& r) {
  r.Add("aten::scaled_dot_product_attention.default", Sdpa);
  r.Add("aten::_scaled_dot_product_flash_attention_for_cpu.default", SdpaFlashCpu);
  r.Add("aten::_scaled_dot_product_flash_attention.default", SdpaFlash);
  r.Add("aten::_scaled_dot_product_efficient_attention.default", SdpaEfficient);
}

}  // namespace pt2onnx::reference
