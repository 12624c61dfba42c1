// File: ops/gamma_helpers.h
// -----------------------------------------------------------------------------
// The log-gamma composite of ops/special_math.cc for other families (the
// incomplete gamma functions of ops/incomplete_gamma.cc).
#ifndef PT2ONNX_OPS_GAMMA_HELPERS_H_
#define PT2ONNX_OPS_GAMMA_HELPERS_H_

#include <string>

#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// ln|Gamma(x)| of a float64 value `x` as float64 (Lanczos with reflection;
// +inf at the poles and infinities), as aten::lgamma translates it.
std::string LgammaDouble(TranslateContext& ctx, const std::string& x);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_GAMMA_HELPERS_H_
