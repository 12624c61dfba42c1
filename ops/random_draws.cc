// File: ops/random_draws.cc
// -----------------------------------------------------------------------------
// The shared random draws of ops/random_draws.h. Draws are made in double
// (53 random bits in the executor) so that comparing a draw with a
// probability, or mapping it through a quantile function, loses nothing to
// float32 rounding before the result is narrowed.
#include "ops/random_draws.h"

#include <cstdint>
#include <string>

#include "core/ir/graph.h"
#include "ops/translate_api.h"

namespace pt2onnx::ops {

using ir::Attribute;

std::string UniformDoubleLike(TranslateContext& ctx, const std::string& like) {
  return ctx.Op("RandomUniformLike", {like},
                {Attribute::Int("dtype", static_cast<int64_t>(DataType::kDouble)),
                 Attribute::Float("low", 0.0f), Attribute::Float("high", 1.0f)});
}

std::string UniformDouble(TranslateContext& ctx, const std::string& shape) {
  return UniformDoubleLike(ctx, ctx.Op("Expand", {ctx.ConstantScalar(DataType::kDouble, 0), shape}));
}

std::string NormalDoubleLike(TranslateContext& ctx, const std::string& like) {
  return ctx.Op("RandomNormalLike", {like},
                {Attribute::Int("dtype", static_cast<int64_t>(DataType::kDouble)),
                 Attribute::Float("mean", 0.0f), Attribute::Float("scale", 1.0f)});
}

// u < keep with u in [0, 1): true with probability keep exactly (for keep
// a multiple of 2^-53), never for keep == 0, always for keep == 1.
std::string KeepMask(TranslateContext& ctx, const std::string& like, double keep) {
  return ctx.Op("Less", {UniformDoubleLike(ctx, like), ctx.ConstantScalar(DataType::kDouble, keep)});
}

std::string ApplyDropout(TranslateContext& ctx, const std::string& x, DataType dtype, double p,
                         const std::string& noise_like) {
  if (p == 0) return x;
  if (p == 1) return ctx.Op("Mul", {x, ctx.ConstantScalar(dtype, 0)});
  // noise = bernoulli(1 - p) / (1 - p), in x's dtype, as torch divides it.
  std::string mask = ctx.CastTo(KeepMask(ctx, noise_like, 1 - p), DataType::kBool, dtype);
  std::string noise = ctx.Op("Div", {mask, ctx.ConstantScalar(dtype, 1 - p)});
  return ctx.Op("Mul", {x, noise});
}

}  // namespace pt2onnx::ops
