#include "reference/interpreter.h"

#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/ref_tensor.h"
#include "reference/subgraph_runner.h"
#include "reference/value_binding.h"
#include "reference/view_tracking.h"
#include "core/status_macros.h"
#include "core/aten/op_schema.h"

namespace pt2onnx::reference {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

}  // namespace

std::string NodeName(const pt2::Node& node) {
  if (!node.name.empty()) return node.name;
  for (const Argument& out : node.outputs) {
    if (out.kind == Kind::kTensor) return out.name;
    if (out.kind == Kind::kTensors && !out.names.empty()) return out.names[0];
    if (out.sym.is_name) return out.sym.name;
  }
  return node.target;
}

namespace {

void CollectMissing(const pt2::Graph& graph, const RefRegistry& registry, std::set<std::string>& missing) {
  for (const pt2::Node& node : graph.nodes) {
    std::string key = TargetKey(node.target);
    if (registry.Find(key) == nullptr) missing.insert(key);
    for (const pt2::NamedArgument& a : node.inputs) {
      if (a.arg.kind == Kind::kGraph && a.arg.graph != nullptr) CollectMissing(*a.arg.graph, registry, missing);
    }
  }
}

// The name a graph input binds (tensor or symbol); "" for a constant.
std::string InputName(const Argument& a) {
  if (a.kind == Kind::kTensor) return a.name;
  if ((a.kind == Kind::kSymInt || a.kind == Kind::kSymFloat || a.kind == Kind::kSymBool) && a.sym.is_name) {
    return a.sym.name;
  }
  return "";
}

bool SharesBuffer(const RefValue& v, const std::vector<RefValue>& others) {
  if (v.kind != RefValue::Kind::kTensor || v.tensor.buffer() == nullptr) return false;
  for (const RefValue& o : others) {
    if (o.kind == RefValue::Kind::kTensor && o.tensor.buffer() == v.tensor.buffer()) return true;
    if (o.kind == RefValue::Kind::kList && SharesBuffer(v, o.list)) return true;
  }
  return false;
}

// Complex tensors are read only by kernels that know their layout (fft.cc,
// conversions); any other kernel would see their real parts alone.
absl::Status CheckComplexReader(const pt2::Node& node, const std::string& key, const ValueMap& values) {
  static const std::set<std::string>* aware = new std::set<std::string>{
      "aten::_fft_c2c.default", "aten::_fft_c2r.default", "aten::fft_fft.default", "aten::fft_ifft.default",
      "aten::fft_irfft.default", "aten::view_as_real.default", "aten::_to_copy.default", "aten::to.dtype",
      "aten::to.dtype_layout", "aten::to.device", "aten::clone.default", "aten::alias.default",
      "aten::view_as_real_copy.default", "aten::resolve_conj.default", "aten::resolve_neg.default",
      "aten::conj.default", "aten::_conj.default"};
  if (aware->count(key) > 0) return absl::OkStatus();
  for (const pt2::NamedArgument& a : node.inputs) {
    std::vector<std::string> names = a.arg.names;
    if (a.arg.kind == Kind::kTensor) names.push_back(a.arg.name);
    for (const std::string& name : names) {
      auto it = values.find(name);
      if (it != values.end() && it->second.kind == RefValue::Kind::kTensor && IsComplex(it->second.tensor.dtype())) {
        return absl::UnimplementedError(absl::StrCat(
            key, ": reads the complex tensor '", name,
            "'; the reference interpreter computes complex tensors only in FFT ops, view_as_real and dtype conversions"));
      }
    }
  }
  return absl::OkStatus();
}

// A node reading a value derived from random numbers gives such values
// too; an in-place one makes its self argument one as well.
void PropagateNotComparable(const pt2::Node& node, const std::string& key, ValueMap& values,
                            std::vector<RefValue>& results) {
  std::string reason;
  const pt2::NamedArgument* self = nullptr;
  for (const pt2::NamedArgument& a : node.inputs) {
    std::vector<std::string> names = a.arg.names;
    if (a.arg.kind == Kind::kTensor) {
      names.push_back(a.arg.name);
      if (self == nullptr) self = &a;
    }
    for (const std::string& name : names) {
      auto it = values.find(name);
      if (reason.empty() && it != values.end()) reason = it->second.not_comparable;
    }
  }
  for (const RefValue& r : results) {
    if (reason.empty()) reason = r.not_comparable;
  }
  if (reason.empty()) return;
  for (RefValue& r : results) {
    r.not_comparable = reason;
    for (RefValue& item : r.list) item.not_comparable = reason;
  }
  if (IsInPlaceOp(key) && self != nullptr) values[self->arg.name].not_comparable = reason;
}

// Runs graphs node by node: the main graph and, for control flow, the nested
// graphs of higher-order ops (each in its own scope of values).
class GraphInterpreter final : public SubgraphRunner {
 public:
  GraphInterpreter(const RefRegistry& registry, const InterpretOptions& options)
      : registry_(registry), options_(options) {}

