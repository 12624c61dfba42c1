// Reference kernels: torch.onnx.ops calls kept in a program, run with the
// ONNX operator's documented semantics (RotaryEmbedding-23, Attention-23).
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<int64_t> IntOr(const RefCall& call, const char* name, int64_t fallback) {
  if (!call.Has(name)) return fallback;
  return call.Int(name);
}

// onnx::RotaryEmbedding.opset23(Tensor x, Tensor cos_cache, Tensor sin_cache, Tensor? position_ids=None, *, bool interleaved=False, int num_heads=0, int rotary_embedding_dim=0) -> Tensor
// x is (batch, heads, seq, head) or (batch, seq, heads * head); the first
// rotary_dim entries of each head rotate by pairs (i, i + rotary_dim / 2),
// or (2i, 2i + 1) when interleaved, with cos/sin of row position_ids[b, s]
// of the caches (or row [b, s] without position ids); the rest pass.
absl::Status RotaryEmbedding(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("x"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor cos_t, call.Input("cos_cache"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor sin_t, call.Input("sin_cache"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> pos_t, call.OptionalInput("position_ids"));
  bool interleaved = false;
  if (call.Has("interleaved")) {
    PT2ONNX_ASSIGN_OR_RETURN(interleaved, call.Bool("interleaved"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t num_heads, IntOr(call, "num_heads", 0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rotary_dim, IntOr(call, "rotary_embedding_dim", 0));
  if (x.rank() != 3 && x.rank() != 4) return call.Invalid("x must be 3-D or 4-D");
  const int64_t batch = x.dims()[0];
  int64_t heads, seq, head;
  if (x.rank() == 4) {
    heads = x.dims()[1];
    seq = x.dims()[2];
    head = x.dims()[3];
  } else {
    seq = x.dims()[1];
    if (num_heads <= 0 || x.dims()[2] % num_heads != 0) return call.Invalid("3-D x needs num_heads > 0 dividing its hidden size");
    heads = num_heads;
    head = x.dims()[2] / num_heads;
  }
  if (rotary_dim == 0) rotary_dim = head;
  if (rotary_dim < 0 || rotary_dim > head || rotary_dim % 2 != 0) {
    return call.Invalid(absl::StrCat("rotary_embedding_dim ", rotary_dim, " must be even and at most the head size ", head));
  }
  const int64_t half = rotary_dim / 2;
  if (cos_t.dims() != sin_t.dims() || cos_t.rank() < 2 || cos_t.dims().back() != half) {
    return call.Invalid(absl::StrCat("cos_cache and sin_cache must have the same shape with a last dim of ", half));
  }
  std::vector<int64_t> positions;
  if (pos_t) {
    if (pos_t->dims() != Dims{batch, seq} || cos_t.rank() != 2) {
      return call.Invalid("position_ids must be (batch, seq) and the caches (max_position, rotary_dim / 2)");
    }
    positions = ToInts(*pos_t);
    for (int64_t p : positions) {
      if (p < 0 || p >= cos_t.dims()[0]) return call.Invalid(absl::StrCat("position id ", p, " is outside the caches"));
    }
  } else if (cos_t.dims() != Dims{batch, seq, half}) {
    return call.Invalid("without position_ids the caches must be (batch, seq, rotary_dim / 2)");
  }
  const std::vector<double> v = ToDoubles(x), cv = ToDoubles(cos_t), sv = ToDoubles(sin_t);
  std::vector<double> out = v;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t row = pos_t ? positions[b * seq + s] : b * seq + s;
        const int64_t base = x.rank() == 4 ? ((b * heads + h) * seq + s) * head : ((b * seq + s) * heads + h) * head;
        for (int64_t i = 0; i < half; ++i) {
          const int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
          const double c = cv[row * half + i], sn = sv[row * half + i];
          const double x1 = v[base + i1], x2 = v[base + i2];
          out[base + i1] = x1 * c - x2 * sn;
          out[base + i2] = x2 * c + x1 * sn;
        }
      }
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(x.dtype(), x.dims(), out));
  return call.SetTensor(std::move(result));
}

// (batch, heads, seq, size) of a 4-D input or a 3-D (batch, seq, heads *
// size) one with `heads` given, as a 4-D row-major copy.
absl::StatusOr<std::pair<Dims, std::vector<double>>> Heads(const RefCall& call, const Tensor& t, int64_t heads,
                                                           const char* what) {
  if (t.rank() == 4) return std::make_pair(t.dims(), ToDoubles(t));
  if (t.rank() != 3 || heads <= 0 || t.dims()[2] % heads != 0) {
    return call.Invalid(absl::StrCat(what, " must be 4-D, or 3-D with its head count dividing the hidden size"));
  }
  const int64_t b = t.dims()[0], s = t.dims()[1], e = t.dims()[2] / heads;
  const std::vector<double> v = ToDoubles(t);
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < s; ++j)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t k = 0; k < e; ++k) out[((i * heads + h) * s + j) * e + k] = v[((i * s + j) * heads + h) * e + k];
  return std::make_pair(Dims{b, heads, s, e}, std::move(out));
}

// onnx::Attention.opset23(Tensor Q, Tensor K, Tensor V, Tensor? attn_mask=None, Tensor? past_key=None, Tensor? past_value=None, *, bool is_causal=False, int kv_num_heads=0, int q_num_heads=0, int qk_matmul_output_mode=0, float? scale=None, float softcap=0.0, int? softmax_precision=None) -> (Tensor, Tensor, Tensor, Tensor)
// Attention-23: scores Q K^T * scale (1/sqrt(head size) by default), plus
// the mask (bool: false is -inf; float: added) and the causal mask (key j
// of query i kept when j <= i), softcap * tanh(scores / softcap) when
// softcap > 0, softmax, times V; key/value heads shared by groups of query
// heads; past keys/values come first. Outputs: Y (3-D when Q is),
// present_key, present_value, and the scores at qk_matmul_output_mode
// (0 after the product, 1 after the mask, 2 after softcap, 3 after softmax).
absl::Status Attention(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor q_t, call.Input("Q"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor k_t, call.Input("K"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v_t, call.Input("V"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> mask_t, call.OptionalInput("attn_mask"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> past_k, call.OptionalInput("past_key"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> past_v, call.OptionalInput("past_value"));
  bool is_causal = false;
  if (call.Has("is_causal")) {
    PT2ONNX_ASSIGN_OR_RETURN(is_causal, call.Bool("is_causal"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t kv_heads_arg, IntOr(call, "kv_num_heads", 0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t q_heads_arg, IntOr(call, "q_num_heads", 0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t mode, IntOr(call, "qk_matmul_output_mode", 0));
  std::optional<double> scale_arg;
  if (call.Has("scale")) {
    PT2ONNX_ASSIGN_OR_RETURN(scale_arg, call.Double("scale"));
  }
  double softcap = 0;
  if (call.Has("softcap")) {
    PT2ONNX_ASSIGN_OR_RETURN(softcap, call.Double("softcap"));
  }
  if (mode < 0 || mode > 3) return call.Invalid(absl::StrCat("qk_matmul_output_mode ", mode, " is not 0 to 3"));
  if ((past_k.has_value()) != (past_v.has_value())) return call.Invalid("past_key and past_value go together");
  PT2ONNX_ASSIGN_OR_RETURN(auto q, Heads(call, q_t, q_heads_arg, "Q"));
  PT2ONNX_ASSIGN_OR_RETURN(auto k, Heads(call, k_t, kv_heads_arg, "K"));
  PT2ONNX_ASSIGN_OR_RETURN(auto v, Heads(call, v_t, kv_heads_arg, "V"));
  const int64_t B = q.first[0], Hq = q.first[1], L = q.first[2], E = q.first[3];
  const int64_t Hk = k.first[1], Ev = v.first[3];
  if (k.first[0] != B || v.first[0] != B || v.first[1] != Hk || k.first[3] != E || v.first[2] != k.first[2] ||
      Hk <= 0 || Hq % Hk != 0) {
    return call.Invalid("Q, K and V shapes do not match (query heads must be a multiple of key/value heads)");
  }
  // present = concat(past, new) along the sequence.
  auto concat = [&](const std::optional<Tensor>& past, std::pair<Dims, std::vector<double>>& now)
      -> absl::StatusOr<std::pair<Dims, std::vector<double>>> {
    if (!past) return now;
    const Dims& pd = past->dims();
    if (past->rank() != 4 || pd[0] != B || pd[1] != Hk || pd[3] != now.first[3]) return call.Invalid("past_key/past_value shape");
    const std::vector<double> pv = ToDoubles(*past);
    const int64_t P = pd[2], S = now.first[2], D = pd[3];
    std::vector<double> out;
    for (int64_t bh = 0; bh < B * Hk; ++bh) {
      out.insert(out.end(), pv.begin() + bh * P * D, pv.begin() + (bh + 1) * P * D);
      out.insert(out.end(), now.second.begin() + bh * S * D, now.second.begin() + (bh + 1) * S * D);
    }
    return std::make_pair(Dims{B, Hk, P + S, D}, std::move(out));
  };
  PT2ONNX_ASSIGN_OR_RETURN(auto pk, concat(past_k, k));
  PT2ONNX_ASSIGN_OR_RETURN(auto pv, concat(past_v, v));
  const int64_t S = pk.first[2];
  const double scale = scale_arg.value_or(1.0 / std::sqrt(static_cast<double>(E)));
  std::vector<double> mv;
  std::vector<int64_t> mask_index;
  const bool bool_mask = mask_t && mask_t->dtype() == DataType::kBool;
  if (mask_t) {
    const Dims full{B, Hq, L, S};
    PT2ONNX_ASSIGN_OR_RETURN(Dims check, BroadcastDims(mask_t->dims(), full));
    if (check != full) return call.Invalid("attn_mask does not broadcast to (batch, heads, q_seq, total_seq)");
    mask_index = BroadcastIndices(mask_t->dims(), full);
    mv = ToDoubles(*mask_t);
  }
  std::vector<double> y(B * Hq * L * Ev, 0.0), qk(B * Hq * L * S), row(S);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kh = h / (Hq / Hk);
      const double* kb = pk.second.data() + (b * Hk + kh) * S * E;
      const double* vb = pv.second.data() + (b * Hk + kh) * S * Ev;
      for (int64_t i = 0; i < L; ++i) {
        const double* qi = q.second.data() + ((b * Hq + h) * L + i) * E;
        double* stage = qk.data() + ((b * Hq + h) * L + i) * S;
        double mx = -INFINITY;
        for (int64_t j = 0; j < S; ++j) {
          double sc = 0;
          for (int64_t e = 0; e < E; ++e) sc += qi[e] * kb[j * E + e];
          sc *= scale;
          if (mode == 0) stage[j] = sc;
          if (mask_t) {
            const double m = mv[mask_index[((b * Hq + h) * L + i) * S + j]];
            sc = bool_mask ? (m == 0 ? -INFINITY : sc) : sc + m;
          }
          if (is_causal && j > i) sc = -INFINITY;
          if (mode == 1) stage[j] = sc;
          if (softcap > 0) sc = softcap * std::tanh(sc / softcap);
          if (mode == 2) stage[j] = sc;
          row[j] = sc;
          mx = std::max(mx, sc);
        }
        double sum = 0;
        for (int64_t j = 0; j < S; ++j) sum += std::exp(row[j] - mx);  // all -inf: NaN, as softmax gives
        double* yi = y.data() + ((b * Hq + h) * L + i) * Ev;
        for (int64_t j = 0; j < S; ++j) {
          const double p = std::exp(row[j] - mx) / sum;
          if (mode == 3) stage[j] = p;
          for (int64_t e = 0; e < Ev; ++e) yi[e] += p * vb[j * Ev + e];
        }
      }
    }
  }
  Dims y_dims{B, Hq, L, Ev};
  if (q_t.rank() == 3) {  // back to (batch, seq, heads * size)
    std::vector<double> y3(y.size());
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t i = 0; i < L; ++i)
          for (int64_t e = 0; e < Ev; ++e) y3[((b * L + i) * Hq + h) * Ev + e] = y[((b * Hq + h) * L + i) * Ev + e];
    y = std::move(y3);
    y_dims = {B, L, Hq * Ev};
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor yt, FromDoubles(q_t.dtype(), y_dims, y));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor kt, FromDoubles(k_t.dtype(), pk.first, pk.second));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor vt, FromDoubles(v_t.dtype(), pv.first, pv.second));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor qkt, FromDoubles(q_t.dtype(), {B, Hq, L, S}, qk));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(yt)));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(kt)));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(vt)));
  return call.SetTensor(std::move(qkt));
}

}  // namespace

void RegisterOnnxOpsRef(RefRegistry& r) {
  r.Add("onnx::RotaryEmbedding.opset23", RotaryEmbedding);
  r.Add("onnx::Attention.opset23", Attention);
}

}  // namespace pt2onnx::reference
