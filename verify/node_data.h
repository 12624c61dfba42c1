// File: verify/node_data.h
// -----------------------------------------------------------------------------
// Model Explorer node data for a verification, as model-explorer-onnx's
// save_node_data_from_verification_info writes it: one JSON file per field
// (max_abs_diff, max_rel_diff) holding {"main_graph": {"results": {KEY:
// {"value": V}}, "thresholds": [...]}} where KEY is the ONNX node producing
// the value, or "[value] NAME" for a graph output.
#ifndef PT2ONNX_VERIFY_NODE_DATA_H_
#define PT2ONNX_VERIFY_NODE_DATA_H_

#include <string>

#include "core/ir/graph.h"
#include "verify/verifier.h"

namespace pt2onnx::verify {

enum class NodeDataField { kMaxAbsDiff, kMaxRelDiff };

std::string NodeDataJson(const Verification& v, const ir::Model& model, NodeDataField field);

}  // namespace pt2onnx::verify

#endif  // PT2ONNX_VERIFY_NODE_DATA_H_
