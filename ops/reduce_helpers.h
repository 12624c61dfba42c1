// File: ops/reduce_helpers.h
// -----------------------------------------------------------------------------
// Reduction building blocks shared by reduction.cc, variance.cc, scatter.cc,
// index_reduce.cc, distance.cc and embedding_renorm.cc: checked reduced axes,
// one Reduce* node in opset 18's axes-as-input form, the identity element of
// a reduction, torch's vector p-norm.
#ifndef PT2ONNX_OPS_REDUCE_HELPERS_H_
#define PT2ONNX_OPS_REDUCE_HELPERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "ops/translate_api.h"
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

// torch's vector p-norm of `x` over `axes` (every axis when empty), in
// `dtype`: p = 0 counts the nonzeros, +-inf is the largest / smallest
// magnitude, otherwise (sum |x|^p)^(1/p).
std::string PNormOver(TranslateContext& ctx, const std::string& x, double p,
                      const std::vector<int64_t>& axes, bool keepdim, DataType dtype);

// `int[1]? dim` arguments: None and [] both mean "all dimensions" for the
// reductions that take them (sum, mean, var, std, norms).
absl::StatusOr<std::vector<int64_t>> OptionalDims(TranslateContext& ctx, absl::string_view arg,
                                                  int64_t rank);

// `self` cast to the node's output dtype (torch's accumulation dtype, which
// also reflects an explicit `dtype=` argument).
absl::StatusOr<std::string> SelfAsOutputDtype(TranslateContext& ctx, int output = 0);

// A 0-d constant of `dtype` that is the identity of `reduction` ("add": 0,
// "mul": 1, "max": the lowest value, "min": the highest; bool: false/true).
std::string ReductionIdentity(TranslateContext& ctx, DataType dtype, absl::string_view reduction);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_REDUCE_HELPERS_H_
