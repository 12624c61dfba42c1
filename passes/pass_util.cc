#include "passes/pass_util.h"

namespace pt2onnx::passes {

bool IsOp(const ir::Node& node, const char* op_type) {
  return node.domain.empty() && node.op_type == op_type;
}

bool HasSubgraph(const ir::Node& node) {
  for (const ir::Attribute& attr : node.attributes) {
    if (attr.type() == ir::Attribute::Type::kGraph) return true;
  }
  return false;
}

int64_t IntAttribute(const ir::Node& node, const char* name, int64_t fallback) {
  const ir::Attribute* attr = node.FindAttribute(name);
  return attr != nullptr && attr->type() == ir::Attribute::Type::kInt ? attr->i() : fallback;
}

ValueIndex::ValueIndex(const ir::Graph& graph) {
  // Sized once: each growth of a table hashes and moves every entry again (passes build this per run).
  constants_.reserve(graph.initializers.size());
  infos_.reserve(graph.initializers.size() + graph.value_info.size() + graph.outputs.size() + graph.inputs.size());
  for (const ir::Initializer& init : graph.initializers) {
    constants_[init.name] = &init.tensor;
    ir::ValueInfo info{init.name, init.tensor.dtype(), std::vector<ir::Dim>{}, {}};
    for (int64_t d : init.tensor.dims()) info.shape->push_back(ir::Dim::Static(d));
    infos_[init.name] = std::move(info);
  }
  for (const auto& [name, info] : graph.value_info) infos_[name] = info;
  for (const ir::ValueInfo& out : graph.outputs) infos_[out.name] = out;
  for (const ir::ValueInfo& in : graph.inputs) {
    constants_.erase(in.name);
    infos_[in.name] = in;
  }
}

const ir::Tensor* ValueIndex::Constant(const std::string& name) const {
  auto it = constants_.find(name);
  return it == constants_.end() ? nullptr : it->second;
}

const ir::ValueInfo* ValueIndex::Info(const std::string& name) const {
  auto it = infos_.find(name);
  return it == infos_.end() ? nullptr : &it->second;
}

DataType ValueIndex::DType(const std::string& name) const {
  const ir::ValueInfo* info = Info(name);
  return info == nullptr ? DataType::kUndefined : info->dtype;
}

std::optional<std::vector<int64_t>> ValueIndex::StaticShape(const std::string& name) const {
  const ir::ValueInfo* info = Info(name);
  if (info == nullptr || !info->shape.has_value()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const ir::Dim& d : *info->shape) {
    if (!d.is_static()) return std::nullopt;
    dims.push_back(d.value);
  }
  return dims;
}

std::optional<size_t> ValueIndex::Rank(const std::string& name) const {
  const ir::ValueInfo* info = Info(name);
  if (info == nullptr || !info->shape.has_value()) return std::nullopt;
  return info->shape->size();
}

std::optional<std::vector<int64_t>> ConstantInts(const ir::Tensor* tensor, int64_t limit) {
  if (tensor == nullptr) return std::nullopt;
  DataType dt = tensor->dtype();
  if (dt != DataType::kInt64 && dt != DataType::kInt32) return std::nullopt;
  int64_t n = tensor->numel();
  if (n < 0 || n > limit || tensor->bytes().size() != tensor->byte_size()) return std::nullopt;
  std::vector<int64_t> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(tensor->GetInt64(i));
  return values;
}

std::optional<double> ConstantScalar(const ir::Tensor* tensor) {
  if (tensor == nullptr || tensor->numel() != 1 || tensor->bytes().size() != tensor->byte_size()) {
    return std::nullopt;
  }
  return tensor->GetDouble(0);
}

}  // namespace pt2onnx::passes
