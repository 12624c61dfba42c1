#include "passes/fusion_match.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pt2onnx::passes {
namespace {

// More leaves than any fused pattern has: a longer product is not one.
constexpr size_t kMaxMulLeaves = 6;

}  // namespace

const ir::Node* FusionMatch::Take(const std::string& value, const char* op_type) {
  auto it = editor_->uses().producer.find(value);
  if (it == editor_->uses().producer.end() || editor_->IsRemoved(it->second)) return nullptr;
  const ir::Node& node = editor_->graph().nodes[it->second];
  // Every op matched reads at least one input: inputs[0] is then safe.
  if (!IsOp(node, op_type) || node.outputs.size() != 1 || node.inputs.empty()) return nullptr;
  nodes_.insert(it->second);
  return &node;
}

const ir::Node* FusionMatch::SoleReader(const std::string& value, const char* op_type,
                                        size_t* index_out) const {
  if (editor_->HasOpaqueUse(value) || editor_->ConsumerCount(value) != 1) return nullptr;
  size_t i = editor_->uses().consumers.at(value)[0];
  if (editor_->IsRemoved(i)) return nullptr;
  const ir::Node& node = editor_->graph().nodes[i];
  if (!IsOp(node, op_type) || node.outputs.size() != 1) return nullptr;
  *index_out = i;
  return &node;
}

std::vector<std::string> FusionMatch::MulLeaves(const std::string& value) {
  std::vector<std::string> leaves;
  std::vector<std::pair<std::string, bool>> pending = {{value, true}};
  while (!pending.empty()) {
    auto [v, is_root] = pending.back();
    pending.pop_back();
    bool open = is_root || (editor_->ConsumerCount(v) == 1 && !editor_->HasOpaqueUse(v));
    const ir::Node* mul = open ? Take(v, "Mul") : nullptr;
    if (mul == nullptr || mul->inputs.size() != 2) {
      leaves.push_back(v);
    } else {
      pending.push_back({mul->inputs[1], false});
      pending.push_back({mul->inputs[0], false});
    }
    if (leaves.size() + pending.size() > kMaxMulLeaves) return {};
  }
  return leaves;
}

