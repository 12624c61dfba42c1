// File: ops/norm_helpers.h
// -----------------------------------------------------------------------------
// Building blocks shared by the normalization families (batch_norm.cc,
// normalization.cc): the compute dtype and per-channel parameters.
#ifndef PT2ONNX_OPS_NORM_HELPERS_H_
#define PT2ONNX_OPS_NORM_HELPERS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// torch computes half-precision norms in float (at::opmath_type); so do we.
DataType ComputeType(DataType dtype);

// The optional per-channel argument `arg` cast to `dtype`, or `fill` per channel.
absl::StatusOr<std::string> ChannelParam(TranslateContext& ctx, absl::string_view arg,
                                         DataType dtype, double fill);

// y * weight + bias with (C) parameters broadcast over (N, C, spatial...).
absl::StatusOr<std::string> ChannelAffine(TranslateContext& ctx, std::string y, int64_t rank,
                                          DataType dtype);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_NORM_HELPERS_H_
