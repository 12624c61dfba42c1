// File: runtime/plan/qdq_int8.h
// -----------------------------------------------------------------------------
// Session-time rewrite of QDQ patterns into int8 steps: XNNPACK's qs8
// operators with per-channel (qc8w) weights for convolutions and matrix
// products (kernels/xnn_int8.cc), int8 kernels for the elementwise ops
// between them (kernels/int8_elementwise.cc):
//
//   DQ(x 8-bit) , DQ(W int8 const, per tensor or per output channel, zero 0)
//     [, bias float const or DQ(int32 const)] -> Conv 2-D -> [Relu | Clip]
//     [-> MaxPool 2-D] -> Q(8-bit)         => QConvNhwc [+ QMaxPoolNhwc]
//   the same around MatMul (W or Transpose(W) constant) [+ Add bias] and Gemm
//                                          => QFullyConnected
//   Add / Mul, elementwise functions, GlobalAveragePool / ReduceMean,
//   MaxPool, Concat between DQs and a Q    => QAdd, QMul, QUnary, QMean,
//                                             QMaxPoolNhwc, QConcat
//                                             (plan/qdq_int8_elementwise.cc)
//
// Scales and zero points of the activations must be constant scalars. uint8
// values run as their int8 twins (plan/qdq_int8_rewriter.h). Int8
// convolutions run in NHWC: the rewrite transposes an int8 value to NHWC once
// and back to NCHW only where a node outside the int8 plan reads it. A Relu or
// Clip becomes the quantized output range, exactly: Q is monotone, so
// Q(max(y, lo)) = max(Q(y), Q(lo)); a MaxPool between the activation and the
// Q commutes with Q for the same reason and runs on the int8 values.
// Everything else (patterns whose output is not quantized, dynamic
// parameters, scales XNNPACK refuses) keeps the float path: DQ, float op, Q
// as written.
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
