// What every op family file is written against: the translation engine's API
// (translate/), by its plain names. Op families are translate/'s clients, so
// namespace pt2onnx::ops sees pt2onnx::translate the way MLIR dialects see
// mlir::; only ops/ and its tests include this header.
#ifndef PT2ONNX_OPS_TRANSLATE_API_H_
#define PT2ONNX_OPS_TRANSLATE_API_H_

#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

using namespace ::pt2onnx::translate;  // NOLINT(build/namespaces): see above

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_TRANSLATE_API_H_
