// reshape_elimination: removes or shortens chains of shape-only ops.
//
// Rules: Reshape(y, s) where y comes from Reshape/Flatten/Squeeze/Unsqueeze
// of x reads x directly when s is a constant without 0 entries (a 0 copies a
// dim of its input, which the chain changes; with allowzero=1 a 0 is a size)
// — a Reshape depends only on its input's element order, which those ops keep.
// A Reshape to a constant shape equal to its input's static shape, an Expand
// to a shape the input already has, and
// Squeeze(Unsqueeze(x, a), a) with the same constant axes, are bypassed; a
// -1 in the constant shape is resolved against the static input shape first,
// and Shape(x)'s output counts as static ([end - start] for x's known rank).
// A Reshape or Expand whose known output shape equals its input's, dim for
// dim (same sizes, same symbols), is bypassed too. Unsqueeze(Unsqueeze(x,
// a1), a2), the inner one read only there, becomes one Unsqueeze with the
// axes combined (negative axes need x's rank).
// Non-rules: shapes known only at run time are left alone.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

bool IsShapeOnly(const ir::Node& node) {
  return IsOp(node, "Reshape") || IsOp(node, "Flatten") || IsOp(node, "Squeeze") || IsOp(node, "Unsqueeze");
}

// True when input and output have the same known shape, dim for dim (equal
// sizes or the same symbol): the shape-only op returns its input unchanged.
bool SameKnownShape(const ValueIndex& index, const std::string& in, const std::string& out) {
  const ir::ValueInfo* a = index.Info(in);
  const ir::ValueInfo* b = index.Info(out);
  if (a == nullptr || b == nullptr || !a->shape || !b->shape || a->shape->size() != b->shape->size()) return false;
  if (a->dtype != b->dtype || a->dtype == DataType::kUndefined) return false;
  for (size_t k = 0; k < a->shape->size(); ++k) {
    const ir::Dim& x = (*a->shape)[k];
    const ir::Dim& y = (*b->shape)[k];
    const bool same = x.is_static() ? (y.is_static() && x.value == y.value) : (!x.param.empty() && x.param == y.param);
    if (!same) return false;
  }
  return true;
}

// The static shape of `value`, also for a Shape node's 1-D output.
std::optional<std::vector<int64_t>> KnownShape(const ValueIndex& index, const ir::GraphEditor& editor,
                                               const std::string& value) {
  if (std::optional<std::vector<int64_t>> shape = index.StaticShape(value)) return shape;
  const ir::Node* producer = editor.Producer(value);
  if (producer == nullptr || !IsOp(*producer, "Shape") || producer->inputs.size() != 1) return std::nullopt;
  std::optional<size_t> rank = index.Rank(producer->inputs[0]);
  if (!rank) return std::nullopt;
  const int64_t r = static_cast<int64_t>(*rank);
  auto clamp = [r](int64_t v) {
    if (v < 0) v += r;
    return v < 0 ? 0 : (v > r ? r : v);
  };
  const int64_t start = clamp(IntAttribute(*producer, "start", 0));
  const int64_t end = clamp(IntAttribute(*producer, "end", r));
  return std::vector<int64_t>{end > start ? end - start : 0};
}

// `target` with its one -1 resolved for an input of static shape `in`
// (nullopt when it does not resolve: several -1, a 0 entry, no fit).
std::optional<std::vector<int64_t>> ResolveTarget(std::vector<int64_t> target, const std::vector<int64_t>& in) {
  int64_t numel = 1;
  for (int64_t d : in) {
    if (__builtin_mul_overflow(numel, d, &numel)) return std::nullopt;
  }
  int64_t known = 1;
  int minus_one = -1;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == -1 && minus_one < 0) {
      minus_one = static_cast<int>(k);
    } else if (target[k] <= 0 || __builtin_mul_overflow(known, target[k], &known)) {
      return std::nullopt;
    }
  }
  if (minus_one >= 0) {
    if (known == 0 || numel % known != 0) return std::nullopt;
    target[static_cast<size_t>(minus_one)] = numel / known;
  }
  return target;
}

// Axes of Unsqueeze(Unsqueeze(x, inner), outer) as one Unsqueeze, or nullopt
// (negative axes with x's rank unknown, or axes out of range).
std::optional<std::vector<int64_t>> CombinedUnsqueezeAxes(std::vector<int64_t> inner, std::vector<int64_t> outer,
                                                          std::optional<size_t> x_rank) {
  const bool negative = std::any_of(inner.begin(), inner.end(), [](int64_t a) { return a < 0; }) ||
                        std::any_of(outer.begin(), outer.end(), [](int64_t a) { return a < 0; });
  if (negative && !x_rank) return std::nullopt;
  if (x_rank) {
    const int64_t mid = static_cast<int64_t>(*x_rank + inner.size());
    const int64_t final_rank = mid + static_cast<int64_t>(outer.size());
    for (int64_t& a : inner) a = a < 0 ? a + mid : a;
    for (int64_t& a : outer) a = a < 0 ? a + final_rank : a;
    for (int64_t a : inner) {
      if (a < 0 || a >= mid) return std::nullopt;
    }
    for (int64_t a : outer) {
      if (a < 0 || a >= final_rank) return std::nullopt;
    }
  }
  std::sort(outer.begin(), outer.end());
  if (std::adjacent_find(outer.begin(), outer.end()) != outer.end()) return std::nullopt;
  // Dim p of the middle tensor lands on the p-th final position not taken by `outer`.
  std::vector<int64_t> combined = outer;
  for (int64_t p : inner) {
    if (p > (int64_t{1} << 40)) return std::nullopt;  // no valid rank is that large
    int64_t position = p;
    for (int64_t o : outer) {
      if (o > position) break;
      ++position;
    }
    combined.push_back(position);
  }
  std::sort(combined.begin(), combined.end());
  if (std::adjacent_find(combined.begin(), combined.end()) != combined.end()) return std::nullopt;
  return combined;
}

