// File: runtime/plan/nhwc_layout.h
// -----------------------------------------------------------------------------
// Session-time rewrite of the accelerated plan for XNNPACK's NHWC convolution:
// every float32 2-D Conv with constant weights becomes an internal NHWC Conv
// (domain kRuntimeDomain) between two Transposes; a Clip/Relu that is the
// convolution's only reader becomes its output range; Add/Mul/Clip/Relu whose
// inputs all come from NHWC values run in NHWC too (an Add or Mul taking its
// only reader, a Relu or constant Clip, along; a constant operand of rank <= 4
// transposed to NHWC once), a Concat of NHWC values, a 2-D MaxPool
// and a GlobalAveragePool (or ReduceMean over H, W) of an NHWC value, and a
// per-tensor QuantizeLinear/DequantizeLinear; a Transpose back to NHWC of a
// value just transposed to NCHW reads the NHWC value itself, and the input of
// any Transpose to NCHW (the int8 plan's, plan/qdq_int8.h) counts as its
// output's NHWC form. In a CNN only the graph's first and last layouts change
// are left.
#ifndef PT2ONNX_RUNTIME_PLAN_NHWC_LAYOUT_H_
#define PT2ONNX_RUNTIME_PLAN_NHWC_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace pt2onnx::runtime {

// Nodes of this domain exist only inside a session's plan.
inline constexpr const char kRuntimeDomain[] = "pt2onnx.runtime";

// A copy of `graph` with its convolutions in NHWC (see above).
ir::Graph ConvolutionsToNhwc(const ir::Graph& graph);

// The Transpose node `in` -> `out` by `perm`, named "<out>::transpose": the
// layout changes this pass and the int8 plan (qdq_int8.h) insert.
ir::Node LayoutTranspose(const std::string& in, const std::string& out, const std::vector<int64_t>& perm);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_PLAN_NHWC_LAYOUT_H_
