#include "core/pt2/symbol_order.h"

#include <functional>
#include <set>

#include "core/pt2/sym_expr.h"

namespace pt2onnx::pt2 {
namespace {

// Adds to `out` what it has not seen yet.
class OrderedSet {
 public:
  void Add(const std::string& item) {
    if (seen_.insert(item).second) items_.push_back(item);
  }
  std::vector<std::string> Take() { return std::move(items_); }

 private:
  std::set<std::string> seen_;
  std::vector<std::string> items_;
};

// Calls `visit` with the expression of every symbolic size (and symbolic
// scalar input) in input order; values may repeat.
void VisitSymbolicSizes(const ExportedProgram& program,
                        const std::function<void(const std::string&)>& visit) {
  const Graph& graph = program.graph;
  std::set<std::string> visited;
  auto tensor = [&](const std::string& name) {
    if (!visited.insert(name).second) return;
    auto it = graph.tensor_values.find(name);
    if (it == graph.tensor_values.end()) return;
    for (const SymInt& size : it->second.sizes) {
      if (size.is_symbolic) visit(size.expr);
    }
  };
  for (const InputSpec& spec : program.signature.input_specs) {
    if (spec.kind != InputSpec::Kind::kUserInput) continue;
    if (spec.arg.kind == Argument::Kind::kTensor) tensor(spec.arg.name);
    if (spec.arg.kind == Argument::Kind::kSymInt && spec.arg.sym.is_name) {
      auto it = graph.sym_int_values.find(spec.arg.sym.name);
      if (it != graph.sym_int_values.end() && it->second.is_symbolic) visit(it->second.expr);
    }
  }
  for (const OutputSpec& spec : program.signature.output_specs) {
    if (spec.kind == OutputSpec::Kind::kUserOutput && spec.arg.kind == Argument::Kind::kTensor) {
      tensor(spec.arg.name);
    }
  }
  for (const Node& node : graph.nodes) {
    for (const Argument& out : node.outputs) {
      if (out.kind == Argument::Kind::kTensor) tensor(out.name);
      for (const std::string& name : out.names) tensor(name);
    }
  }
  for (const auto& [name, meta] : graph.tensor_values) tensor(name);
}

}  // namespace

std::vector<std::string> DimNamesInInputOrder(const ExportedProgram& program) {
  OrderedSet names;
  VisitSymbolicSizes(program, [&](const std::string& expr) { names.Add(SymExprToString(expr)); });
  return names.Take();
}

std::vector<std::string> SymbolsInInputOrder(const ExportedProgram& program) {
  OrderedSet symbols;
  VisitSymbolicSizes(program, [&](const std::string& expr) {
    for (const std::string& symbol : SymExprSymbols(expr)) symbols.Add(symbol);
    // A derived dim (Dim("seq") * 2) has its own range under its expression.
    std::string name = SymExprToString(expr);
    if (program.range_constraints.count(name) != 0) symbols.Add(name);
  });
  for (const std::string& symbol : RangeConstraintSymbols(program)) symbols.Add(symbol);
  return symbols.Take();
}

std::vector<std::string> RangeConstraintSymbols(const ExportedProgram& program) {
  OrderedSet symbols;
  for (const std::string& symbol : program.range_constraint_order) {
    if (program.range_constraints.count(symbol) != 0) symbols.Add(symbol);
  }
  for (const auto& [symbol, range] : program.range_constraints) symbols.Add(symbol);
  return symbols.Take();
}

}  // namespace pt2onnx::pt2
