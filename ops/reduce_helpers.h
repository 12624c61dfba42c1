// File: ops/reduce_helpers.h
// -----------------------------------------------------------------------------
// Reduction building blocks shared by reduction.cc and variance.cc: checked
// reduced axes and one Reduce* node in opset 18's axes-as-input form.
#ifndef PT2ONNX_OPS_REDUCE_HELPERS_H_
#define PT2ONNX_OPS_REDUCE_HELPERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// Reduced axes, normalized; an empty result means "all dimensions". A rank-0
// input accepts dim 0 / -1 as torch does, which also means "all" there.
absl::StatusOr<std::vector<int64_t>> ReducedAxes(const TranslateContext& ctx,
                                                 absl::string_view arg,
                                                 const std::vector<int64_t>& dims, int64_t rank);

// `op_type` over `axes` (empty: every axis) with keepdims.
std::string Reduce(TranslateContext& ctx, absl::string_view op_type, const std::string& x,
                   const std::vector<int64_t>& axes, bool keepdim);

// `int[1]? dim` arguments: None and [] both mean "all dimensions" for the
// reductions that take them (sum, mean, var, std, norms).
absl::StatusOr<std::vector<int64_t>> OptionalDims(TranslateContext& ctx, absl::string_view arg,
                                                  int64_t rank);

// `self` cast to the node's output dtype (torch's accumulation dtype, which
// also reflects an explicit `dtype=` argument).
absl::StatusOr<std::string> SelfAsOutputDtype(TranslateContext& ctx, int output = 0);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_REDUCE_HELPERS_H_
