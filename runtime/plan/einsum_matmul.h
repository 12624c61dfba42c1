// File: runtime/plan/einsum_matmul.h
// -----------------------------------------------------------------------------
// Session-time rewrite of the accelerated plan: a two-operand Einsum that is a
// batched matrix product (attention's "bhid,bhjd->bhij" and "bhij,bhjd->bhid",
// as MaxViT and other exporters write them) becomes MatMul, with Transposes
// where its operands or result are laid out otherwise, so it runs as XNNPACK's
// batch matrix multiply instead of the portable Einsum's loop per letter.
// Taken: explicit or implicit output, no '...', no letter twice in one term,
// one letter free in each operand, one summed letter, any number of batch
// letters (in both operands and the output). Anything else stays Einsum.
#ifndef PT2ONNX_RUNTIME_PLAN_EINSUM_MATMUL_H_
#define PT2ONNX_RUNTIME_PLAN_EINSUM_MATMUL_H_

#include "core/ir/graph.h"

namespace pt2onnx::runtime {

// A copy of `graph` with its matrix-product Einsums as MatMul (see above).
ir::Graph EinsumsToMatMuls(const ir::Graph& graph);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_PLAN_EINSUM_MATMUL_H_