  // `top` (the main graph only) receives the defined names and kept values.
  absl::Status RunNodes(const pt2::Graph& graph, ValueMap& values, Interpretation* top) {
    const GraphPlan& plan = PlanOf(graph);
    // Views are tracked only when something can write through them.
    const bool track_views = plan.writes;
    std::vector<std::string> defined;
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      const pt2::Node& node = graph.nodes[n];
      const aten::OpSchema* schema = plan.schemas[n];
      RefCall call(node, schema, graph, values);
      call.set_subgraph_runner(this);
      RefKernel kernel = plan.kernels[n];
      absl::Status status = kernel != nullptr
                                ? CheckComplexReader(node, call.key(), values)
                                : absl::UnimplementedError(absl::StrCat("no reference kernel for ", call.key()));
      if (status.ok()) status = kernel(call);
      if (status.ok() && track_views && IsViewOp(call.key())) {
        status = TrackView(node, schema, graph, kernel, values, call.results());
      }
      if (status.ok() && track_views && IsInPlaceOp(call.key())) WriteThrough(node, values, call.results());
      // *_copy overloads share a view's kernel but must not alias their input.
      if (status.ok() && call.key().find("_copy.") != std::string::npos) status = DetachResults(call.results());
      if (status.ok()) PropagateNotComparable(node, call.key(), values, call.results());
      defined.clear();
      if (status.ok()) status = BindOutputs(graph, node, call.results(), values, defined);
      // Kept values are copies taken now: a later in-place op (relu_ after
      // batch_norm) must not change what this node produced.
      for (size_t k = 0; status.ok() && top != nullptr && options_.keep_values && k < defined.size(); ++k) {
        const RefValue& v = values[defined[k]];
        absl::StatusOr<Tensor> copy = CopyTensor(v.tensor);
        if (!copy.ok()) status = copy.status();
        else top->values[defined[k]] = RefValue::OfTensor(*std::move(copy));
      }
      if (!status.ok()) {
        return absl::Status(status.code(), absl::StrCat("node '", NodeName(node), "': ", status.message()));
      }
      if (top != nullptr) {
        for (const std::string& name : defined) {
          const std::string& reason = values[name].not_comparable;
          if (!reason.empty()) top->not_comparable[name] = reason;
        }
        top->defined.insert(top->defined.end(), defined.begin(), defined.end());
        if (options_.progress) options_.progress(n + 1, graph.nodes.size());
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<RefValue>> Run(const pt2::Graph& graph, const std::vector<RefValue>& inputs) override {
    if (depth_ >= kMaxNestedGraphDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("higher-order ops are nested more than ", kMaxNestedGraphDepth, " deep"));
    }
    if (graph.inputs.size() != inputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("the subgraph takes ", graph.inputs.size(),
                                                     " inputs but the node passes ", inputs.size()));
    }
    // torch forbids a body to write into its inputs; copies keep a hostile
    // one from changing the enclosing graph's values.
    const bool writes = PlanOf(graph).writes;
    ValueMap values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string name = InputName(graph.inputs[i]);
      if (name.empty()) continue;
      RefValue v = inputs[i];
      if (writes && v.kind == RefValue::Kind::kTensor) {
        PT2ONNX_ASSIGN_OR_RETURN(v, CopyValue(v));
      }
      values[name] = std::move(v);
    }
    ++depth_;
    absl::Status status = RunNodes(graph, values, nullptr);
    --depth_;
    PT2ONNX_RETURN_IF_ERROR(status);
    std::vector<RefValue> outputs;
    for (const Argument& out : graph.outputs) {
      PT2ONNX_ASSIGN_OR_RETURN(RefValue v, ArgumentValue(values, out));
      // A body returning an input unchanged gives a new tensor, as torch's clones do.
      if (SharesBuffer(v, inputs) || SharesBuffer(v, outputs)) {
        PT2ONNX_ASSIGN_OR_RETURN(v, CopyValue(v));
      }
      outputs.push_back(std::move(v));
    }
    return outputs;
  }

