// Reference kernels: embedding_bag (sum / mean / max over bags of rows given
// by offsets), as ATen's CPU kernel defines the output: empty bags and bags
// of padding entries only give zeros, mean divides by the non-padding count,
// per_sample_weights scale rows (sum only). The other outputs (offset2bag,
// bag_size, max_indices) are backward bookkeeping: refused if read.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// padding: the row index whose entries are skipped, or nullopt.
absl::Status EmbeddingBag(RefCall& call, std::optional<int64_t> padding) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices_t, call.Input("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor offsets_t, call.Input("offsets"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t mode, call.Int("mode"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> psw_t, call.OptionalInput("per_sample_weights"));
  PT2ONNX_ASSIGN_OR_RETURN(bool include_last_offset, call.Bool("include_last_offset"));
  if (weight.rank() != 2) return call.Invalid("embedding_bag: weight has to be a 2D Tensor");
  if (indices_t.rank() != 1 || offsets_t.rank() != 1) {
    return call.Invalid("embedding_bag: input and offsets have to be 1D tensors");
  }
  if (mode < 0 || mode > 2) return call.Invalid(absl::StrCat("embedding_bag: unknown mode ", mode));
  if (psw_t && mode != 0) {
    return call.Invalid("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum'");
  }
  const std::vector<int64_t> indices = ToInts(indices_t), offsets = ToInts(offsets_t);
  const int64_t num = weight.dims()[0], width = weight.dims()[1];
  const int64_t count = static_cast<int64_t>(indices.size());
  if (psw_t && psw_t->numel() != count) {
    return call.Invalid("embedding_bag: expected per_sample_weights to be 1D with the same number of elements as input");
  }
  const std::vector<double> psw = psw_t ? ToDoubles(*psw_t) : std::vector<double>();
  const std::vector<double> w = ToDoubles(weight);
  int64_t bags = static_cast<int64_t>(offsets.size());
  if (include_last_offset) {
    if (bags < 1) return call.Invalid("embedding_bag: include_last_offset needs at least one offset");
    --bags;
  }
  if (!offsets.empty() && offsets[0] != 0) {
    return call.Invalid(absl::StrCat("embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the "
                                     "mini-batch has to start from position 0. However, got ", offsets[0]));
  }
  for (size_t b = 0; b < offsets.size(); ++b) {
    if (offsets[b] < 0 || offsets[b] > count || (b > 0 && offsets[b] < offsets[b - 1])) {
      return call.Invalid(absl::StrCat("embedding_bag: offsets must be non-decreasing and at most the number of "
                                       "indices (", count, "); got ", offsets[b], " at ", b));
    }
  }
  for (int64_t idx : indices) {
    if (idx < 0 || idx >= num) return call.Invalid(absl::StrCat("embedding_bag: index ", idx, " out of range [0, ", num, ")"));
  }
  std::vector<double> out(bags * width, 0.0);
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t begin = offsets[b];
    const int64_t end = b + 1 < static_cast<int64_t>(offsets.size()) ? offsets[b + 1] : count;
    double* o = out.data() + b * width;
    int64_t used = 0;
    for (int64_t i = begin; i < end; ++i) {
      if (padding && indices[i] == *padding) continue;
      const double* row = w.data() + indices[i] * width;
      const double scale = psw.empty() ? 1.0 : psw[i];
      for (int64_t d = 0; d < width; ++d) {
        if (mode == 2) o[d] = used == 0 ? row[d] : (std::isnan(row[d]) || row[d] > o[d] ? row[d] : o[d]);
        else o[d] += scale * row[d];
      }
      ++used;
    }
    if (mode == 1 && used > 0) {
      for (int64_t d = 0; d < width; ++d) o[d] /= static_cast<double>(used);
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(weight.dtype(), {bags, width}, out));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(result)));
  const char* why = "backward bookkeeping of embedding_bag; only the output is computed";
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable(absl::StrCat("offset2bag: ", why))));
  PT2ONNX_RETURN_IF_ERROR(call.Set(RefValue::Unavailable(absl::StrCat("bag_size: ", why))));
  return call.Set(RefValue::Unavailable(absl::StrCat("max_indices: ", why)));
}

// aten::embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False) -> (Tensor, Tensor, Tensor, Tensor)
absl::Status EmbeddingBagDefault(RefCall& call) { return EmbeddingBag(call, std::nullopt); }

// aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)
// A negative padding_idx counts from the end of the table.
absl::Status EmbeddingBagPadding(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> padding, call.OptionalInt("padding_idx"));
  if (padding) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
    const int64_t num = weight.rank() > 0 ? weight.dims()[0] : 0;
    if (*padding < -num || *padding >= num) {
      return call.Invalid(absl::StrCat("padding_idx must be within the number of embeddings, -", num, " through ",
                                       num - 1, ", but got ", *padding));
    }
    if (*padding < 0) *padding += num;
  }
  return EmbeddingBag(call, padding);
}

// aten::_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)
// (_embedding_bag_forward_only alike): a negative padding_idx means none.
absl::Status EmbeddingBagInternal(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t padding, call.Int("padding_idx"));
  return EmbeddingBag(call, padding < 0 ? std::nullopt : std::optional<int64_t>(padding));
}

}  // namespace

void RegisterEmbeddingBagRef(RefRegistry& r) {
  r.Add("aten::embedding_bag.default", EmbeddingBagDefault);
  r.Add("aten::embedding_bag.padding_idx", EmbeddingBagPadding);
  r.Add("aten::_embedding_bag.default", EmbeddingBagInternal);
  r.Add("aten::_embedding_bag_forward_only.default", EmbeddingBagInternal);
}

}  // namespace pt2onnx::reference
