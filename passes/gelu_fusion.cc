// gelu_fusion: a decomposed GELU becomes Gelu (opset >= 20), in both forms
// torch's decomposition and hand-written activations (GPT-2's NewGELU) emit:
//   'none':  x * 0.5 * (1 + Erf(x * (1/sqrt(2))))    (or Erf(x / sqrt(2));
//            Erf may be aten.erf's NaN-keeping Where(IsNaN(a), a, Erf(a)))
//   'tanh':  x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// where x^3 is Pow(x, 3) or x * x * x, and the products may be grouped and
// ordered any way.
//
// Rules: x is float32; the constants are one-element float32 values equal
// to the ones above to within float32 rounding, of rank at most x's (so
// they do not broadcast x); every intermediate is read only inside the
// pattern. The Gelu has the final Mul's metadata (its output keeps its name),
// completed with the Erf/Tanh's.
// Non-rules: another constant (0.7071 or 0.0447 typed by hand), an
// intermediate read elsewhere or as a graph output, float16/double.
#include <cmath>

#include "passes/fusion_match.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Removes one `value` from `leaves`; false if absent.
bool RemoveLeaf(std::vector<std::string>& leaves, const std::string& value) {
  for (size_t k = 0; k < leaves.size(); ++k) {
    if (leaves[k] == value) {
      leaves.erase(leaves.begin() + k);
      return true;
    }
  }
  return false;
}

// Erf's argument: x * (1/sqrt(2)) or x / sqrt(2).
bool MatchErfArgument(FusionMatch& match, const std::string& arg, const std::string& x, size_t rank) {
  FusionMatch probe = match;
  if (const ir::Node* div = probe.Take(arg, "Div")) {
    if (div->inputs.size() != 2 || div->inputs[0] != x || !probe.ScalarIs(div->inputs[1], std::sqrt(2.0), rank)) {
      return false;
    }
    match = probe;
    return true;
  }
  std::vector<std::string> leaves = match.MulLeaves(arg);
  return leaves.size() == 2 && RemoveLeaf(leaves, x) && match.ScalarIs(leaves[0], 1.0 / std::sqrt(2.0), rank);
}

// Tanh's argument: sqrt(2/pi) * (x + 0.044715 * x^3).
bool MatchTanhArgument(FusionMatch& match, const std::string& arg, const std::string& x, size_t rank) {
  std::vector<std::string> outer = match.MulLeaves(arg);
  if (outer.size() != 2) return false;
  int sum_side = match.ScalarIs(outer[0], std::sqrt(2.0 / kPi), rank) ? 1 : 0;
  if (!match.ScalarIs(outer[1 - sum_side], std::sqrt(2.0 / kPi), rank)) return false;
  const ir::Node* add = match.Take(outer[sum_side], "Add");
  if (add == nullptr) return false;
  std::string cubic = FusionMatch::Other(*add, x);
  if (cubic.empty() || cubic == x) return false;
  std::vector<std::string> terms = match.MulLeaves(cubic);
  bool has_kappa = false;
  for (size_t k = 0; k < terms.size() && !has_kappa; ++k) {
    if (match.ScalarIs(terms[k], 0.044715, rank)) {
      terms.erase(terms.begin() + k);
      has_kappa = true;
    }
  }
  if (!has_kappa) return false;
  if (terms.size() == 3) return terms[0] == x && terms[1] == x && terms[2] == x;
  if (terms.size() != 1) return false;
  const ir::Node* pow = match.Take(terms[0], "Pow");
  if (pow == nullptr || pow->inputs.size() != 2 || pow->inputs[0] != x) return false;
  const ir::Tensor* exponent = match.index().Constant(pow->inputs[1]);
  std::optional<double> three = ConstantScalar(exponent);
  return three && *three == 3.0 && exponent->dims().size() <= rank;
}

// Erf(a), or the translation of aten.erf that keeps NaN: Where(IsNaN(a), a,
// Erf(a)). Inside GELU the guard is moot: the x * 0.5 factor is NaN too.
const ir::Node* TakeErf(FusionMatch& match, const std::string& value) {
  FusionMatch probe = match;
  const ir::Node* where = probe.Take(value, "Where");
  if (where == nullptr) return match.Take(value, "Erf");
  if (where->inputs.size() != 3) return nullptr;
  const ir::Node* is_nan = probe.Take(where->inputs[0], "IsNaN");
  const ir::Node* erf = probe.Take(where->inputs[2], "Erf");
  if (is_nan == nullptr || erf == nullptr || is_nan->inputs[0] != where->inputs[1] ||
      erf->inputs[0] != where->inputs[1]) {
    return nullptr;
  }
  match = probe;
  return erf;
}

class GeluFusionPass : public Pass {
 public:
  std::string Name() const override { return "gelu_fusion"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override { return RunFusion(model, 20, FuseAt); }

 private:
  static void FuseAt(ir::GraphEditor& editor, const ValueIndex& index, size_t i) {
    const ir::Node& root = editor.graph().nodes[i];
    if (!IsOp(root, "Mul") || root.outputs.size() != 1) return;
    FusionMatch base(editor, index);
    base.TakeIndex(i);
    std::vector<std::string> leaves = base.MulLeaves(root.outputs[0]);
    if (leaves.size() != 3) return;
    // Leaves: x, 0.5 and (1 + Erf/Tanh(...)), in any order.
    for (size_t a = 0; a < 3; ++a) {
      for (size_t h = 0; h < 3; ++h) {
        if (h == a) continue;
        const std::string& x = leaves[3 - a - h];
        // Float32 constants make x float32; of unknown rank, x takes 0-d ones only.
        std::optional<size_t> rank = base.Rank(x);
        if (!rank) rank = 0;
        if (!base.ScalarIs(leaves[h], 0.5, *rank)) continue;
        FusionMatch match = base;
        const ir::Node* add = match.Take(leaves[a], "Add");
        if (add == nullptr || add->inputs.size() != 2) continue;
        int inner_side = match.ScalarIs(add->inputs[0], 1.0, *rank) ? 1 : 0;
        if (!match.ScalarIs(add->inputs[1 - inner_side], 1.0, *rank)) continue;
        const std::string& inner = add->inputs[inner_side];
        std::string approximate;
        const ir::Node* curve = TakeErf(match, inner);
        if (curve != nullptr && MatchErfArgument(match, curve->inputs[0], x, *rank)) {
          approximate = "none";
        } else if ((curve = match.Take(inner, "Tanh")) != nullptr &&
                   MatchTanhArgument(match, curve->inputs[0], x, *rank)) {
          approximate = "tanh";
        } else {
          continue;
        }
        if (!match.Contained(root.outputs[0])) continue;
        ir::Node gelu;
        gelu.op_type = "Gelu";
        gelu.inputs = {x};
        gelu.outputs = {root.outputs[0]};
        gelu.attributes = {ir::Attribute::String("approximate", approximate)};
        match.Replace(i, std::move(gelu), *curve);
        return;
      }
    }
  }
};

}  // namespace

std::unique_ptr<Pass> CreateGeluFusionPass(const PipelineOptions&) {
  return std::make_unique<GeluFusionPass>();
}

}  // namespace pt2onnx::passes
