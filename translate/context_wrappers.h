// File: translate/context_wrappers.h
// -----------------------------------------------------------------------------
// torch.export keeps the context managers of a model's forward as higher-order
// ops whose body is a subgraph: `with torch.no_grad():` becomes
// higher_order::wrap_with_set_grad_enabled(enabled, body, *operands) (Llama
// and Phi rotary embeddings), `with torch.autocast(...)` becomes
// higher_order::wrap_with_autocast(device, dtype, enabled, cache_enabled,
// body, *operands). Gradient mode means nothing to an inference graph, and a
// disabled autocast changes no dtype, so both are translated by inlining the
// body into the enclosing graph before translation. An *enabled* autocast
// would change the dtypes of the ops inside; it is refused with advice
// (ep.run_decompositions() applies its casts as explicit nodes).
#ifndef PT2ONNX_TRANSLATE_CONTEXT_WRAPPERS_H_
#define PT2ONNX_TRANSLATE_CONTEXT_WRAPPERS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pt2/schema.h"

namespace pt2onnx::translate {

// True for the registry keys of the wrappers inlined here
// ("higher_order::wrap_with_set_grad_enabled", ...).
bool IsContextWrapper(absl::string_view key);

// `graph` with every wrapper node (nested ones too) replaced by its body's
// nodes, body values renamed apart from the enclosing graph's; nullopt when
// the graph has no wrapper node. Errors: an enabled autocast, or a body whose
// signature does not match the node's operands / outputs.
absl::StatusOr<std::optional<pt2::Graph>> InlineContextWrappers(const pt2::Graph& graph);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_CONTEXT_WRAPPERS_H_
