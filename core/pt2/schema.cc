#include "core/pt2/schema.h"

namespace pt2onnx::pt2 {

// Names follow torch.export.graph_signature.InputKind / OutputKind. torch has
// no kind for constant inputs (they are USER_INPUTs holding a
// ConstantArgument); CONSTANT_INPUT says what they are in our messages.
const char* InputKindName(InputSpec::Kind kind) {
  switch (kind) {
    case InputSpec::Kind::kUserInput:
      return "USER_INPUT";
    case InputSpec::Kind::kParameter:
      return "PARAMETER";
    case InputSpec::Kind::kBuffer:
      return "BUFFER";
    case InputSpec::Kind::kTensorConstant:
      return "CONSTANT_TENSOR";
    case InputSpec::Kind::kCustomObj:
      return "CUSTOM_OBJ";
    case InputSpec::Kind::kToken:
      return "TOKEN";
    case InputSpec::Kind::kConstantInput:
      return "CONSTANT_INPUT";
  }
  return "UNKNOWN";
}

const char* OutputKindName(OutputSpec::Kind kind) {
  switch (kind) {
    case OutputSpec::Kind::kUserOutput:
      return "USER_OUTPUT";
    case OutputSpec::Kind::kLossOutput:
      return "LOSS_OUTPUT";
    case OutputSpec::Kind::kBufferMutation:
      return "BUFFER_MUTATION";
    case OutputSpec::Kind::kParameterMutation:
      return "PARAMETER_MUTATION";
    case OutputSpec::Kind::kGradientToParameter:
      return "GRADIENT_TO_PARAMETER";
    case OutputSpec::Kind::kGradientToUserInput:
      return "GRADIENT_TO_USER_INPUT";
    case OutputSpec::Kind::kUserInputMutation:
      return "USER_INPUT_MUTATION";
    case OutputSpec::Kind::kToken:
      return "TOKEN";
  }
  return "UNKNOWN";
}

void ForEachValueName(Argument& a, const std::function<void(std::string&)>& f) {
  using Kind = Argument::Kind;
  if (a.kind == Kind::kTensor || (a.kind == Kind::kOptionalTensor && a.b)) f(a.name);
  for (std::string& n : a.names) f(n);
  for (auto& n : a.optional_names) {
    if (n.has_value()) f(*n);
  }
  if (a.sym.is_name) f(a.sym.name);
  for (SymArg& s : a.syms) {
    if (s.is_name) f(s.name);
  }
  for (auto& list : a.nested_names) {
    for (std::string& n : list) f(n);
  }
  for (auto& [key, value] : a.named) ForEachValueName(value, f);
}

}  // namespace pt2onnx::pt2
