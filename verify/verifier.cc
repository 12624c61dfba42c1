#include "verify/verifier.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reference/interpreter.h"
#include "core/status_macros.h"
#include "core/tensor/complex_as_real.h"

namespace pt2onnx::verify {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

// FX value name -> the node defining it.
std::map<std::string, const pt2::Node*> Producers(const pt2::Graph& graph) {
  std::map<std::string, const pt2::Node*> producers;
  for (const pt2::Node& node : graph.nodes) {
    for (const Argument& out : node.outputs) {
      if (out.kind == Kind::kTensor) producers[out.name] = &node;
      if (out.kind == Kind::kTensors) {
        for (const std::string& n : out.names) producers[n] = &node;
      }
    }
  }
  return producers;
}

ValueOrigin OriginOf(const std::string& name, const std::map<std::string, const pt2::Node*>& producers,
                     const std::map<std::string, const ir::Node*>& onnx_producers) {
  ValueOrigin o;
  o.fx_name = name;
  auto it = producers.find(name);
  if (it != producers.end()) {
    o.node_name = reference::NodeName(*it->second);
    o.target = reference::TargetKey(it->second->target);
    auto trace = it->second->metadata.find("stack_trace");
    if (trace != it->second->metadata.end()) o.stack_trace = trace->second;
  }
  auto on = onnx_producers.find(name);
  if (on != onnx_producers.end()) {
    o.onnx_node = on->second->name;
    o.onnx_op = on->second->op_type;
  }
  return o;
}

// A value derived from random numbers: its dtypes are kept, its differences
// dropped (they measure two random streams, not the conversion).
VerificationInfo NotCompared(const VerificationInfo& compared, const std::string& reason) {
  VerificationInfo info;
  info.name = compared.name;
  info.expected_dtype = compared.expected_dtype;
  info.actual_dtype = compared.actual_dtype;
  info.thresholds = compared.thresholds;
  info.mismatch = compared.mismatch;
  info.not_compared = reason;
  return info;
}

}  // namespace

absl::StatusOr<std::vector<NamedTensor>> OnnxInputs(const pt2::ExportedProgram& program,
                                                             const ir::Model& model,
                                                             const std::vector<NamedTensor>& inputs) {
  std::vector<std::string> user;
  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    if (spec.kind == pt2::InputSpec::Kind::kUserInput && spec.arg.kind == Kind::kTensor) user.push_back(spec.arg.name);
  }
  const std::vector<ir::ValueInfo>& graph_inputs = model.graph.inputs;
  if (graph_inputs.size() != user.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the ONNX graph has ", graph_inputs.size(),
                                                   " inputs, the program ", user.size(), " user inputs"));
  }
  std::vector<NamedTensor> out;
  for (size_t i = 0; i < user.size(); ++i) {
    const NamedTensor* found = nullptr;
    for (const NamedTensor& t : inputs) {
      if (t.name == user[i]) found = &t;
    }
    if (found == nullptr) return absl::InvalidArgumentError(absl::StrCat("no value for input '", user[i], "'"));
    out.push_back({graph_inputs[i].name, found->tensor});
  }
  return out;
}

