// softmax_guard_simplification: torch's fully-masked-row guard after a
// Softmax over the last axis (aten::_safe_softmax, and the attention
// decomposition's copy of it),
//   w = Where(row_all_neg_inf(x), 0, Softmax(x, -1)),
// costs a full-size IsInf and a full-size reduction per attention. It exists
// for rows whose every key the mask removes, so it is rewritten after what
// masks x (s: scores no mask touched, a MatMul's output through Reshapes and
// constant scales; a mask applied before could empty a row this one keeps):
//   x = Where(m, s, -inf), m a constant all-true bool (also through an Expand)
//       and x, s declaring the same dims (no growth): the mask and the guard
//       go, w = Softmax(s);
//   x = Where(m, s, -inf), m a constant with a key kept in every row (all
//       true through an Expand among them), or x = Add(s, f), f a float32
//       constant with an entry other than -inf in every row: the guard goes;
//   x = Where(m, s, -inf) or Add(s, Where(m, 0, -inf)) (run_decompositions()'
//       additive mask), m any other bool (opset >= 20, where ReduceMax takes
//       bool): the guard is computed from the mask, smaller than the scores:
//       w = Where(Or(m, ReduceMax(m, -1)), Softmax(x), 0);
//   x = s (no mask): the guard goes, as the translation of attention without
//       a mask has none.
// This is the same reading of the guard as attention_fusion's.
// Known difference: a row whose every unmasked score is itself -inf (an
// infinite q or k, or a dot product that overflows) gives 0 in torch and
// NaN here; with an additive mask, a fully masked row holding a +inf or NaN
// score gives NaN in torch and 0 here; every other input gives the same
// numbers.
// Non-rules: a Softmax over another axis, another float mask computed at run
// time, scores masked twice, the guard or the softmax (or a removed mask's
// output) read elsewhere. Runs after attention_fusion, which takes the guards
// it fuses.
#include <cmath>

#include "passes/attention_match.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

// Elements of a constant mask read to prove it all true.
constexpr int64_t kMaxCheckedElements = int64_t{1} << 20;

// A constant bool of at most kMaxCheckedElements elements, all true.
bool AllTrue(const ir::Tensor* t) {
  if (t == nullptr || t->dtype() != DataType::kBool) return false;
  const int64_t n = t->numel();
  if (n <= 0 || n > kMaxCheckedElements || t->bytes().size() != static_cast<size_t>(n)) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (t->GetDouble(i) == 0) return false;
  }
  return true;
}

// Declared, equal dtypes and dims (static sizes or the same symbols).
bool SameType(const ValueIndex& index, const std::string& a, const std::string& b) {
  const ir::ValueInfo* x = index.Info(a);
  const ir::ValueInfo* y = index.Info(b);
  if (x == nullptr || y == nullptr || x->dtype != y->dtype || !x->shape || !y->shape ||
      x->shape->size() != y->shape->size()) {
    return false;
  }
  for (size_t d = 0; d < x->shape->size(); ++d) {
    if (!SameDim((*x->shape)[d], (*y->shape)[d])) return false;
  }
  return true;
}

// A one-element float constant that is finite (a scale).
bool FiniteScalar(const ValueIndex& index, const std::string& value) {
  const ir::Tensor* t = index.Constant(value);
  if (t == nullptr || t->dims().size() > 4) return false;
  std::optional<double> v = ConstantScalar(t);
  return v && std::isfinite(*v);
}

// Scores no mask touched: a MatMul's output, through Reshapes (the bmm form)
// and Mul/Div by finite one-element constants. A mask applied earlier (a
// second masked fill) could empty a row with the last mask keeping keys.
bool RawScores(const ValueIndex& index, const ir::GraphEditor& editor, const std::string& value) {
  std::string v = value;
  for (int depth = 0; depth < 6; ++depth) {
    const ir::Node* node = editor.Producer(v);
    if (node == nullptr || node->inputs.empty()) return false;
    if (IsOp(*node, "MatMul")) return true;
    const bool scaled = (IsOp(*node, "Mul") || IsOp(*node, "Div")) && node->inputs.size() == 2 &&
                        FiniteScalar(index, node->inputs[1]);
    if (!scaled && !IsOp(*node, "Reshape")) return false;
    v = node->inputs[0];
  }
  return false;
}

class SoftmaxGuardSimplificationPass : public Pass {
 public:
  std::string Name() const override { return "softmax_guard_simplification"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    const int64_t opset = model.OnnxOpset();
    return RunFusion(model, 1, [opset](ir::GraphEditor& editor, const ValueIndex& index, size_t i) {
      SimplifyAt(editor, index, i, opset);
    });
  }

 private:
  // How the softmax's input is masked, and what becomes of the guard.
  enum class Action { kDropGuard, kDropMaskAndGuard, kGuardFromMask };

