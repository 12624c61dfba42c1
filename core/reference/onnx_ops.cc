// Reference kernels: torch.onnx.ops calls kept in a program, run with the
// ONNX operator's documented semantics (RotaryEmbedding-23).
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/reference/families.h"
#include "core/reference/kernel_support.h"
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

}  // namespace

void RegisterOnnxOpsRef(RefRegistry& r) { r.Add("onnx::RotaryEmbedding.opset23", RotaryEmbedding); }

}  // namespace pt2onnx::reference
