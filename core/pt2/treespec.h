// File: core/pt2/treespec.h
// -----------------------------------------------------------------------------
// TreeSpecLeafPaths: the leaves of a torch pytree TreeSpec, serialized as
// torch.utils._pytree.treespec_dumps writes it ("[1, {"type": ..., "context":
// ..., "children_spec": [...]}]"), each as the path of keys that reaches it.
// The in_spec/out_spec of a torch.export program and of the manifest
// transformers.exporters writes (export.json) are such specs; their leaves
// are the program's flat inputs/outputs, in order.
//
//   PT2ONNX_ASSIGN_OR_RETURN(std::vector<LeafPath> leaves, TreeSpecLeafPaths(out_spec));
//   // CausalLMOutputWithPast(logits, DynamicCache of 2 layers):
//   // {"logits"}, {"past_key_values", "layers.0.keys"}, ...
//
// A node's children are keyed by its context: a list of keys (dict,
// OrderedDict, a ModelOutput) names them; an object's serialized state
// (transformers' caches: {"_t": "obj", "s": {"layers": [{"_t": "obj", "s":
// {"keys": {"_t": "tensor", "i": 0}, ...}}]}}) names the child it refers to
// by the attribute path to the reference, dotted ("layers.0.keys"); anything else (tuple, list, a
// context this does not know) keys them by index.
#ifndef PT2ONNX_CORE_PT2_TREESPEC_H_
#define PT2ONNX_CORE_PT2_TREESPEC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pt2onnx::pt2 {

using LeafPath = std::vector<std::string>;

// InvalidArgument when the text is not a serialized TreeSpec (protocol 1).
absl::StatusOr<std::vector<LeafPath>> TreeSpecLeafPaths(absl::string_view serialized);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_TREESPEC_H_
