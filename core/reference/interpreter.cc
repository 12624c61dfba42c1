#include "core/reference/interpreter.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/reference/ref_tensor.h"
#include "core/status_macros.h"
#include "core/aten/op_schema.h"

namespace pt2onnx::reference {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

absl::StatusOr<runtime::Tensor> WeightTensor(const pt2::Weight& w) {
  PT2ONNX_ASSIGN_OR_RETURN(runtime::Tensor t, NewTensor(w.dtype, w.sizes));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bytes, w.Materialize());
  if (bytes.size() != t.byte_size()) {
    return absl::InvalidArgumentError(absl::StrCat("weight '", w.name, "' has ", bytes.size(),
                                                   " bytes, expected ", t.byte_size()));
  }
  if (!bytes.empty()) std::memcpy(t.raw(), bytes.data(), bytes.size());
  return t;
}

absl::StatusOr<RefValue> ConstantValue(const Argument& a) {
  switch (a.kind) {
    case Kind::kNone: return RefValue();
    case Kind::kInt: return RefValue::OfInt(a.i);
    case Kind::kFloat: return RefValue::OfFloat(a.f);
    case Kind::kBool: return RefValue::OfBool(a.b);
    default: return absl::UnimplementedError("a constant input of this kind is not supported");
  }
}

absl::Status BindPlaceholders(const pt2::ExportedProgram& program, const pt2::WeightTable& weights,
                              const std::vector<runtime::NamedTensor>& inputs, ValueMap& values) {
  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    using SpecKind = pt2::InputSpec::Kind;
    const std::string& name = spec.arg.kind == Kind::kSymInt ? spec.arg.sym.name : spec.arg.name;
    switch (spec.kind) {
      case SpecKind::kUserInput: {
        auto it = std::find_if(inputs.begin(), inputs.end(),
                               [&](const runtime::NamedTensor& t) { return t.name == name; });
        if (spec.arg.kind != Kind::kTensor) {
          if (spec.arg.kind == Kind::kNone) break;
          PT2ONNX_ASSIGN_OR_RETURN(values[name], ConstantValue(spec.arg));
          break;
        }
        if (it == inputs.end()) {
          return absl::InvalidArgumentError(absl::StrCat("no value for user input '", name, "'"));
        }
        PT2ONNX_ASSIGN_OR_RETURN(runtime::Tensor copy, CopyTensor(it->tensor));
        values[name] = RefValue::OfTensor(std::move(copy));
        break;
      }
      case SpecKind::kParameter:
      case SpecKind::kBuffer:
      case SpecKind::kTensorConstant: {
        const pt2::Weight* w = weights.Find(spec.target);
        if (w == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat("weight '", spec.target, "' is missing"));
        }
        PT2ONNX_ASSIGN_OR_RETURN(runtime::Tensor t, WeightTensor(*w));
        values[name] = RefValue::OfTensor(std::move(t));
        break;
      }
      case SpecKind::kConstantInput: {
        PT2ONNX_ASSIGN_OR_RETURN(values[name], ConstantValue(spec.value));
        break;
      }
      case SpecKind::kCustomObj:
      case SpecKind::kToken:
        values[name] = RefValue();
        break;
    }
  }
  return absl::OkStatus();
}

// The kernel's result must have the dtype and static sizes torch recorded:
// a mismatch is a bug of the interpreter, reported as such.
absl::Status CheckAgainstMeta(const pt2::Graph& graph, const std::string& name,
                              const runtime::Tensor& t) {
  auto it = graph.tensor_values.find(name);
  if (it == graph.tensor_values.end()) return absl::OkStatus();
  const pt2::TensorMeta& meta = it->second;
  if (meta.dtype != DataType::kUndefined && meta.dtype != t.dtype()) {
    return absl::InternalError(absl::StrCat("the reference result '", name, "' is ",
                                            DataTypeName(t.dtype()), ", torch recorded ",
                                            DataTypeName(meta.dtype)));
  }
  bool sizes_ok = meta.sizes.size() == t.dims().size();
  for (size_t d = 0; sizes_ok && d < meta.sizes.size(); ++d) {
    if (!meta.sizes[d].is_symbolic && meta.sizes[d].value != t.dims()[d]) sizes_ok = false;
  }
  if (!sizes_ok) {
    std::string recorded;
    for (const pt2::SymInt& s : meta.sizes) {
      absl::StrAppend(&recorded, recorded.empty() ? "" : ", ", s.is_symbolic ? s.expr : absl::StrCat(s.value));
    }
    return absl::InternalError(absl::StrCat("the reference result '", name, "' has shape ",
                                            runtime::DimsString(t.dims()), ", torch recorded [",
                                            recorded, "]"));
  }
  return absl::OkStatus();
}