  int64_t max_loop_iterations() const override { return options_.max_loop_iterations; }

 private:
  // What a graph's nodes resolve to, worked out once: loop bodies run many times.
  struct GraphPlan {
    std::vector<const aten::OpSchema*> schemas;
    std::vector<RefKernel> kernels;
    bool writes = false;  // an in-place op
  };

  const GraphPlan& PlanOf(const pt2::Graph& graph) {
    auto [it, inserted] = plans_.try_emplace(&graph);
    if (inserted) {
      const aten::SchemaTable& schemas = aten::SchemaTable::Default();
      for (const pt2::Node& node : graph.nodes) {
        const std::string key = TargetKey(node.target);
        it->second.schemas.push_back(schemas.Find(key));
        it->second.kernels.push_back(registry_.Find(key));
        it->second.writes |= IsInPlaceOp(key);
      }
    }
    return it->second;
  }

  static absl::StatusOr<RefValue> CopyValue(const RefValue& v) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, CopyTensor(v.tensor));
    return RefValue::OfTensor(std::move(t));
  }

  const RefRegistry& registry_;
  const InterpretOptions& options_;
  int depth_ = 0;
  std::map<const pt2::Graph*, GraphPlan> plans_;
};

}  // namespace

std::vector<std::string> MissingKernels(const pt2::ExportedProgram& program,
                                        const RefRegistry& registry) {
  std::set<std::string> missing;
  CollectMissing(program.graph, registry, missing);
  return std::vector<std::string>(missing.begin(), missing.end());
}

absl::StatusOr<Interpretation> Interpret(const pt2::ExportedProgram& program,
                                         const pt2::WeightTable& weights,
                                         const std::vector<NamedTensor>& inputs,
                                         const InterpretOptions& options) {
  RefRegistry own;
  const RefRegistry* registry = options.registry;
  if (registry == nullptr) {
    own = CreateReferenceRegistry();
    registry = &own;
  }
  std::vector<std::string> missing = MissingKernels(program, *registry);
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) absl::StrAppend(&list, list.empty() ? "" : ", ", m);
    return absl::UnimplementedError(
        absl::StrCat("the reference interpreter has no kernel for ", list));
  }
  Interpretation result;
  ValueMap values;
  PT2ONNX_RETURN_IF_ERROR(BindPlaceholders(program, weights, inputs, values));
  GraphInterpreter interpreter(*registry, options);
  absl::Status status = interpreter.RunNodes(program.graph, values, &result);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("reference interpreter: ", status.message()));
  }
  for (const pt2::OutputSpec& spec : program.signature.output_specs) {
    if (spec.kind != pt2::OutputSpec::Kind::kUserOutput) continue;
    if (spec.arg.kind != Kind::kTensor) continue;  // constant and None outputs are not compared
    auto it = values.find(spec.arg.name);
    if (it != values.end() && it->second.kind == RefValue::Kind::kUnavailable) {
      return absl::UnimplementedError(absl::StrCat("output '", spec.arg.name, "' is not computed by the reference interpreter (",
                                                   it->second.reason, ")"));
    }
    if (it == values.end() || it->second.kind != RefValue::Kind::kTensor) {
      return absl::InvalidArgumentError(absl::StrCat("output '", spec.arg.name, "' has no tensor value"));
    }
    if (!it->second.not_comparable.empty()) result.not_comparable[spec.arg.name] = it->second.not_comparable;
    result.outputs.push_back({spec.arg.name, it->second.tensor});
  }
  return result;
}

}  // namespace pt2onnx::reference
