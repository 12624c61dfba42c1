#include "core/export/inspect.h"

#include <limits>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/export/output_plan.h"
#include "core/pt2/sym_expr.h"
#include "core/pt2/symbol_order.h"
#include "core/version.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

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

void CountOps(const pt2::Graph& graph, const ops::OpRegistry& registry, int opset,
              std::vector<InspectedOp>& ops, absl::flat_hash_map<std::string, size_t>& index,
              int64_t& nodes) {
  for (const pt2::Node& node : graph.nodes) {
    ++nodes;
    auto [it, inserted] = index.emplace(node.target, ops.size());
    if (inserted) {
      std::string key = ops::TargetToKey(node.target);
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

// ---- JSON -------------------------------------------------------------------

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void String(Writer& w, absl::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Key(Writer& w, absl::string_view s) { w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

void OptionalBound(Writer& w, const std::optional<int64_t>& bound) {
  if (bound) {
    w.Int64(*bound);
  } else {
    w.Null();
  }
}

void Range(Writer& w, const std::optional<pt2::RangeConstraint>& range) {
  if (!range) {
    w.Null();
    return;
  }
  w.StartObject();
  Key(w, "min");
  OptionalBound(w, range->min_val);
  Key(w, "max");
  OptionalBound(w, range->max_val);
  w.EndObject();
}

void Values(Writer& w, const std::vector<InspectedValue>& values) {
  w.StartArray();
  for (const InspectedValue& v : values) {
    w.StartObject();
    Key(w, "name");
    String(w, v.name);
    Key(w, "kind");
    String(w, v.kind);
    Key(w, "dtype");
    String(w, v.dtype);
    Key(w, "shape");
    w.StartArray();
    for (const InspectedDim& d : v.shape) {
      if (d.symbolic) {
        String(w, d.name);
      } else {
        w.Int64(d.size);
      }
    }
    w.EndArray();
    Key(w, "dims");  // the symbolic ones, at their axis, with their range
    w.StartArray();
    for (size_t axis = 0; axis < v.shape.size(); ++axis) {
      const InspectedDim& d = v.shape[axis];
      if (!d.symbolic) continue;
      w.StartObject();
      Key(w, "axis");
      w.Uint64(axis);
      Key(w, "name");
      String(w, d.name);
      Key(w, "range");
      Range(w, d.range);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

std::string ShapeText(const InspectedValue& v) {
  if (v.kind != "tensor") return "scalar";
  std::vector<std::string> dims;
  for (const InspectedDim& d : v.shape) dims.push_back(d.symbolic ? d.name : absl::StrCat(d.size));
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

size_t Widest(const std::vector<std::string>& items) {
  size_t width = 0;
  for (const std::string& s : items) width = std::max(width, s.size());
  return width;
}

std::string Pad(absl::string_view s, size_t width) {
  std::string out(s);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

void AppendValues(std::string& out, absl::string_view title, const std::vector<InspectedValue>& values) {
  absl::StrAppend(&out, title, " (", values.size(), "):\n");
  std::vector<std::string> names, dtypes, shapes;
  for (const InspectedValue& v : values) {
    names.push_back(v.name);
    dtypes.push_back(v.dtype);
    shapes.push_back(ShapeText(v));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<std::string> ranges;
    for (const InspectedDim& d : values[i].shape) {
      if (d.symbolic && d.range) ranges.push_back(absl::StrCat(d.name, " in ", RangeText(*d.range)));
    }
    absl::StrAppend(&out, "  ", Pad(names[i], Widest(names)), "  ", Pad(dtypes[i], Widest(dtypes)), "  ",
                    ranges.empty() ? shapes[i]
                                   : absl::StrCat(Pad(shapes[i], Widest(shapes)), "  ",
                                                  absl::StrJoin(ranges, ", ")),
                    "\n");
  }
}

}  // namespace

Inspection InspectProgram(const pt2::LoadedProgram& loaded, const InspectOptions& options) {
  const pt2::ExportedProgram& program = loaded.program;
  std::optional<ops::OpRegistry> own_registry;
  if (options.registry == nullptr) own_registry = ops::CreateDefaultRegistry();
  const ops::OpRegistry& registry = options.registry != nullptr ? *options.registry : *own_registry;

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
  info.unsupported = ops::FindUnsupportedOps(program.graph, registry, options.opset);
  info.weights = GroupWeights(loaded.weights);
  return info;
}

absl::StatusOr<Inspection> InspectPt2(std::shared_ptr<const InputFile> file,
                                      const InspectOptions& options) {
  absl::StatusOr<pt2::LoadedProgram> loaded = pt2::LoadPt2(std::move(file), options.model_name);
  if (!loaded.ok()) return loaded.status();
  return InspectProgram(*loaded, options);
}

std::string InspectionJson(const Inspection& info) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 1);
  w.StartObject();
  Key(w, "pt2onnx");
  String(w, kPt2OnnxVersion);
  Key(w, "layout");
  String(w, info.layout);
  Key(w, "archiveRoot");
  String(w, info.archive_root);
  Key(w, "model");
  String(w, info.model_name);
  Key(w, "schemaVersion");
  String(w, info.schema_version);
  Key(w, "torchVersion");
  if (info.torch_version.empty()) {
    w.Null();
  } else {
    String(w, info.torch_version);
  }
  Key(w, "opset");
  w.Int(info.opset);
  Key(w, "inputs");
  Values(w, info.inputs);
  Key(w, "outputs");
  Values(w, info.outputs);
  Key(w, "symbols");
  w.StartArray();
  for (const InspectedSymbol& s : info.symbols) {
    w.StartObject();
    Key(w, "name");
    String(w, s.name);
    Key(w, "range");
    Range(w, s.range);
    Key(w, "uses");
    w.StartArray();
    for (const std::string& use : s.uses) String(w, use);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  Key(w, "fxNodes");
  w.Int64(info.fx_nodes);
  Key(w, "ops");
  w.StartArray();
  for (const InspectedOp& op : info.ops) {
    w.StartObject();
    Key(w, "target");
    String(w, op.target);
    Key(w, "key");
    String(w, op.key);
    Key(w, "count");
    w.Int64(op.count);
    Key(w, "supported");
    w.Bool(op.supported);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "unsupported");
  w.StartArray();
  for (const ops::UnsupportedOp& op : info.unsupported) {
    w.StartObject();
    Key(w, "key");
    String(w, op.key);
    Key(w, "count");
    w.Int(op.count);
    Key(w, "firstNode");
    String(w, op.first_node);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "advice");
  if (info.unsupported.empty()) {
    w.Null();
  } else {
    String(w, ops::kUnsupportedOpsAdvice);
  }
  Key(w, "weights");
  w.StartArray();
  for (const WeightGroup& g : info.weights) {
    w.StartObject();
    Key(w, "dtype");
    String(w, g.dtype);
    Key(w, "count");
    w.Int64(g.count);
    Key(w, "elements");
    w.Uint64(g.elements);
    Key(w, "bytes");
    w.Uint64(g.bytes);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "warnings");
  w.StartArray();
  for (const std::string& warning : info.warnings) String(w, warning);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::string InspectionText(const Inspection& info, absl::string_view file_name) {
  std::string out = absl::StrCat(
      file_name, ": ", info.layout,
      info.archive_root.empty() ? "" : absl::StrCat(", root '", info.archive_root, "'"),
      ", program '", info.model_name, "', schema ", info.schema_version, ", torch ",
      info.torch_version.empty() ? "version not recorded" : info.torch_version, "\n");
  for (const std::string& warning : info.warnings) absl::StrAppend(&out, "warning: ", warning, "\n");
  AppendValues(out, "inputs", info.inputs);
  AppendValues(out, "outputs", info.outputs);

  if (info.symbols.empty()) {
    absl::StrAppend(&out, "symbols: none (static shapes)\n");
  } else {
    absl::StrAppend(&out, "symbols (", info.symbols.size(),
                    ", in input order; rename with --dim-name SYMBOL=NAME):\n");
    std::vector<std::string> names, ranges;
    for (const InspectedSymbol& s : info.symbols) {
      names.push_back(s.name);
      ranges.push_back(s.range ? RangeText(*s.range) : "no range");
    }
    for (size_t i = 0; i < info.symbols.size(); ++i) {
      const InspectedSymbol& s = info.symbols[i];
      absl::StrAppend(&out, "  ", Pad(names[i], Widest(names)), "  ", Pad(ranges[i], Widest(ranges)),
                      s.uses.empty() ? "" : absl::StrCat("  ", absl::StrJoin(s.uses, ", ")), "\n");
    }
  }

  absl::StrAppend(&out, "operators (", info.fx_nodes, " FX nodes, ", info.ops.size(),
                  " targets, checked at opset ", info.opset, "):\n");
  std::vector<std::string> keys;
  for (const InspectedOp& op : info.ops) keys.push_back(op.key);
  for (const InspectedOp& op : info.ops) {
    absl::StrAppend(&out, "  ", Pad(op.key, Widest(keys)), "  ", op.count,
                    op.supported ? "" : "  UNSUPPORTED", "\n");
  }
  if (info.unsupported.empty()) {
    absl::StrAppend(&out, "all operators are supported\n");
  } else {
    absl::StrAppend(&out, info.unsupported.size(), " operator(s) have no ONNX translation:\n");
    for (const ops::UnsupportedOp& op : info.unsupported) {
      absl::StrAppend(&out, "  ", op.key, " x", op.count, " (first at node '", op.first_node, "')\n");
    }
    absl::StrAppend(&out, ops::kUnsupportedOpsAdvice, "\n");
  }

  int64_t count = 0;
  uint64_t bytes = 0;
  std::vector<std::string> groups;
  for (const WeightGroup& g : info.weights) {
    count += g.count;
    bytes = SaturatingAdd(bytes, g.bytes);
    groups.push_back(absl::StrCat(g.dtype, " ", g.count, " (", HumanBytes(g.bytes), ")"));
  }
  absl::StrAppend(&out, "weights: ", count, " tensors, ", HumanBytes(bytes),
                  groups.empty() ? "" : absl::StrCat(": ", absl::StrJoin(groups, ", ")), "\n");
  return out;
}

}  // namespace pt2onnx
