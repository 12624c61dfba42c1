// File: reference/loss_reduction.h
// -----------------------------------------------------------------------------
// The `int reduction` argument of the losses (at::Reduction: 0 none, 1 mean,
// 2 sum) for the reference kernels of loss.cc, embedding_losses.cc and
// distance.cc (triplet_margin_loss): read once, applied once.
#ifndef PT2ONNX_REFERENCE_LOSS_REDUCTION_H_
#define PT2ONNX_REFERENCE_LOSS_REDUCTION_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "reference/ref_value.h"

namespace pt2onnx::reference {

class RefCall;

// The call's `reduction` (mean when the program leaves it out); others refused.
absl::StatusOr<int64_t> ReadReduction(const RefCall& call);

// Sets the result: the elementwise losses `v` shaped `dims` for none, else
// their mean or sum as a 0-d tensor of `dtype` (the mean of none is NaN, as torch's).
absl::Status SetReduced(RefCall& call, DataType dtype, const Dims& dims, const std::vector<double>& v,
                        int64_t reduction);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_LOSS_REDUCTION_H_
