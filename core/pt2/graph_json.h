// File: core/pt2/graph_json.h
// -----------------------------------------------------------------------------
// Internal to //core/pt2:program (listed in its srcs, not hdrs): decoders for
// torch.export's Graph (inputs, outputs, nodes, value metadata) and
// GraphSignature (the input/output specs), docs/pt2-format.md 3.3-3.4 and
// 3.8. Built on json_decode.h and argument_json.h.
//
//   Graph g;
//   PT2ONNX_RETURN_IF_ERROR(ReadGraph(*graph, gm_path.Field("graph"), 0, &g));
#ifndef PT2ONNX_CORE_PT2_GRAPH_JSON_H_
#define PT2ONNX_CORE_PT2_GRAPH_JSON_H_

#include "absl/status/status.h"
#include "core/pt2/json_decode.h"
#include "core/pt2/schema.h"

namespace pt2onnx::pt2::internal {

// Decodes a Graph into `g`. `depth` counts the subgraphs enclosing it (0 for
// graph_module.graph); ReadArgument enforces the nesting cap.
absl::Status ReadGraph(const Value& v, const Path& path, int depth, Graph* g);

// Decodes a GraphSignature {input_specs, output_specs} into `sig`.
absl::Status ReadSignature(const Value& v, const Path& path,
                           GraphSignature* sig);

}  // namespace pt2onnx::pt2::internal

#endif  // PT2ONNX_CORE_PT2_GRAPH_JSON_H_