absl::Status BindOutputs(const pt2::Graph& graph, const pt2::Node& node, std::vector<RefValue>& results,
                         ValueMap& values, std::vector<std::string>& defined) {
  size_t used = 0;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const Argument& out = node.outputs[i];
    if (out.kind == Kind::kNone) {
      ++used;
      continue;
    }
    if (i >= results.size()) {
      return absl::InternalError(absl::StrCat("the reference kernel gave ", results.size(),
                                              " results for ", node.outputs.size(), " outputs"));
    }
    RefValue& r = results[i];
    ++used;
    if (r.kind == RefValue::Kind::kUnavailable) {
      const std::string& name = out.sym.is_name ? out.sym.name : out.name;
      if (!name.empty()) values[name] = std::move(r);
      continue;
    }
    switch (out.kind) {
      case Kind::kTensor:
        if (r.kind != RefValue::Kind::kTensor) return absl::InternalError("the reference result is not a tensor");
        PT2ONNX_RETURN_IF_ERROR(CheckAgainstMeta(graph, out.name, r.tensor));
        defined.push_back(out.name);
        values[out.name] = std::move(r);
        break;
      case Kind::kTensors:
        if (r.kind != RefValue::Kind::kList || r.list.size() != out.names.size()) {
          return absl::InternalError(absl::StrCat("the reference result is not a list of ",
                                                  out.names.size(), " tensors"));
        }
        for (size_t k = 0; k < out.names.size(); ++k) {
          PT2ONNX_RETURN_IF_ERROR(CheckAgainstMeta(graph, out.names[k], r.list[k].tensor));
          defined.push_back(out.names[k]);
          values[out.names[k]] = std::move(r.list[k]);
        }
        break;
      case Kind::kSymInt:
      case Kind::kSymFloat:
      case Kind::kSymBool:
        if (out.sym.is_name) values[out.sym.name] = std::move(r);
        break;
      case Kind::kInt:
      case Kind::kFloat:
      case Kind::kBool:
        break;  // a constant output: nothing to bind
      default:
        if (!out.name.empty()) values[out.name] = std::move(r);
        break;
    }
  }
  (void)used;
  return absl::OkStatus();
}

absl::Status DetachResults(std::vector<RefValue>& results) {
  for (RefValue& r : results) {
    if (r.kind == RefValue::Kind::kTensor) {
      PT2ONNX_ASSIGN_OR_RETURN(r.tensor, CopyTensor(r.tensor));
    }
    for (RefValue& item : r.list) {
      if (item.kind == RefValue::Kind::kTensor) {
        PT2ONNX_ASSIGN_OR_RETURN(item.tensor, CopyTensor(item.tensor));
      }
    }
  }
  return absl::OkStatus();
}

