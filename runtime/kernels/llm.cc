// File: runtime/kernels/llm.cc
// -----------------------------------------------------------------------------
// Attention-23/24, RotaryEmbedding-23 (float32; half types go through the
// session's float32 conversion) and TensorScatter-24, following torch.onnx.ops'
// reference implementations: the causal mask is top-left aligned (tril of
// ones(L, S)), key/value heads are shared by consecutive query heads.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

absl::Status RequireFloat(const Tensor& t, const char* what) {
  if (t.dtype() != DataType::kFloat) return UnsupportedDtype(what, t.dtype());
  return absl::OkStatus();
}

class RotaryEmbeddingKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    interleaved_ = AttrInt(info.node, "interleaved", 0) != 0;
    num_heads_ = AttrInt(info.node, "num_heads", 0);
    rotary_dim_ = AttrInt(info.node, "rotary_embedding_dim", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(cos, 1);
    PT2ONNX_INPUT(sin, 2);
    const Tensor* positions = ctx.input(3);
    for (const Tensor* t : {&x, &cos, &sin}) {
      PT2ONNX_RETURN_IF_ERROR(RequireFloat(*t, "RotaryEmbedding"));
    }
    int64_t batch, heads, seq, head;
    bool bhsd;  // 4-D (batch, heads, seq, head); else 3-D (batch, seq, heads*head)
    if (x.rank() == 4) {
      batch = x.dim(0), heads = x.dim(1), seq = x.dim(2), head = x.dim(3), bhsd = true;
    } else if (x.rank() == 3 && num_heads_ > 0 && x.dim(2) % num_heads_ == 0) {
      batch = x.dim(0), seq = x.dim(1), heads = num_heads_, head = x.dim(2) / num_heads_, bhsd = false;
    } else {
      return absl::InvalidArgumentError("RotaryEmbedding: x must be 4-D, or 3-D with num_heads dividing its last dim");
    }
    const int64_t rot = rotary_dim_ == 0 ? head : rotary_dim_;
    if (rot <= 0 || rot > head || rot % 2 != 0) return absl::InvalidArgumentError("RotaryEmbedding: bad rotary_embedding_dim");
    const int64_t half = rot / 2;
    const bool by_position = positions != nullptr;
    if (by_position) {
      if (positions->dtype() != DataType::kInt64 || positions->rank() != 2 || positions->dim(0) != batch ||
          positions->dim(1) != seq || cos.rank() != 2 || cos.dims() != sin.dims() || cos.dim(1) != half) {
        return absl::InvalidArgumentError("RotaryEmbedding: position_ids (batch, seq) int64 need 2-D caches (rows, rot/2)");
      }
    } else if (cos.rank() != 3 || cos.dims() != sin.dims() || cos.dim(0) != batch || cos.dim(1) != seq ||
               cos.dim(2) != half) {
      return absl::InvalidArgumentError("RotaryEmbedding: caches must be (batch, seq, rot/2) without position_ids");
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    const float* xs = x.data<float>();
    float* ys = (out)->data<float>();
    std::memcpy(ys, xs, x.byte_size());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t s = 0; s < seq; ++s) {
        int64_t row = b * seq + s;
        if (by_position) {
          const int64_t p = positions->data<int64_t>()[b * seq + s];
          if (p < 0 || p >= cos.dim(0)) return absl::InvalidArgumentError("RotaryEmbedding: position id out of range");
          row = p;
        }
        const float* c = cos.data<float>() + row * half;
        const float* sn = sin.data<float>() + row * half;
        for (int64_t h = 0; h < heads; ++h) {
          const int64_t base = bhsd ? ((b * heads + h) * seq + s) * head : ((b * seq + s) * heads + h) * head;
          for (int64_t i = 0; i < half; ++i) {
            const int64_t i1 = interleaved_ ? 2 * i : i;
            const int64_t i2 = interleaved_ ? 2 * i + 1 : i + half;
            const float x1 = xs[base + i1], x2 = xs[base + i2];
            ys[base + i1] = c[i] * x1 - sn[i] * x2;
            ys[base + i2] = sn[i] * x1 + c[i] * x2;
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool interleaved_ = false;
  int64_t num_heads_ = 0, rotary_dim_ = 0;
};

// Offset of element (b, h, l, s) of a tensor broadcast to (B, H, L, S).
int64_t BroadcastOffset(const Tensor& t, int64_t b, int64_t h, int64_t l, int64_t s) {
  const int64_t idx[4] = {b, h, l, s};
  int64_t offset = 0, stride = 1;
  for (int64_t d = t.rank() - 1, k = 3; d >= 0; --d, --k) {
    const int64_t size = t.dim(d);
    if (size != 1) offset += idx[k] * stride;
    stride *= size;
  }
  return offset;
}

class AttentionKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    causal_ = AttrInt(info.node, "is_causal", 0) != 0;
    has_scale_ = HasAttr(info.node, "scale");
    scale_ = AttrFloat(info.node, "scale", 0);
    softcap_ = AttrFloat(info.node, "softcap", 0);
    qk_mode_ = AttrInt(info.node, "qk_matmul_output_mode", 0);
    if (HasAttr(info.node, "softmax_precision")) {
      return absl::UnimplementedError("Attention with softmax_precision");
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(q, 0);
    PT2ONNX_INPUT(k_in, 1);
    PT2ONNX_INPUT(v_in, 2);
    const Tensor* mask = ctx.input(3);
    const Tensor* past_k = ctx.input(4);
    const Tensor* past_v = ctx.input(5);
    for (const Tensor* t : {&q, &k_in, &v_in, past_k, past_v}) {
      if (t == nullptr) continue;
      if (t->rank() != 4) return absl::UnimplementedError("Attention: only 4-D Q/K/V and caches");
      PT2ONNX_RETURN_IF_ERROR(RequireFloat(*t, "Attention"));
    }
    if ((past_k == nullptr) != (past_v == nullptr)) return absl::InvalidArgumentError("Attention: past_key without past_value");
    PT2ONNX_ASSIGN_OR_RETURN(auto present_k, Concat(past_k, k_in, ctx, 1));
    PT2ONNX_ASSIGN_OR_RETURN(auto present_v, Concat(past_v, v_in, ctx, 2));
    const Tensor& k = present_k;
    const Tensor& v = present_v;
    const int64_t B = q.dim(0), Hq = q.dim(1), L = q.dim(2), E = q.dim(3);
    const int64_t Hk = k.dim(1), S = k.dim(2), Ev = v.dim(3);
    if (k.dim(0) != B || v.dim(0) != B || k.dim(3) != E || v.dim(1) != Hk || v.dim(2) != S || Hk <= 0 || Hq % Hk != 0) {
      return absl::InvalidArgumentError("Attention: Q/K/V shapes do not agree");
    }
    // Attention-24: a mask shorter than the keys masks the rest.
    int64_t mask_keys = S;
    if (mask != nullptr) {
      if (mask->rank() > 4 || (mask->dtype() != DataType::kBool && mask->dtype() != DataType::kFloat)) {
        return absl::InvalidArgumentError("Attention: attn_mask must be bool or float of rank <= 4");
      }
      const int64_t want[4] = {B, Hq, L, S};
      for (int64_t d = mask->rank() - 1, i = 3; d >= 0; --d, --i) {
        const bool shorter = i == 3 && mask->dim(d) < S;
        if (mask->dim(d) != 1 && mask->dim(d) != want[i] && !shorter) {
          return absl::InvalidArgumentError("Attention: attn_mask does not broadcast");
        }
      }
      if (mask->rank() > 0 && mask->dim(mask->rank() - 1) != 1) mask_keys = mask->dim(mask->rank() - 1);
    }
    // Attention-24's nonpad_kv_seqlen: batch row b attends to its first
    // nonpad[b] keys only (a cache buffer's filled part).
    std::vector<int64_t> keys(B, S);
    if (const Tensor* nonpad = ctx.input(6); nonpad != nullptr) {
      if (past_k != nullptr) return absl::InvalidArgumentError("Attention: nonpad_kv_seqlen with past_key");
      PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, ReadInts(*nonpad, "Attention nonpad_kv_seqlen"));
      if (static_cast<int64_t>(lengths.size()) != B) {
        return absl::InvalidArgumentError("Attention: nonpad_kv_seqlen must hold one length per batch row");
      }
      for (int64_t b = 0; b < B; ++b) {
        if (lengths[b] < 0 || lengths[b] > S) {
          return absl::InvalidArgumentError(absl::StrCat("Attention: nonpad_kv_seqlen ", lengths[b],
                                                         " is outside 0..", S, " (the keys given)"));
        }
        keys[b] = lengths[b];
      }
    }
    const float scale = has_scale_ ? scale_ : 1.0f / std::sqrt(static_cast<float>(E));
    PT2ONNX_ASSIGN_OR_RETURN(auto y, ctx.AllocateOutput(0, DataType::kFloat, {B, Hq, L, Ev}));
    Tensor* qk_out = nullptr;
    if (ctx.num_outputs() > 3) {
      PT2ONNX_ASSIGN_OR_RETURN(auto t, ctx.AllocateOutput(3, DataType::kFloat, {B, Hq, L, S}));
      qk_out = t;
    }
    std::vector<float> scores(S);
    const float sqrt_scale = std::sqrt(scale);
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t hk = h / (Hq / Hk);
        for (int64_t l = 0; l < L; ++l) {
          const float* qrow = q.data<float>() + ((b * Hq + h) * L + l) * E;
          for (int64_t s = 0; s < S; ++s) {
            if (s >= keys[b]) {
              scores[s] = -std::numeric_limits<float>::infinity();
              if (qk_out && qk_mode_ != 3) qk_out->data<float>()[((b * Hq + h) * L + l) * S + s] = scores[s];
              continue;
            }
            const float* krow = k.data<float>() + ((b * Hk + hk) * S + s) * E;
            float dot = 0;
            for (int64_t e = 0; e < E; ++e) dot += (qrow[e] * sqrt_scale) * (krow[e] * sqrt_scale);
            float score = dot;
            float* qk_row = qk_out ? qk_out->data<float>() + ((b * Hq + h) * L + l) * S : nullptr;
            if (qk_row && qk_mode_ == 0) qk_row[s] = dot;
            if (causal_ && s > l) score = -std::numeric_limits<float>::infinity();
            if (mask != nullptr && s >= mask_keys) {
              score = -std::numeric_limits<float>::infinity();
            } else if (mask != nullptr) {
              const int64_t off = BroadcastOffset(*mask, b, h, l, s);
              if (mask->dtype() == DataType::kBool) {
                if (mask->raw()[off] == 0) score = -std::numeric_limits<float>::infinity();
              } else {
                score += mask->data<float>()[off];
              }
            }
            if (qk_row && qk_mode_ == 1) qk_row[s] = score;
            if (softcap_ > 0) score = softcap_ * std::tanh(score / softcap_);
            if (qk_row && qk_mode_ == 2) qk_row[s] = score;
            scores[s] = score;
          }
          float peak = -std::numeric_limits<float>::infinity();
          for (float s : scores) peak = std::max(peak, s);
          float total = 0;
          for (float& s : scores) {
            s = std::exp(s - peak);
            total += s;
          }
          for (float& s : scores) s /= total;
          if (qk_out && qk_mode_ == 3) {
            std::memcpy(qk_out->data<float>() + ((b * Hq + h) * L + l) * S, scores.data(), S * sizeof(float));
          }
          float* out = (y)->data<float>() + ((b * Hq + h) * L + l) * Ev;
          for (int64_t e = 0; e < Ev; ++e) out[e] = 0;
          // Keys past nonpad_kv_seqlen have weight 0; their values (an
          // unfilled buffer's, maybe not finite) are not read.
          for (int64_t s = 0; s < keys[b]; ++s) {
            const float* vrow = v.data<float>() + ((b * Hk + hk) * S + s) * Ev;
            for (int64_t e = 0; e < Ev; ++e) out[e] += scores[s] * vrow[e];
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  // past ++ current along the sequence dim; also written to output `slot`
  // when the node has it.
  static absl::StatusOr<Tensor> Concat(const Tensor* past, const Tensor& current, KernelContext& ctx, size_t slot) {
    Tensor result = current;
    if (past != nullptr) {
      if (past->dim(0) != current.dim(0) || past->dim(1) != current.dim(1) || past->dim(3) != current.dim(3)) {
        return absl::InvalidArgumentError("Attention: past and current key/value shapes differ");
      }
      PT2ONNX_ASSIGN_OR_RETURN(auto t, Tensor::Allocate(DataType::kFloat, {current.dim(0), current.dim(1), past->dim(2) + current.dim(2),
                                                   current.dim(3)}, ctx.pool()));
      const int64_t rows = current.dim(0) * current.dim(1);
      const size_t past_bytes = past->dim(2) * past->dim(3) * sizeof(float);
      const size_t cur_bytes = current.dim(2) * current.dim(3) * sizeof(float);
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(t.raw() + r * (past_bytes + cur_bytes), past->raw() + r * past_bytes, past_bytes);
        std::memcpy(t.raw() + r * (past_bytes + cur_bytes) + past_bytes, current.raw() + r * cur_bytes, cur_bytes);
      }
      result = std::move(t);
    }
    if (slot < ctx.num_outputs()) ctx.SetOutput(slot, result);
    return result;
  }

  bool causal_ = false, has_scale_ = false;
  float scale_ = 0, softcap_ = 0;
  int64_t qk_mode_ = 0;
};

// TensorScatter-24: the cache with update's entries written along `axis`
// at write_indices[b] (default 0) for each batch row b; "circular" wraps
// around the cache's length, "linear" refuses to write past it.
class TensorScatterKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", -2);
    const std::string mode = AttrString(info.node, "mode", "linear");
    if (mode != "linear" && mode != "circular") {
      return absl::InvalidArgumentError(absl::StrCat("TensorScatter: unknown mode '", mode, "'"));
    }
    circular_ = mode == "circular";
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(cache, 0);
    PT2ONNX_INPUT(update, 1);
    const Tensor* indices = ctx.input(2);
    PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, cache.rank(), "TensorScatter axis"));
    if (axis == 0) return absl::InvalidArgumentError("TensorScatter: axis 0 is the batch axis");
    if (update.dtype() != cache.dtype() || update.rank() != cache.rank()) {
      return absl::InvalidArgumentError("TensorScatter: update and cache differ in dtype or rank");
    }
    for (int64_t d = 0; d < cache.rank(); ++d) {
      if (d != axis && update.dim(d) != cache.dim(d)) {
        return absl::InvalidArgumentError(absl::StrCat("TensorScatter: update ", DimsString(update.dims()),
                                                       " does not fit cache ", DimsString(cache.dims())));
      }
    }
    const int64_t batch = cache.dim(0), capacity = cache.dim(axis), fresh = update.dim(axis);
    if (fresh > capacity) return absl::InvalidArgumentError("TensorScatter: update longer than the cache");
    std::vector<int64_t> at(batch, 0);
    if (indices != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(at, ReadInts(*indices, "TensorScatter write_indices"));
      if (static_cast<int64_t>(at.size()) != batch) {
        return absl::InvalidArgumentError("TensorScatter: write_indices must hold one index per batch row");
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      if (at[b] < 0 || at[b] >= std::max<int64_t>(capacity, 1) || (!circular_ && at[b] + fresh > capacity)) {
        return absl::InvalidArgumentError(absl::StrCat("TensorScatter: writing ", fresh, " entries at ", at[b],
                                                       " does not fit a cache of ", capacity));
      }
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, cache.dtype(), cache.dims()));
    if (cache.byte_size() > 0) std::memcpy(out->raw(), cache.raw(), cache.byte_size());
    // [batch, outer, axis, inner] with `inner` bytes per position.
    int64_t outer = 1, inner = ElementSize(cache.dtype());
    for (int64_t d = 1; d < axis; ++d) outer *= cache.dim(d);
    for (int64_t d = axis + 1; d < cache.rank(); ++d) inner *= cache.dim(d);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t row = b * outer + o;
        for (int64_t i = 0; i < fresh; ++i) {
          const int64_t pos = (at[b] + i) % capacity;
          std::memcpy(out->raw() + (row * capacity + pos) * inner, update.raw() + (row * fresh + i) * inner, inner);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = -2;
  bool circular_ = false;
};

}  // namespace

extern const KernelRegistration kLlmKernels[] = {
    {"Attention", MakeKernel<AttentionKernel>, HalfMode::kViaFloat32},
    {"RotaryEmbedding", MakeKernel<RotaryEmbeddingKernel>, HalfMode::kViaFloat32},
    {"TensorScatter", MakeKernel<TensorScatterKernel>, HalfMode::kNative},
};
extern const size_t kNumLlmKernels = sizeof(kLlmKernels) / sizeof(kLlmKernels[0]);

}  // namespace pt2onnx::runtime
