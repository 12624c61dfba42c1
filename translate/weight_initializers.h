// File: translate/weight_initializers.h
// -----------------------------------------------------------------------------
// Stored tensors (parameters, buffers, constants) as ONNX initializers:
// contiguous records are referenced in the file, strided or aliased views are
// copied out row-major within a byte budget, broadcast views are stored once
// and expanded by the model.
#ifndef PT2ONNX_TRANSLATE_WEIGHT_INITIALIZERS_H_
#define PT2ONNX_TRANSLATE_WEIGHT_INITIALIZERS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "translate/graph_builder.h"

namespace pt2onnx::translate {

// Adds `weight`, the stored tensor of input spec `spec`, as an initializer
// with torch.onnx's metadata and binds the FX placeholder to it. Bytes copied
// out of the file count against `materialized_bytes`, refused past
// `max_materialized_bytes`.
absl::Status AddWeightInitializer(const pt2::InputSpec& spec, const pt2::Weight& weight,
                                  uint64_t max_materialized_bytes, uint64_t& materialized_bytes,
                                  GraphBuilder& builder);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_WEIGHT_INITIALIZERS_H_
