// File: ops/loss_helpers.h
// -----------------------------------------------------------------------------
// What the loss families (loss.cc, classification_loss.cc) share: torch's
// `int reduction` argument (at::Reduction: 0 none, 1 mean, 2 sum) read and
// applied to an elementwise loss.
#ifndef PT2ONNX_OPS_LOSS_HELPERS_H_
#define PT2ONNX_OPS_LOSS_HELPERS_H_

#include <string>

#include "absl/status/statusor.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

enum class LossReduction { kNone = 0, kMean = 1, kSum = 2 };

// The node's `reduction` argument; InvalidArgument outside 0..2.
absl::StatusOr<LossReduction> ReadLossReduction(const TranslateContext& ctx);

// `loss` unchanged (none), or its mean / sum over every element as a 0-d
// value.
std::string ApplyLossReduction(TranslateContext& ctx, const std::string& loss,
                               LossReduction reduction);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_LOSS_HELPERS_H_
