// File: runtime/plan/qdq_int8.h
// -----------------------------------------------------------------------------
// Session-time rewrite of QDQ patterns into int8 steps run by XNNPACK's qs8
// operators with per-channel (qc8w) weights (kernels/xnn_int8.cc):
//
//   DQ(x int8) , DQ(W int8 const, per tensor or per output channel, zero 0)
//     [, bias float const or DQ(int32 const)] -> Conv 2-D -> [Relu | Clip]
//     [-> MaxPool 2-D] -> Q(int8)          => QConvNhwc [+ QMaxPoolNhwc]
//   the same around MatMul (W or Transpose(W) constant) [+ Add bias] and Gemm
//                                          => QFullyConnected
//
// Scales and zero points of the activations must be constant scalars. Int8
// convolutions run in NHWC: the rewrite transposes an int8 value to NHWC once
// and back to NCHW only where a node outside the int8 plan reads it. A Relu or
// Clip becomes the quantized output range, exactly: Q is monotone, so
// Q(max(y, lo)) = max(Q(y), Q(lo)); a MaxPool between the activation and the
// Q commutes with Q for the same reason and runs on the int8 values.
// Everything else (patterns whose output is not quantized, uint8 values,
// scales XNNPACK refuses) keeps the float path: DQ, float op, Q as written.
#ifndef PT2ONNX_RUNTIME_PLAN_QDQ_INT8_H_
#define PT2ONNX_RUNTIME_PLAN_QDQ_INT8_H_

#include <string>

#include "core/ir/graph.h"

namespace pt2onnx::runtime {

// A copy of `graph` with its QDQ patterns as int8 steps (see above); nodes of
// domain kRuntimeDomain (plan/nhwc_layout.h).
ir::Graph QdqToInt8(const ir::Graph& graph);

// Whether `op_type` (of domain kRuntimeDomain) is one of the int8 steps.
bool IsInt8Step(const std::string& op_type);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_PLAN_QDQ_INT8_H_
