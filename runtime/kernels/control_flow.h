// File: runtime/kernels/control_flow.h
// -----------------------------------------------------------------------------
// If, Loop and Scan run their subgraphs in nested sessions. A subgraph reads
// values of the enclosing graphs by name; the session hands those to the
// kernel as extra inputs after the node's own (NodeReads), so the kernel
// stays a function of its inputs like every other.
#ifndef PT2ONNX_RUNTIME_KERNELS_CONTROL_FLOW_H_
#define PT2ONNX_RUNTIME_KERNELS_CONTROL_FLOW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/loop_limits.h"

namespace pt2onnx::runtime {

// Values the node's subgraphs (at any depth) read from enclosing scopes, in
// order of first use; empty for nodes without subgraphs.
std::vector<std::string> OuterReads(const ir::Node& node);

// The node's inputs followed by its OuterReads: what its kernel receives.
std::vector<std::string> NodeReads(const ir::Node& node);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_CONTROL_FLOW_H_
