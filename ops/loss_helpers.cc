// File: ops/loss_helpers.cc
// -----------------------------------------------------------------------------
// Reading and applying torch's loss reduction (ops/loss_helpers.h).
#include "ops/loss_helpers.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/reduce_helpers.h"
#include "ops/translate_api.h"

namespace pt2onnx::ops {

absl::StatusOr<LossReduction> ReadLossReduction(const TranslateContext& ctx) {
  int64_t reduction = 1;
  if (ctx.Has("reduction")) {
    PT2ONNX_ASSIGN_OR_RETURN(reduction, ctx.Int("reduction"));
  }
  if (reduction < 0 || reduction > 2) {
    return ctx.Invalid(absl::StrCat("reduction ", reduction, " is not 0 (none), 1 (mean) or 2 (sum)"));
  }
  return static_cast<LossReduction>(reduction);
}

std::string ApplyLossReduction(TranslateContext& ctx, const std::string& loss,
                               LossReduction reduction) {
  switch (reduction) {
    case LossReduction::kNone:
      return loss;
    case LossReduction::kMean:
      return Reduce(ctx, "ReduceMean", loss, {}, false);
    case LossReduction::kSum:
      return Reduce(ctx, "ReduceSum", loss, {}, false);
  }
  return loss;
}

}  // namespace pt2onnx::ops
