// File: reference/contraction.h
// -----------------------------------------------------------------------------
// A general tensor contraction for the reference products (einsum,
// tensordot, inner, outer, mv, bilinear ...): every operand names each of
// its dims by a label; the result has the output labels' dims and sums the
// product of the operands over every other label. Floats accumulate in
// double and round once; integers multiply and add in wrapping int64 (as
// torch's integer kernels wrap). Size-1 dims broadcast against their label.
//
//   // C[i,k] = sum_j A[i,j] B[j,k]
//   Contract({a, b}, {{0, 1}, {1, 2}}, {0, 2}, a.dtype());
#ifndef PT2ONNX_REFERENCE_CONTRACTION_H_
#define PT2ONNX_REFERENCE_CONTRACTION_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "reference/ref_value.h"

namespace pt2onnx::reference {

// labels[k][d]: the label of dim d of operands[k] (small non-negative
// integers); out_labels: the result's dims, each label at most once.
absl::StatusOr<Tensor> Contract(const std::vector<Tensor>& operands,
                                const std::vector<std::vector<int>>& labels,
                                const std::vector<int>& out_labels, DataType out_dtype);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_CONTRACTION_H_