std::optional<size_t> FusionMatch::Rank(const std::string& value, int depth) const {
  std::optional<size_t> rank = index_->Rank(value);
  const ir::Node* node = editor_->Producer(value);
  if (rank || node == nullptr || depth > 6) return rank;
  if (IsOp(*node, "Reshape") && node->inputs.size() == 2) {
    const ir::Tensor* shape = index_->Constant(node->inputs[1]);
    if (shape == nullptr || shape->dims().size() != 1) return std::nullopt;
    return static_cast<size_t>(shape->dims()[0]);
  }
  // Unary ops and a kept-dims mean: their input's rank.
  static const char* const kSameRank[] = {"Sqrt", "Reciprocal", "Erf", "Tanh", "ReduceMean"};
  for (const char* op : kSameRank) {
    if (IsOp(*node, op) && !node->inputs.empty() && IntAttribute(*node, "keepdims", 1) == 1) {
      return Rank(node->inputs[0], depth + 1);
    }
  }
  // Broadcasting elementwise ops: the largest input rank.
  static const char* const kElementwise[] = {"Add", "Sub", "Mul", "Div", "Pow"};
  bool elementwise = false;
  for (const char* op : kElementwise) elementwise = elementwise || IsOp(*node, op);
  if (!elementwise || node->inputs.size() != 2) return std::nullopt;
  std::optional<size_t> a = Rank(node->inputs[0], depth + 1);
  std::optional<size_t> b = Rank(node->inputs[1], depth + 1);
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

std::optional<double> FusionMatch::Scalar(const std::string& value, size_t max_rank) const {
  const ir::Tensor* t = index_->Constant(value);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->dims().size() > max_rank) return std::nullopt;
  std::optional<double> v = ConstantScalar(t);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

bool FusionMatch::ScalarIs(const std::string& value, double expected, size_t max_rank) const {
  std::optional<double> v = Scalar(value, max_rank);
  // float32 holds the reference value to about 6e-8 relative.
  return v && std::fabs(*v - expected) <= 1e-6 * std::fabs(expected);
}

std::string FusionMatch::Other(const ir::Node& node, const std::string& one) {
  if (node.inputs.size() != 2) return "";
  if (node.inputs[0] == one) return node.inputs[1];
  if (node.inputs[1] == one) return node.inputs[0];
  return "";
}

bool FusionMatch::Contained(const std::string& result) const {
  for (size_t i : nodes_) {
    for (const std::string& out : editor_->graph().nodes[i].outputs) {
      if (out == result) continue;
      if (editor_->HasOpaqueUse(out)) return false;
      auto it = editor_->uses().consumers.find(out);
      if (it == editor_->uses().consumers.end()) continue;
      for (size_t reader : it->second) {
        if (!nodes_.contains(reader)) return false;
      }
    }
  }
  return true;
}

void FusionMatch::Replace(size_t root, ir::Node fused, const ir::Node& origin) {
  const ir::Node& root_node = editor_->graph().nodes[root];
  fused.name = root_node.name;
  fused.metadata = root_node.metadata;
  for (size_t i : nodes_) editor_->Remove(i);
  editor_->Remove(root);
  editor_->InsertBefore(root, std::move(fused), &origin);
}

void FusionMatch::Replace(size_t root, std::vector<ir::Node> fused, const ir::Node& origin) {
  const ir::Node& root_node = editor_->graph().nodes[root];
  for (ir::Node& node : fused) node.metadata = root_node.metadata;
  if (!fused.empty()) fused.back().name = root_node.name;
  for (size_t i : nodes_) editor_->Remove(i);
  editor_->Remove(root);
  for (ir::Node& node : fused) editor_->InsertBefore(root, std::move(node), &origin);
}

std::optional<int64_t> TrailingReduceAxis(const ir::Node& reduce_mean, const FusionMatch& match) {
  if (reduce_mean.inputs.empty() || IntAttribute(reduce_mean, "keepdims", 1) != 1) return std::nullopt;
  const ValueIndex& index = match.index();
  std::optional<size_t> rank = match.Rank(reduce_mean.inputs[0]);
  // ONNX runtimes stop well below 64 dims; a larger rank is hostile.
  if (!rank || *rank == 0 || *rank > 64) return std::nullopt;
  std::optional<std::vector<int64_t>> axes;
  if (reduce_mean.inputs.size() == 2 && !reduce_mean.inputs[1].empty()) {
    axes = ConstantInts(index.Constant(reduce_mean.inputs[1]));
  } else if (reduce_mean.inputs.size() == 1) {
    const ir::Attribute* attr = reduce_mean.FindAttribute("axes");
    if (attr != nullptr && attr->type() == ir::Attribute::Type::kInts) axes = attr->ints();
  }
  if (!axes || axes->empty() || axes->size() > *rank) return std::nullopt;
  const int64_t r = static_cast<int64_t>(*rank);
  const int64_t first = r - static_cast<int64_t>(axes->size());
  std::vector<bool> seen(*rank, false);
  for (int64_t a : *axes) {
    if (a < -r || a >= r) return std::nullopt;
    int64_t axis = a < 0 ? a + r : a;
    if (axis < first || seen[axis]) return std::nullopt;
    seen[axis] = true;
  }
  return first;
}

std::optional<NormCore> MatchNormCore(FusionMatch& match, size_t norm_index) {
  const ir::Node& norm = match.editor().graph().nodes[norm_index];
  if (!(IsOp(norm, "Div") || IsOp(norm, "Mul")) || norm.outputs.size() != 1 || norm.inputs.size() != 2) {
    return std::nullopt;
  }
  match.TakeIndex(norm_index);
  NormCore core;
  const ir::Node* sqrt = nullptr;
  if (IsOp(norm, "Div")) {
    core.numerator = norm.inputs[0];
    sqrt = match.Take(norm.inputs[1], "Sqrt");
  } else if (IsOp(norm, "Mul")) {
    for (int side = 0; side < 2 && sqrt == nullptr; ++side) {
      FusionMatch probe = match;
      const ir::Node* reciprocal = probe.Take(norm.inputs[side], "Reciprocal");
      if (reciprocal == nullptr) continue;
      sqrt = probe.Take(reciprocal->inputs[0], "Sqrt");
      if (sqrt == nullptr) continue;
      match = probe;
      core.numerator = norm.inputs[1 - side];
    }
  }
  if (sqrt == nullptr) return std::nullopt;
  const ir::Node* add = match.Take(sqrt->inputs[0], "Add");
  if (add == nullptr || add->inputs.size() != 2) return std::nullopt;
  const ir::Node* mean = nullptr;
  std::string eps;
  for (int side = 0; side < 2 && mean == nullptr; ++side) {
    FusionMatch probe = match;
    mean = probe.Take(add->inputs[side], "ReduceMean");
    if (mean == nullptr) continue;
    match = probe;
    eps = add->inputs[1 - side];
  }
  if (mean == nullptr) return std::nullopt;
  std::optional<int64_t> axis = TrailingReduceAxis(*mean, match);
  std::optional<size_t> rank = match.Rank(mean->inputs[0]);
  if (!axis || !rank) return std::nullopt;
  std::optional<double> epsilon = match.Scalar(eps, *rank);
  if (!epsilon || *epsilon < 0) return std::nullopt;

  const ir::Node* square = match.Take(mean->inputs[0], "Pow");
  if (square != nullptr) {
    if (square->inputs.size() != 2 || square->inputs[0] != core.numerator) return std::nullopt;
    const ir::Tensor* exponent = match.index().Constant(square->inputs[1]);
    std::optional<double> two = ConstantScalar(exponent);
    if (!two || *two != 2.0 || exponent->dims().size() > *rank) return std::nullopt;
  } else {
    square = match.Take(mean->inputs[0], "Mul");
    if (square == nullptr || square->inputs.size() != 2 || square->inputs[0] != core.numerator ||
        square->inputs[1] != core.numerator) {
      return std::nullopt;
    }
  }
  core.axis = *axis;
  core.epsilon = *epsilon;
  core.square = square;
  return core;
}

std::string AbsorbNormParameter(FusionMatch& match, const char* op_type, const std::string& x,
                                int64_t axis, std::string* result, size_t* root) {
  size_t next = 0;
  const ir::Node* reader = match.SoleReader(*result, op_type, &next);
  if (reader == nullptr) return "";
  std::string param = FusionMatch::Other(*reader, *result);
  if (param.empty() || param == *result || !IsNormParameter(match, param, x, axis)) return "";
  match.TakeIndex(next);
  *root = next;
  *result = reader->outputs[0];
  return param;
}

bool IsNormParameter(const FusionMatch& match, const std::string& value, const std::string& x, int64_t axis) {
  if (match.index().DType(value) != DataType::kFloat) return false;
  std::optional<std::vector<int64_t>> p = match.index().StaticShape(value);
  const ir::ValueInfo* info = match.index().Info(x);
  if (!p || info == nullptr || !info->shape) return false;
  const std::vector<ir::Dim>& dims = *info->shape;
  if (axis < 0 || static_cast<size_t>(axis) > dims.size() || p->size() != dims.size() - axis) return false;
  for (size_t k = 0; k < p->size(); ++k) {
    const ir::Dim& d = dims[axis + k];
    if (!d.is_static() || d.value != (*p)[k]) return false;
  }
  return true;
}

bool NormalizesOneElement(const FusionMatch& match, const std::string& x, int64_t axis) {
  std::optional<std::vector<int64_t>> dims = match.index().StaticShape(x);
  if (!dims || axis < 0 || static_cast<size_t>(axis) > dims->size()) return false;
  // Every normalized dim is 1 (no product: shapes come from the file).
  return std::all_of(dims->begin() + axis, dims->end(), [](int64_t d) { return d == 1; });
}

std::string AddOnesScale(FusionMatch& match, const std::string& x, int64_t axis) {
  std::optional<std::vector<int64_t>> dims = match.index().StaticShape(x);
  if (!dims || axis < 0 || static_cast<size_t>(axis) >= dims->size()) return "";
  std::vector<int64_t> scale_dims(dims->begin() + axis, dims->end());
  int64_t n = 1;
  for (int64_t d : scale_dims) {
    if (d <= 0 || d > kMaxOnesElements || n > kMaxOnesElements / d) return "";
    n *= d;
  }
  std::string bytes;
  const float one = 1.0f;
  bytes.reserve(static_cast<size_t>(n) * sizeof(float));
  for (int64_t i = 0; i < n; ++i) bytes.append(reinterpret_cast<const char*>(&one), sizeof(float));
  ir::Initializer init;
  init.name = match.editor().FreshName(x + "_norm_scale");
  init.tensor = ir::Tensor::Owned(DataType::kFloat, std::move(scale_dims), std::move(bytes));
  std::string name = init.name;
  match.editor().AddInitializer(std::move(init));
  return name;
}

absl::StatusOr<bool> RunFusion(
    ir::Model& model, int64_t min_opset,
    absl::FunctionRef<void(ir::GraphEditor& editor, const ValueIndex& index, size_t i)> fuse_at) {
  if (model.OnnxOpset() < min_opset) return false;
  ValueIndex index(model.graph);
  ir::GraphEditor editor(model.graph);
  for (size_t i = 0; i < model.graph.nodes.size(); ++i) {
    if (!editor.IsRemoved(i)) fuse_at(editor, index, i);
  }
  if (editor.empty()) return false;
  absl::Status status = editor.Commit();
  if (!status.ok()) return status;
  return true;
}

}  // namespace pt2onnx::passes