// Overloads whose results alias their first input in torch (views).
bool IsViewOp(const std::string& key) {
  static const std::set<std::string>* views = new std::set<std::string>{
      "aten::view.default", "aten::_unsafe_view.default", "aten::unsqueeze.default", "aten::squeeze.default",
      "aten::squeeze.dim", "aten::squeeze.dims", "aten::slice.Tensor", "aten::select.int",
      "aten::transpose.int", "aten::permute.default", "aten::t.default", "aten::expand.default",
      "aten::narrow.default", "aten::diagonal.default", "aten::as_strided.default", "aten::alias.default",
      "aten::split.Tensor", "aten::split_with_sizes.default", "aten::chunk.default", "aten::unbind.int",
      "aten::unflatten.int", "aten::swapaxes.default", "aten::swapdims.default", "aten::movedim.int",
      "aten::unfold.default", "aten::tensor_split.indices", "aten::tensor_split.sections",
      "aten::mT.default", "aten::mH.default", "aten::adjoint.default", "aten::numpy_T.default",
      "aten::movedim.intlist", "aten::moveaxis.int", "aten::moveaxis.intlist", "aten::narrow.Tensor",
      "aten::_reshape_alias.default"};
  return views->count(key) > 0;
}

// aten::add_ and friends: the op name ends with '_'.
bool IsInPlaceOp(const std::string& key) {
  const size_t dot = key.rfind('.');
  return key.rfind("aten::", 0) == 0 && dot != std::string::npos && dot > 0 && key[dot - 1] == '_';
}

const pt2::NamedArgument* FirstTensorInput(const pt2::Node& node) {
  for (const pt2::NamedArgument& a : node.inputs) {
    if (a.arg.kind == Kind::kTensor) return &a;
  }
  return nullptr;
}

// Runs the view kernel again on the element indices of its input's base, so
// each result learns which base elements it shows.
absl::Status TrackView(const pt2::Node& node, const aten::OpSchema* schema, const pt2::Graph& graph,
                       RefKernel kernel, ValueMap& values, std::vector<RefValue>& results) {
  const pt2::NamedArgument* self = FirstTensorInput(node);
  if (self == nullptr) return absl::OkStatus();
  RefValue original = values[self->arg.name];
  if (original.kind != RefValue::Kind::kTensor) return absl::OkStatus();
  const runtime::Tensor& t = original.tensor;
  std::vector<int64_t> index(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) index[i] = original.view_index ? (*original.view_index)[i] : i;
  std::shared_ptr<runtime::Buffer> base = original.view_base ? original.view_base : t.buffer();
  PT2ONNX_ASSIGN_OR_RETURN(runtime::Tensor index_tensor, FromInts(DataType::kInt64, t.dims(), index));
  values[self->arg.name] = RefValue::OfTensor(index_tensor);
  RefCall call(node, schema, graph, values);
  absl::Status status = kernel(call);
  values[self->arg.name] = std::move(original);
  if (!status.ok()) return absl::OkStatus();  // not trackable: the result stays a plain copy
  auto attach = [&](RefValue& result, RefValue& mapped) {
    if (result.kind != RefValue::Kind::kTensor || mapped.kind != RefValue::Kind::kTensor ||
        mapped.tensor.numel() != result.tensor.numel()) {
      return;
    }
    result.view_base = base;
    result.view_index = std::make_shared<const std::vector<int64_t>>(ToInts(mapped.tensor));
  };
  for (size_t r = 0; r < results.size() && r < call.results().size(); ++r) {
    attach(results[r], call.results()[r]);
    for (size_t k = 0; k < results[r].list.size() && k < call.results()[r].list.size(); ++k) {
      attach(results[r].list[k], call.results()[r].list[k]);
    }
  }
  return absl::OkStatus();
}

// After an in-place op on a view: its new elements go to the viewed base.
void WriteThrough(const pt2::Node& node, ValueMap& values, std::vector<RefValue>& results) {
  const pt2::NamedArgument* self = FirstTensorInput(node);
  if (self == nullptr) return;
  const RefValue& v = values[self->arg.name];
  if (v.kind != RefValue::Kind::kTensor || !v.view_base || !v.view_index) return;
  const size_t es = ElementSize(v.tensor.dtype());
  const int64_t capacity = static_cast<int64_t>(v.view_base->capacity() / es);
  for (int64_t i = 0; i < v.tensor.numel(); ++i) {
    const int64_t at = (*v.view_index)[i];
    if (at >= 0 && at < capacity) std::memcpy(v.view_base->data() + at * es, v.tensor.raw() + i * es, es);
  }
  for (RefValue& r : results) {
    if (r.kind == RefValue::Kind::kTensor && r.tensor.buffer() == v.tensor.buffer()) {
      r.view_base = v.view_base;
      r.view_index = v.view_index;
    }
  }
}

