#include "reference/value_binding.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/ref_tensor.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

absl::StatusOr<Tensor> WeightTensor(const pt2::Weight& w) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(w.dtype, w.sizes));
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

// The kernel's result must have the dtype and static sizes torch recorded:
// a mismatch is a bug of the interpreter, reported as such.
absl::Status CheckAgainstMeta(const pt2::Graph& graph, const std::string& name,
                              const Tensor& t) {
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
                                            DimsString(t.dims()), ", torch recorded [",
                                            recorded, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BindPlaceholders(const pt2::ExportedProgram& program, const pt2::WeightTable& weights,
                              const std::vector<NamedTensor>& inputs, ValueMap& values) {
  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    using SpecKind = pt2::InputSpec::Kind;
    const std::string& name = spec.arg.kind == Kind::kSymInt ? spec.arg.sym.name : spec.arg.name;
    switch (spec.kind) {
      case SpecKind::kUserInput: {
        auto it = std::find_if(inputs.begin(), inputs.end(),
                               [&](const NamedTensor& t) { return t.name == name; });
        if (spec.arg.kind != Kind::kTensor) {
          if (spec.arg.kind == Kind::kNone) break;
          PT2ONNX_ASSIGN_OR_RETURN(values[name], ConstantValue(spec.arg));
          break;
        }
        if (it == inputs.end()) {
          return absl::InvalidArgumentError(absl::StrCat("no value for user input '", name, "'"));
        }
        PT2ONNX_ASSIGN_OR_RETURN(Tensor copy, CopyTensor(it->tensor));
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
        PT2ONNX_ASSIGN_OR_RETURN(Tensor t, WeightTensor(*w));
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

}  // namespace pt2onnx::reference
