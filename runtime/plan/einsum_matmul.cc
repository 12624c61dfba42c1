#include "runtime/plan/einsum_matmul.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/plan/nhwc_layout.h"

namespace pt2onnx::runtime {
namespace {

// How a matrix-product Einsum maps onto MatMul: the letters of each operand and
// of the output, and the letter orders MatMul needs.
struct ProductPlan {
  std::string a, b, out;      // the equation's terms
  std::string batch;          // in the output's order
  char free_a, free_b, summed;
};

bool Distinct(const std::string& term) {
  std::string sorted = term;
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

std::optional<ProductPlan> PlanProduct(const std::string& equation) {
  std::string eq;
  for (char ch : equation) if (ch != ' ') eq += ch;
  if (eq.find('.') != std::string::npos) return std::nullopt;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  const size_t comma = lhs.find(',');
  if (comma == std::string::npos || lhs.find(',', comma + 1) != std::string::npos) return std::nullopt;
  ProductPlan p;
  p.a = lhs.substr(0, comma);
  p.b = lhs.substr(comma + 1);
  if (arrow != std::string::npos) {
    p.out = eq.substr(arrow + 2);
  } else {  // implicit output: the letters that appear once, in alphabetical order
    std::map<char, int> count;
    for (char ch : lhs) if (ch != ',') ++count[ch];
    for (const auto& [ch, n] : count) if (n == 1) p.out += ch;
  }
  for (const std::string* term : {&p.a, &p.b, &p.out}) {
    if (!Distinct(*term)) return std::nullopt;
    for (char ch : *term) if (!absl::ascii_isalpha(static_cast<unsigned char>(ch))) return std::nullopt;
  }
  std::string free_a, free_b, summed;
  for (char ch : p.a) {
    const bool in_b = p.b.find(ch) != std::string::npos, in_out = p.out.find(ch) != std::string::npos;
    if (in_b && !in_out) summed += ch;
    else if (!in_b && in_out) free_a += ch;
    else if (!in_b && !in_out) return std::nullopt;  // summed within one operand
  }
  for (char ch : p.b) {
    const bool in_a = p.a.find(ch) != std::string::npos, in_out = p.out.find(ch) != std::string::npos;
    if (!in_a && in_out) free_b += ch;
    else if (!in_a && !in_out) return std::nullopt;
  }
  for (char ch : p.out) {
    const bool in_a = p.a.find(ch) != std::string::npos, in_b = p.b.find(ch) != std::string::npos;
    if (!in_a && !in_b) return std::nullopt;
    if (in_a && in_b) p.batch += ch;
  }
  if (free_a.size() != 1 || free_b.size() != 1 || summed.size() != 1) return std::nullopt;
  p.free_a = free_a[0];
  p.free_b = free_b[0];
  p.summed = summed[0];
  return p;
}

// The permutation that reorders `from`'s letters as `to` (both the same letters).
std::vector<int64_t> Permutation(const std::string& from, const std::string& to) {
  std::vector<int64_t> perm;
  for (char ch : to) perm.push_back(static_cast<int64_t>(from.find(ch)));
  return perm;
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

ir::Graph EinsumsToMatMuls(const ir::Graph& graph) {
  ir::Graph g = graph;
  g.nodes.clear();
  for (const ir::Node& node : graph.nodes) {
    std::optional<ProductPlan> plan;
    if (node.op_type == "Einsum" && node.domain.empty() && node.inputs.size() == 2 && node.outputs.size() == 1 &&
        !node.outputs[0].empty()) {
      plan = PlanProduct(AttrString(node, "equation", ""));
    }
    if (!plan) {
      g.nodes.push_back(node);
      continue;
    }
    const std::string& out = node.outputs[0];
    // Operand `name` laid out as `letters`, transposed to `wanted` unless it already is.
    auto arranged = [&](const std::string& name, const std::string& letters, const std::string& wanted,
                        const std::string& suffix) {
      const std::vector<int64_t> perm = Permutation(letters, wanted);
      if (IsIdentity(perm)) return name;
      const std::string moved = out + suffix;
      g.nodes.push_back(LayoutTranspose(name, moved, perm));
      return moved;
    };
    const std::string a = arranged(node.inputs[0], plan->a, plan->batch + plan->free_a + plan->summed, "::einsum_a");
    const std::string b = arranged(node.inputs[1], plan->b, plan->batch + plan->summed + plan->free_b, "::einsum_b");
    const std::string product = plan->batch + plan->free_a + plan->free_b;
    const std::vector<int64_t> to_out = Permutation(product, plan->out);
    ir::Node matmul;
    matmul.name = node.name;
    matmul.op_type = "MatMul";
    matmul.inputs = {a, b};
    matmul.outputs = {IsIdentity(to_out) ? out : out + "::einsum_product"};
    g.nodes.push_back(matmul);
    if (!IsIdentity(to_out)) g.nodes.push_back(LayoutTranspose(matmul.outputs[0], out, to_out));
  }
  return g;
}

}  // namespace pt2onnx::runtime
