// File: core/ir/function.h
// -----------------------------------------------------------------------------
// An ONNX function (FunctionProto) as plain data: the body of a user-supplied
// translation (ops/custom_translations.h), read by core/onnx/model_reader.
#ifndef PT2ONNX_CORE_IR_FUNCTION_H_
#define PT2ONNX_CORE_IR_FUNCTION_H_

#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace pt2onnx::ir {

// ir::Function is defined in graph.h, next to the Model that can carry it.

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_FUNCTION_H_
