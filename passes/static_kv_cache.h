// File: passes/static_kv_cache.h
// -----------------------------------------------------------------------------
// The static key/value cache form of a decode-step model (--kv-cache static,
// opset >= 24). A decode program grows its cache: each cache input X (dims
// [..., P, ...], P symbolic) is concatenated with the step's new entries N
// along the sequence axis, and the result is a graph output. In the static
// form:
//   - X is a fixed-size buffer (its P dim becomes a capacity symbol), and one
//     new scalar int64 input per distinct P symbol, `past_length`, says how
//     many positions of each buffer of that group are filled;
//   - the output is TensorScatter(X, N, write_indices = past_length per
//     batch row, axis): the same buffer with N written at past_length, never
//     a larger tensor (a caller may bind the output to the input's memory);
//   - whatever read the concatenation reads the filled prefix (a Slice to
//     past_length + N's length), or, for an Attention that takes K and V
//     from two such caches without is_causal or past inputs, the whole
//     buffers with nonpad_kv_seqlen = past_length + N's length (its mask,
//     if any, padded to the capacity); whatever read P (Shape of X) reads
//     past_length.
// The numbers are the default form's: the computations run on the same
// values. The model's metadata_props "pt2onnx.kv_cache" describes the
// contract as JSON (groups: past_length input, capacity dim, caches with
// input, output and axis), for callers and for verify-generation.
#ifndef PT2ONNX_PASSES_STATIC_KV_CACHE_H_
#define PT2ONNX_PASSES_STATIC_KV_CACHE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/graph.h"

namespace pt2onnx::passes {

// The metadata_props key holding the contract.
inline constexpr char kKvCacheMetadataKey[] = "pt2onnx.kv_cache";
// The first opset with TensorScatter and Attention's nonpad_kv_seqlen.
inline constexpr int64_t kStaticKvCacheMinOpset = 24;

struct StaticKvCache {
  std::string input;   // the buffer, past positions filled
  std::string output;  // the buffer with this step's positions written
  int64_t axis = 0;    // the sequence axis
};

struct StaticKvCacheGroup {
  std::string past_length;   // scalar int64 graph input
  std::string capacity_dim;  // dim_param of the buffers' sequence axis
  std::vector<StaticKvCache> caches;
};

struct StaticKvCacheLayout {
  std::vector<StaticKvCacheGroup> groups;  // empty: the graph has no cache
  int64_t attentions_on_buffers = 0;       // Attention nodes given nonpad_kv_seqlen
};

// Rewrites `model` to the static form (then removes what no longer has a
// reader). A graph without a growing cache is left unchanged (empty
// layout); InvalidArgument below kStaticKvCacheMinOpset.
absl::StatusOr<StaticKvCacheLayout> MakeKvCacheStatic(ir::Model& model);

// The layout as the JSON stored under kKvCacheMetadataKey.
std::string KvCacheLayoutJson(const StaticKvCacheLayout& layout);

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_STATIC_KV_CACHE_H_
