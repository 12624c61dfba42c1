// File: ops/random_draws.h
// -----------------------------------------------------------------------------
// The random draws the random-op families share (random.cc, distributions.cc,
// dropout.cc, attention.cc): uniform and normal double tensors from ONNX
// RandomUniformLike / RandomNormalLike and torch's dropout masks. Every call
// emits its own draw node; the optimizer never merges or folds them
// (passes/common_subexpression_elimination.cc, passes/constant_folding.cc).
//
//   std::string u = UniformDoubleLike(ctx, x);     // U[0, 1), x's shape
//   PT2ONNX_ASSIGN_OR_RETURN(std::string y, ApplyDropout(ctx, x, dtype, 0.1, x));
#ifndef PT2ONNX_OPS_RANDOM_DRAWS_H_
#define PT2ONNX_OPS_RANDOM_DRAWS_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// A DOUBLE tensor of `shape` (a 1-D INT64 value) drawn from U[0, 1).
std::string UniformDouble(TranslateContext& ctx, const std::string& shape);

// A DOUBLE tensor shaped like the value `like` (any dtype) drawn from U[0, 1).
std::string UniformDoubleLike(TranslateContext& ctx, const std::string& like);

// A DOUBLE tensor shaped like the value `like` drawn from N(0, 1).
std::string NormalDoubleLike(TranslateContext& ctx, const std::string& like);

// A BOOL tensor shaped like `like`, each element true with probability `keep`
// (torch's bernoulli_(keep) on a noise tensor).
std::string KeepMask(TranslateContext& ctx, const std::string& like, double keep);

// Training-mode dropout of `x` (dtype `dtype`, a float type) with drop
// probability p in [0, 1], as torch's _dropout_impl computes it
// (aten/src/ATen/native/Dropout.cpp): x * mask / (1 - p), the mask shaped
// like `noise_like` (x itself, or [N, C, 1, ...] for feature dropout) and
// broadcast; p == 1 gives x * 0 (NaN and infinity stay NaN). p == 0 draws
// nothing and returns x.
std::string ApplyDropout(TranslateContext& ctx, const std::string& x, DataType dtype, double p,
                         const std::string& noise_like);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_RANDOM_DRAWS_H_
