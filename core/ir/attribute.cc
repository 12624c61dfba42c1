#include "core/ir/attribute.h"

#include <utility>

#include "core/ir/graph.h"

namespace pt2onnx::ir {

Attribute Attribute::Int(std::string name, int64_t v) { return Make<Type::kInt>(std::move(name), v); }
Attribute Attribute::Float(std::string name, float v) { return Make<Type::kFloat>(std::move(name), v); }
Attribute Attribute::String(std::string name, std::string v) {
  return Make<Type::kString>(std::move(name), std::move(v));
}
Attribute Attribute::Ints(std::string name, std::vector<int64_t> v) {
  return Make<Type::kInts>(std::move(name), std::move(v));
}
Attribute Attribute::Floats(std::string name, std::vector<float> v) {
  return Make<Type::kFloats>(std::move(name), std::move(v));
}
Attribute Attribute::Strings(std::string name, std::vector<std::string> v) {
  return Make<Type::kStrings>(std::move(name), std::move(v));
}
Attribute Attribute::TensorValue(std::string name, Tensor v) {
  return Make<Type::kTensor>(std::move(name), std::move(v));
}
Attribute Attribute::GraphValue(std::string name, Graph v) {
  return Make<Type::kGraph>(std::move(name), Box<Graph>(std::move(v)));
}

const Graph& Attribute::g() const { return *Get<Type::kGraph>(); }
Graph& Attribute::mutable_g() { return *Mutable<Type::kGraph>(); }

}  // namespace pt2onnx::ir