// Complex tensors are read only by kernels that know their layout (fft.cc,
// conversions); any other kernel would see their real parts alone.
absl::Status CheckComplexReader(const pt2::Node& node, const std::string& key, const ValueMap& values) {
  static const std::set<std::string>* aware = new std::set<std::string>{
      "aten::_fft_c2c.default", "aten::_fft_c2r.default", "aten::fft_fft.default", "aten::fft_ifft.default",
      "aten::fft_irfft.default", "aten::view_as_real.default", "aten::_to_copy.default", "aten::to.dtype",
      "aten::to.dtype_layout", "aten::to.device", "aten::clone.default", "aten::alias.default"};
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
  for (const pt2::NamedArgument& a : node.inputs) {
    std::vector<std::string> names = a.arg.names;
    if (a.arg.kind == Kind::kTensor) names.push_back(a.arg.name);
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
  const pt2::NamedArgument* self = FirstTensorInput(node);
  if (IsInPlaceOp(key) && self != nullptr) values[self->arg.name].not_comparable = reason;
}

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

std::vector<std::string> MissingKernels(const pt2::ExportedProgram& program,
                                        const RefRegistry& registry) {
  std::set<std::string> missing;
  for (const pt2::Node& node : program.graph.nodes) {
    std::string key = TargetKey(node.target);
    if (registry.Find(key) == nullptr) missing.insert(key);
  }
  return std::vector<std::string>(missing.begin(), missing.end());
}

absl::StatusOr<Interpretation> Interpret(const pt2::ExportedProgram& program,
                                         const pt2::WeightTable& weights,
                                         const std::vector<runtime::NamedTensor>& inputs,
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
  const pt2::Graph& graph = program.graph;
  const aten::SchemaTable& schemas = aten::SchemaTable::Default();
  // Views are tracked only when something can write through them.
  bool track_views = false;
  for (const pt2::Node& node : graph.nodes) track_views |= IsInPlaceOp(TargetKey(node.target));
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const pt2::Node& node = graph.nodes[n];
    const aten::OpSchema* schema = schemas.Find(TargetKey(node.target));
    RefCall call(node, schema, graph, values);
    RefKernel kernel = registry->Find(call.key());
    absl::Status status = CheckComplexReader(node, call.key(), values);
    if (status.ok()) status = kernel(call);
    if (status.ok() && track_views && IsViewOp(call.key())) {
      status = TrackView(node, schema, graph, kernel, values, call.results());
    }
    if (status.ok() && track_views && IsInPlaceOp(call.key())) WriteThrough(node, values, call.results());
    // *_copy overloads share a view's kernel but must not alias their input.
    if (status.ok() && call.key().find("_copy.") != std::string::npos) status = DetachResults(call.results());
    if (status.ok()) PropagateNotComparable(node, call.key(), values, call.results());
    const size_t defined_before = result.defined.size();
    if (status.ok()) status = BindOutputs(graph, node, call.results(), values, result.defined);
    // Kept values are copies taken now: a later in-place op (relu_ after
    // batch_norm) must not change what this node produced.
    for (size_t k = defined_before; status.ok() && options.keep_values && k < result.defined.size(); ++k) {
      const RefValue& v = values[result.defined[k]];
      absl::StatusOr<runtime::Tensor> copy = CopyTensor(v.tensor);
      if (!copy.ok()) status = copy.status();
      else result.values[result.defined[k]] = RefValue::OfTensor(*std::move(copy));
    }
    for (size_t k = defined_before; status.ok() && k < result.defined.size(); ++k) {
      const std::string& reason = values[result.defined[k]].not_comparable;
      if (!reason.empty()) result.not_comparable[result.defined[k]] = reason;
    }
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat("reference interpreter: node '", NodeName(node),
                                                      "': ", status.message()));
    }
    if (options.progress) options.progress(n + 1, graph.nodes.size());
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