class ReshapeEliminationPass : public Pass {
 public:
  std::string Name() const override { return "reshape_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    bool changed = false;
    auto bypass = [&](size_t i, const std::string& source) {
      const ir::Node& node = graph.nodes[i];
      if (graph.IsOutput(node.outputs[0]) && editor.Producer(source) == nullptr) return;
      editor.ReplaceAllUses(node.outputs[0], source);
      editor.Remove(i);
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      ir::Node& node = graph.nodes[i];
      if (node.outputs.size() != 1 || node.inputs.empty()) continue;
      if ((IsOp(node, "Reshape") || IsOp(node, "Expand")) && node.inputs.size() == 2 &&
          SameKnownShape(index, node.inputs[0], node.outputs[0])) {
        bypass(i, node.inputs[0]);
        continue;
      }
      if (IsOp(node, "Reshape") && node.inputs.size() == 2) {
        std::optional<std::vector<int64_t>> shape = ConstantInts(index.Constant(node.inputs[1]));
        if (!shape) continue;
        bool has_zero = false;
        for (int64_t d : *shape) has_zero = has_zero || d == 0;
        const bool zero_is_size = IntAttribute(node, "allowzero", 0) == 1;
        const ir::Node* inner = editor.Producer(node.inputs[0]);
        if (inner != nullptr && IsShapeOnly(*inner) && (!has_zero || zero_is_size)) {
          node.inputs[0] = inner->inputs[0];
          changed = true;
        }
        std::optional<std::vector<int64_t>> in_shape = KnownShape(index, editor, node.inputs[0]);
        std::optional<std::vector<int64_t>> resolved = in_shape ? ResolveTarget(*shape, *in_shape) : std::nullopt;
        if (in_shape && (*in_shape == *shape || resolved == in_shape)) bypass(i, node.inputs[0]);
      } else if (IsOp(node, "Unsqueeze") && node.inputs.size() == 2) {
        const ir::Node* inner = editor.Producer(node.inputs[0]);
        if (inner == nullptr || !IsOp(*inner, "Unsqueeze") || inner->inputs.size() != 2) continue;
        if (editor.ConsumerCount(node.inputs[0]) != 1 || editor.HasOpaqueUse(node.inputs[0])) continue;
        std::optional<std::vector<int64_t>> outer_axes = ConstantInts(index.Constant(node.inputs[1]));
        std::optional<std::vector<int64_t>> inner_axes = ConstantInts(index.Constant(inner->inputs[1]));
        if (!outer_axes || !inner_axes) continue;
        std::optional<std::vector<int64_t>> axes =
            CombinedUnsqueezeAxes(*inner_axes, *outer_axes, index.Rank(inner->inputs[0]));
        if (!axes) continue;
        const std::string name = editor.FreshName(absl::StrCat(node.outputs[0], "_axes"));
        editor.AddInitializer({name, ir::Tensor::Int64s({static_cast<int64_t>(axes->size())}, *axes), {}});
        node.inputs = {inner->inputs[0], name};
        changed = true;
      } else if (IsOp(node, "Expand") && node.inputs.size() == 2) {
        // Expand to a shape the input already has (every target dim 1 or
        // equal, no new leading dims) copies it unchanged.
        std::optional<std::vector<int64_t>> target = ConstantInts(index.Constant(node.inputs[1]));
        std::optional<std::vector<int64_t>> in_shape = index.StaticShape(node.inputs[0]);
        if (!target || !in_shape || target->size() > in_shape->size()) continue;
        bool no_op = true;
        const size_t offset = in_shape->size() - target->size();
        for (size_t k = 0; k < target->size(); ++k) {
          no_op = no_op && ((*target)[k] == 1 || (*target)[k] == (*in_shape)[offset + k]);
        }
        if (no_op) bypass(i, node.inputs[0]);
      } else if (IsOp(node, "Squeeze") && node.inputs.size() == 2) {
        const ir::Node* inner = editor.Producer(node.inputs[0]);
        if (inner == nullptr || !IsOp(*inner, "Unsqueeze") || inner->inputs.size() != 2) continue;
        std::optional<std::vector<int64_t>> axes = ConstantInts(index.Constant(node.inputs[1]));
        std::optional<std::vector<int64_t>> inner_axes = ConstantInts(index.Constant(inner->inputs[1]));
        // Negative axes count from different ranks on the two sides: compare
        // only non-negative ones.
        bool nonneg = axes.has_value();
        if (axes) {
          for (int64_t a : *axes) nonneg = nonneg && a >= 0;
        }
        if (nonneg && inner_axes && *axes == *inner_axes) bypass(i, inner->inputs[0]);
      }
    }
    if (editor.empty()) return changed;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateReshapeEliminationPass(const PipelineOptions&) {
  return std::make_unique<ReshapeEliminationPass>();
}

}  // namespace pt2onnx::passes
