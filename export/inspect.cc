#include "export/inspect.h"

#include <limits>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/pt2/sym_expr.h"
#include "core/pt2/symbol_order.h"
#include "ops/all_ops.h"

namespace pt2onnx {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<uint64_t>::max() : product;
}

std::optional<pt2::RangeConstraint> RangeOf(const pt2::ExportedProgram& program,
                                            const std::string& symbol) {
  auto it = program.range_constraints.find(symbol);
  if (it == program.range_constraints.end()) return std::nullopt;
  return it->second;
}

InspectedDim DimOf(const pt2::ExportedProgram& program, const pt2::SymInt& size) {
  InspectedDim dim;
  if (!size.is_symbolic) {
    dim.size = size.value;
    return dim;
  }
  dim.symbolic = true;
  dim.name = pt2::SymExprToString(size.expr);
  dim.range = RangeOf(program, dim.name);  // a plain symbol only: "2*s27" has no entry
  return dim;
}

// A user input or output as a value; nullopt for kinds that are not graph
// values (constants specialised at export time).
std::optional<InspectedValue> ValueOf(const pt2::ExportedProgram& program, const Argument& arg) {
  InspectedValue value;
  if (arg.kind == Kind::kTensor) {
    auto it = program.graph.tensor_values.find(arg.name);
    if (it == program.graph.tensor_values.end()) return std::nullopt;
    value.name = arg.name;
    value.kind = "tensor";
    value.dtype = std::string(DataTypeName(it->second.dtype));
    for (const pt2::SymInt& size : it->second.sizes) value.shape.push_back(DimOf(program, size));
    return value;
  }
  if ((arg.kind == Kind::kSymInt || arg.kind == Kind::kSymFloat || arg.kind == Kind::kSymBool) &&
      arg.sym.is_name) {
    value.name = arg.sym.name;
    value.kind = arg.kind == Kind::kSymInt ? "SymInt" : arg.kind == Kind::kSymFloat ? "SymFloat" : "SymBool";
    value.dtype = std::string(DataTypeName(arg.kind == Kind::kSymInt    ? DataType::kInt64
                                           : arg.kind == Kind::kSymBool ? DataType::kBool
                                                                        : DataType::kFloat));
    return value;
  }
  return std::nullopt;
}

void CountOps(const pt2::Graph& graph, const translate::OpRegistry& registry, int opset,
              std::vector<InspectedOp>& ops, absl::flat_hash_map<std::string, size_t>& index,
              int64_t& nodes) {
  for (const pt2::Node& node : graph.nodes) {
    ++nodes;
    auto [it, inserted] = index.emplace(node.target, ops.size());
    if (inserted) {
      std::string key = translate::TargetToKey(node.target);
      const bool supported = registry.Find(key, opset) != nullptr;
      ops.push_back(InspectedOp{node.target, std::move(key), 0, supported});
    }
    ++ops[it->second].count;
    for (const pt2::NamedArgument& arg : node.inputs) {
      if (arg.arg.kind == Kind::kGraph && arg.arg.graph != nullptr) {
        CountOps(*arg.arg.graph, registry, opset, ops, index, nodes);
      }
    }
  }
}

std::vector<WeightGroup> GroupWeights(const pt2::WeightTable& weights) {
  std::map<std::string, WeightGroup> groups;
  for (const auto& [name, weight] : weights.all()) {
    const std::string dtype(DataTypeName(weight.dtype));
    WeightGroup& group = groups[dtype];
    group.dtype = dtype;
    ++group.count;
    const int64_t numel = weight.numel();
    const uint64_t elements = numel > 0 ? static_cast<uint64_t>(numel) : 0;
    group.elements = SaturatingAdd(group.elements, elements);
    group.bytes = SaturatingAdd(group.bytes,
                                SaturatingMul(elements, static_cast<uint64_t>(ElementSize(weight.dtype))));
  }
  std::vector<WeightGroup> out;
  for (auto& [dtype, group] : groups) out.push_back(std::move(group));
  return out;
}

}  // namespace

Inspection InspectProgram(const pt2::LoadedProgram& loaded, const InspectOptions& options) {
  const pt2::ExportedProgram& program = loaded.program;
  std::optional<translate::OpRegistry> own_registry;
  if (options.registry == nullptr) own_registry = ops::CreateDefaultRegistry();
  const translate::OpRegistry& registry = options.registry != nullptr ? *options.registry : *own_registry;

  Inspection info;
  info.layout = loaded.layout == pt2::Layout::kPt2Archive ? "PT2 archive" : "legacy zip (torch 2.6/2.7)";
  info.archive_root = loaded.root;
  info.model_name = loaded.model_name;
  info.schema_version = absl::StrCat(program.schema_major, ".", program.schema_minor);
  info.torch_version = program.torch_version;
  info.opset = options.opset;
  info.warnings = loaded.warnings;

  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    if (spec.kind != pt2::InputSpec::Kind::kUserInput) continue;
    if (std::optional<InspectedValue> v = ValueOf(program, spec.arg)) info.inputs.push_back(*std::move(v));
  }
  for (const pt2::OutputSpec& spec : program.signature.output_specs) {
    if (spec.kind != pt2::OutputSpec::Kind::kUserOutput) continue;
    if (std::optional<InspectedValue> v = ValueOf(program, spec.arg)) info.outputs.push_back(*std::move(v));
  }

  absl::flat_hash_map<std::string, size_t> symbol_index;
  for (const std::string& name : pt2::SymbolsInInputOrder(program)) {
    symbol_index.emplace(name, info.symbols.size());
    info.symbols.push_back(InspectedSymbol{name, RangeOf(program, name), {}});
  }
  for (const std::vector<InspectedValue>* values : {&info.inputs, &info.outputs}) {
    for (const InspectedValue& v : *values) {
      for (size_t axis = 0; axis < v.shape.size(); ++axis) {
        const InspectedDim& d = v.shape[axis];
        if (!d.symbolic) continue;
        auto it = symbol_index.find(d.name);
        if (it != symbol_index.end()) {
          info.symbols[it->second].uses.push_back(absl::StrCat(v.name, "[", axis, "]"));
        }
      }
    }
  }

  absl::flat_hash_map<std::string, size_t> op_index;
  CountOps(program.graph, registry, options.opset, info.ops, op_index, info.fx_nodes);
  info.unsupported = translate::FindUnsupportedOps(program.graph, registry, options.opset);
  info.weights = GroupWeights(loaded.weights);
  return info;
}

absl::StatusOr<Inspection> InspectPt2(std::shared_ptr<const InputFile> file,
                                      const InspectOptions& options) {
  absl::StatusOr<pt2::LoadedProgram> loaded = pt2::LoadPt2(std::move(file), options.model_name);
  if (!loaded.ok()) return loaded.status();
  return InspectProgram(*loaded, options);
}

}  // namespace pt2onnx