  static void SimplifyAt(ir::GraphEditor& editor, const ValueIndex& index, size_t i, int64_t opset) {
    const ir::Node& where = editor.graph().nodes[i];
    if (!IsOp(where, "Where") || where.outputs.size() != 1) return;
    FusionMatch match(editor, index);
    match.TakeIndex(i);
    std::optional<Guard> guard = MatchGuard(match, where);
    if (!guard) return;
    const ir::Node* softmax = editor.Producer(where.inputs[2]);
    if (softmax == nullptr || !IsOp(*softmax, "Softmax") || softmax->outputs.size() != 1 ||
        softmax->inputs[0] != guard->scores) {
      return;
    }
    // The guard reduces the last axis ([-1], or for run_decompositions()'
    // form [-1] or [3]): the softmax's axis must be that one.
    const int64_t axis = IntAttribute(*softmax, "axis", -1);
    if (axis != -1 || guard->axes.empty()) {
      std::optional<size_t> rank = index.Rank(guard->scores);
      if (!rank || (guard->axes.empty() && *rank != 4)) return;
      if (axis != -1 && axis != static_cast<int64_t>(*rank) - 1) return;
    }

    const std::string& x = guard->scores;
    const ir::Node* masking = editor.Producer(x);
    if (masking == nullptr) return;
    Action action;
    std::string mask, unmasked;
    if (IsOp(*masking, "Where") && masking->inputs.size() == 3 && IsNegInf(index, masking->inputs[2]) &&
        RawScores(index, editor, masking->inputs[1])) {
      mask = masking->inputs[0];
      unmasked = masking->inputs[1];
      const ir::Node* expand = editor.Producer(mask);
      const bool all_true = AllTrue(index.Constant(mask)) ||
                            (expand != nullptr && IsOp(*expand, "Expand") && AllTrue(index.Constant(expand->inputs[0])));
      if (all_true && SameType(index, x, unmasked)) {
        action = Action::kDropMaskAndGuard;
      } else if (all_true || ConstantMaskKeepsEveryRow(index.Constant(mask), true)) {
        action = Action::kDropGuard;
      } else if (opset >= 20 && index.DType(mask) == DataType::kBool && index.Rank(mask).value_or(0) >= 1) {
        action = Action::kGuardFromMask;
      } else {
        return;
      }
    } else if (IsOp(*masking, "Add") && masking->inputs.size() == 2) {
      const bool first_raw = RawScores(index, editor, masking->inputs[0]);
      if (!first_raw && !RawScores(index, editor, masking->inputs[1])) return;
      const std::string& other = masking->inputs[first_raw ? 1 : 0];
      const ir::Tensor* f = index.Constant(other);
      if (f != nullptr) {
        if (f->dtype() != DataType::kFloat || !ConstantMaskKeepsEveryRow(f, false)) return;
        action = Action::kDropGuard;
      } else {
        // The additive mask of run_decompositions(): Where(b, 0, -inf).
        const ir::Node* select = editor.Producer(other);
        if (select == nullptr || !IsOp(*select, "Where") || select->inputs.size() != 3 ||
            !IsZero(index, select->inputs[1]) || !IsNegInf(index, select->inputs[2])) {
          return;
        }
        mask = select->inputs[0];
        if (ConstantMaskKeepsEveryRow(index.Constant(mask), true)) {
          action = Action::kDropGuard;
        } else if (opset >= 20 && index.DType(mask) == DataType::kBool && index.Rank(mask).value_or(0) >= 1) {
          action = Action::kGuardFromMask;
        } else {
          return;
        }
      }
    } else if (RawScores(index, editor, x)) {
      action = Action::kDropGuard;
    } else {
      return;
    }

    const std::string& result = where.outputs[0];
    const ir::Node& origin = *softmax;
    if (action == Action::kGuardFromMask) {
      if (!match.Contained(result)) return;
      std::string axes = GuardAxesOrLast(*guard, editor, "softmax_last_axis");
      // A one-element zero (the guard's may be a folded full-size one).
      std::string zero = guard->zero;
      if (!IsZero(index, zero)) {
        ir::Initializer scalar;
        scalar.name = editor.FreshName("softmax_guard_zero");
        scalar.tensor = ir::Tensor::Float32Scalar(0.0f);
        zero = scalar.name;
        editor.AddInitializer(std::move(scalar));
      }
      // A row keeps a key where any of its mask entries is true.
      ir::Node any;
      any.op_type = "ReduceMax";
      any.name = editor.FreshName(where.name + "_mask_row");
      any.inputs = {mask, axes};
      any.outputs = {editor.FreshName(mask + "_row")};
      any.attributes = {ir::Attribute::Int("keepdims", 1)};
      // The row spread over the mask's dims, Or(m, any(m)): ONNX Runtime's
      // Where runs a condition broadcast along the keys element by element.
      ir::Node spread;
      spread.op_type = "Or";
      spread.name = editor.FreshName(where.name + "_mask_rows");
      spread.inputs = {mask, any.outputs[0]};
      spread.outputs = {editor.FreshName(mask + "_rows")};
      ir::Node keep;
      keep.op_type = "Where";
      keep.inputs = {spread.outputs[0], softmax->outputs[0], zero};
      keep.outputs = {result};
      std::vector<ir::Node> nodes;
      nodes.push_back(std::move(any));
      nodes.push_back(std::move(spread));
      nodes.push_back(std::move(keep));
      match.Replace(i, std::move(nodes), origin);
      return;
    }
    // The softmax itself moves to the guard's output.
    match.Take(where.inputs[2], "Softmax");
    std::string input = x;
    if (action == Action::kDropMaskAndGuard) {
      match.Take(x, "Where");  // an Expand of the mask dies with it
      input = unmasked;
    }
    if (!match.Contained(result)) return;
    ir::Node fused;
    fused.op_type = "Softmax";
    fused.inputs = {input};
    fused.outputs = {result};
    fused.attributes = softmax->attributes;
    match.Replace(i, std::move(fused), origin);
  }
};

}  // namespace

std::unique_ptr<Pass> CreateSoftmaxGuardSimplificationPass(const PipelineOptions&) {
  return std::make_unique<SoftmaxGuardSimplificationPass>();
}

}  // namespace pt2onnx::passes
