// File: ops/pool_helpers.h
// -----------------------------------------------------------------------------
// Building blocks shared by the pooling families (pooling.cc,
// adaptive_pooling.cc): unbatched inputs, the pool attributes, and torch's
// per-plane max-pool indices.
#ifndef PT2ONNX_OPS_POOL_HELPERS_H_
#define PT2ONNX_OPS_POOL_HELPERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/graph.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// The static sizes of the last `n` dims of `arg`, if all are known.
std::optional<std::vector<int64_t>> StaticTrailingDims(const TranslateContext& ctx,
                                                       absl::string_view arg, int64_t n);

// The input with a batch dim when torch got it unbatched (rank n + 1).
struct Batched {
  std::string value;
  bool unbatched = false;
  int64_t rank = 0;  // of `value`
};
absl::StatusOr<Batched> BatchedInput(TranslateContext& ctx, absl::string_view arg, int64_t n);

// `value` without the batch dim BatchedInput added, if it added one.
std::string Unbatch(TranslateContext& ctx, const Batched& b, const std::string& value);

struct PoolAttrs {
  std::vector<int64_t> kernel, strides, pads, dilations;
  bool ceil_mode = false;
};

// kernel_shape, strides, pads, ceil_mode (and dilations) of an ONNX pool node.
std::vector<ir::Attribute> PoolAttributes(const PoolAttrs& a, bool dilations);

// ONNX flattened (N, C, spatial) indices -> torch's per-plane indices.
std::string PlaneIndices(TranslateContext& ctx, const Batched& x, const std::string& indices,
                         int64_t n);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_POOL_HELPERS_H_