absl::StatusOr<Verification> Verify(const pt2::LoadedProgram& loaded, const ir::Model& model,
                                    const std::vector<NamedTensor>& inputs,
                                    const VerifyOptions& options) {
  const pt2::ExportedProgram& program = loaded.program;
  auto stage = [&](const char* name) {
    if (options.stage) options.stage(name);
  };
  // The ONNX values that keep an FX tensor's name, produced by a node.
  std::map<std::string, const ir::Node*> onnx_producers;
  for (const ir::Node& node : model.graph.nodes) {
    for (const std::string& out : node.outputs) onnx_producers[out] = &node;
  }
  const auto producers = Producers(program.graph);
  std::vector<std::string> kept;
  if (options.intermediates) {
    std::set<std::string> outputs;
    for (const ir::ValueInfo& o : model.graph.outputs) outputs.insert(o.name);
    for (const pt2::Node& node : program.graph.nodes) {
      for (const Argument& out : node.outputs) {
        std::vector<std::string> names = out.kind == Kind::kTensor ? std::vector<std::string>{out.name}
                                         : out.kind == Kind::kTensors ? out.names : std::vector<std::string>{};
        for (const std::string& n : names) {
          if (onnx_producers.count(n) && !outputs.count(n)) kept.push_back(n);
        }
      }
    }
  }

  stage("reference");
  reference::InterpretOptions ropts;
  ropts.registry = options.registry;
  ropts.keep_values = options.intermediates;
  PT2ONNX_ASSIGN_OR_RETURN(reference::Interpretation expected,
                           reference::Interpret(program, loaded.weights, inputs, ropts));

  stage("onnx");
  ir::Model run_model = model;
  for (const std::string& name : kept) {
    ir::ValueInfo info;
    info.name = name;
    auto meta = program.graph.tensor_values.find(name);
    if (meta != program.graph.tensor_values.end()) info.dtype = meta->second.dtype;
    auto vi = model.graph.value_info.find(name);
    if (vi != model.graph.value_info.end()) info = vi->second;
    run_model.graph.outputs.push_back(info);
  }
  runtime::SessionOptions sopts;
  sopts.threadpool = options.threadpool;
  absl::StatusOr<std::unique_ptr<runtime::Session>> session = runtime::Session::Create(run_model, sopts);
  if (!session.ok()) {
    return absl::Status(session.status().code(),
                        absl::StrCat("the executor cannot run the model: ", session.status().message()));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<NamedTensor> onnx_inputs, OnnxInputs(program, model, inputs));
  absl::StatusOr<std::vector<NamedTensor>> actual = (*session)->Run(onnx_inputs);
  if (!actual.ok()) {
    return absl::Status(actual.status().code(),
                        absl::StrCat("the executor failed on the model: ", actual.status().message()));
  }

  stage("compare");
  Verification v;
  const size_t n_out = model.graph.outputs.size();
  if (expected.outputs.size() != n_out) {
    return absl::InvalidArgumentError(absl::StrCat("the program has ", expected.outputs.size(),
                                                   " tensor outputs, the ONNX graph ", n_out));
  }
  for (size_t i = 0; i < n_out; ++i) {
    ValueCheck c;
    c.is_output = true;
    c.origin = OriginOf(expected.outputs[i].name, producers, onnx_producers);
    // A complex value is compared in the layout the model carries it in.
    PT2ONNX_ASSIGN_OR_RETURN(Tensor want, ComplexAsReal(expected.outputs[i].tensor));
    c.info = CompareTensors(model.graph.outputs[i].name, want, (*actual)[i].tensor);
    auto random = expected.not_comparable.find(expected.outputs[i].name);
    if (random != expected.not_comparable.end()) c.info = NotCompared(c.info, random->second);
    if (c.info.FailsOutputThresholds()) v.passed = false;
    v.outputs.push_back(std::move(c));
  }
  for (size_t k = 0; k < kept.size(); ++k) {
    auto it = expected.values.find(kept[k]);
    if (it == expected.values.end() || it->second.kind != reference::RefValue::Kind::kTensor) continue;
    ValueCheck c;
    c.origin = OriginOf(kept[k], producers, onnx_producers);
    PT2ONNX_ASSIGN_OR_RETURN(Tensor want, ComplexAsReal(it->second.tensor));
    c.info = CompareTensors(kept[k], want, (*actual)[n_out + k].tensor);
    auto random = expected.not_comparable.find(kept[k]);
    if (random != expected.not_comparable.end()) c.info = NotCompared(c.info, random->second);
    // The same per-dtype rule as the outputs: a half-precision value one ulp
    // off is no divergence.
    if (!v.first_divergence && c.info.FailsOutputThresholds()) v.first_divergence = c;
    v.intermediates.push_back(std::move(c));
  }
  for (const ValueCheck& c : v.outputs) {
    if (!v.first_divergence && c.info.FailsOutputThresholds()) v.first_divergence = c;
  }
  return v;
}

std::string DescribeDivergence(const ValueCheck& c) {
  std::string where = c.origin.target.empty() ? "" : absl::StrCat(c.origin.target);
  if (!c.origin.onnx_node.empty()) {
    absl::StrAppend(&where, where.empty() ? "" : ", ", "ONNX ", c.origin.onnx_op, " ", c.origin.onnx_node);
  }
  std::string text = absl::StrFormat("'%s' (%s): max_abs_diff %g, max_rel_diff %g", c.origin.fx_name, where,
                                     c.info.max_abs_diff, c.info.max_rel_diff);
  if (!c.info.mismatch.empty()) absl::StrAppend(&text, ", ", c.info.mismatch);
  absl::StrAppend(&text, " (", DataTypeName(c.info.expected_dtype), ": ", c.info.thresholds.Text(), ")");
  return text;
}

std::string ThresholdsSummary(const std::vector<ValueCheck>& checks) {
  std::vector<std::string> parts;
  std::set<DataType> seen;
  for (const ValueCheck& c : checks) {
    if (!seen.insert(c.info.expected_dtype).second) continue;
    parts.push_back(absl::StrCat(DataTypeName(c.info.expected_dtype), ": ", c.info.thresholds.Text()));
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace pt2onnx::verify
