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

struct Function {
  std::string domain;
  std::string name;
  std::vector<std::string> inputs;   // formal parameter names, in order
  std::vector<std::string> outputs;
  std::vector<Node> nodes;           // topologically ordered body
  std::vector<OpsetImport> opset_imports;
};

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_FUNCTION_H_
