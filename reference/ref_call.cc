#include "reference/ref_call.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

namespace {

absl::StatusOr<RefValue> NamedValue(const ValueMap& values, const std::string& name) {
  auto it = values.find(name);
  if (it == values.end()) return absl::NotFoundError(absl::StrCat("value '", name, "' is not defined"));
  return it->second;
}

absl::StatusOr<RefValue> SymValue(const ValueMap& values, const pt2::SymArg& sym, Kind kind) {
  if (sym.is_name) return NamedValue(values, sym.name);
  if (kind == Kind::kSymBool) return RefValue::OfBool(sym.bool_value);
  if (kind == Kind::kSymFloat) return RefValue::OfFloat(sym.float_value);
  return RefValue::OfInt(sym.int_value);
}

}  // namespace

absl::StatusOr<RefValue> ArgumentValue(const ValueMap& values, const Argument& a) {
  RefValue list;
  list.kind = RefValue::Kind::kList;
  switch (a.kind) {
    case Kind::kNone: return RefValue();
    case Kind::kTensor: return NamedValue(values, a.name);
    case Kind::kOptionalTensor: return a.b ? NamedValue(values, a.name) : RefValue();
    case Kind::kInt: return RefValue::OfInt(a.i);
    case Kind::kFloat: return RefValue::OfFloat(a.f);
    case Kind::kBool: return RefValue::OfBool(a.b);
    case Kind::kSymInt:
    case Kind::kSymFloat:
    case Kind::kSymBool: return SymValue(values, a.sym, a.kind);
    case Kind::kTensors:
      for (const std::string& n : a.names) {
        PT2ONNX_ASSIGN_OR_RETURN(RefValue v, NamedValue(values, n));
        list.list.push_back(std::move(v));
      }
      return list;
    case Kind::kInts:
      for (int64_t i : a.ints) list.list.push_back(RefValue::OfInt(i));
      return list;
    case Kind::kSymInts:
    case Kind::kSymBools:
    case Kind::kSymFloats: {
      const Kind each = a.kind == Kind::kSymInts ? Kind::kSymInt
                        : a.kind == Kind::kSymBools ? Kind::kSymBool : Kind::kSymFloat;
      for (const pt2::SymArg& s : a.syms) {
        PT2ONNX_ASSIGN_OR_RETURN(RefValue v, SymValue(values, s, each));
        list.list.push_back(std::move(v));
      }
      return list;
    }
    default:
      return absl::UnimplementedError("an argument of this kind cannot be a value here");
  }
}

RefCall::RefCall(const pt2::Node& node, const aten::OpSchema* schema, const pt2::Graph& graph,
                 ValueMap& values)
    : node_(node), schema_(schema), graph_(graph), values_(values), key_(TargetKey(node.target)) {}

absl::StatusOr<Argument> RefCall::Arg(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* a, ArgRef(name));
  return *a;
}

// Arguments are large (about 0.5 KB): read in place, not copied.
absl::StatusOr<const Argument*> RefCall::ArgRef(absl::string_view name) const {
  for (const pt2::NamedArgument& a : node_.inputs) {
    if (a.name == name) return &a.arg;
  }
  if (schema_ != nullptr) {
    const aten::SchemaArgument* s = schema_->FindArgument(name);
    if (s != nullptr && s->default_value.has_value()) return &*s->default_value;
    if (s != nullptr) return Invalid(absl::StrCat("required argument '", name, "' is missing"));
  }
  return Invalid(absl::StrCat("argument '", name, "' is missing and has no default"));
}

bool RefCall::Has(absl::string_view name) const {
  absl::StatusOr<const Argument*> a = ArgRef(name);
  if (!a.ok() || (*a)->kind == Kind::kNone) return false;
  return !((*a)->kind == Kind::kOptionalTensor && !(*a)->b);
}

absl::StatusOr<const RefValue*> RefCall::LookupRef(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return Invalid(absl::StrCat("value '", name, "' is not defined"));
  if (it->second.kind == RefValue::Kind::kUnavailable) {
    return Unsupported(absl::StrCat("value '", name, "' is not computed by the reference interpreter (",
                                    it->second.reason, ")"));
  }
  return &it->second;
}

absl::StatusOr<Tensor> RefCall::Input(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  if (a.kind != Kind::kTensor && !(a.kind == Kind::kOptionalTensor && a.b)) {
    return Invalid(absl::StrCat("argument '", name, "' is not a tensor"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(const RefValue* found, LookupRef(a.name));
  const RefValue& v = *found;
  if (v.kind != RefValue::Kind::kTensor) {
    return Invalid(absl::StrCat("value '", a.name, "' is not a tensor"));
  }
  return v.tensor;
}

absl::StatusOr<std::optional<Tensor>> RefCall::OptionalInput(absl::string_view name) const {
  if (!Has(name)) return std::optional<Tensor>();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Input(name));
  return std::optional<Tensor>(std::move(t));
}

absl::StatusOr<std::vector<Tensor>> RefCall::Inputs(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  if (a.kind != Kind::kTensors) return Invalid(absl::StrCat("argument '", name, "' is not a tensor list"));
  std::vector<Tensor> out;
  for (const std::string& n : a.names) {
    PT2ONNX_ASSIGN_OR_RETURN(const RefValue* found, LookupRef(n));
    const RefValue& v = *found;
    if (v.kind != RefValue::Kind::kTensor) return Invalid(absl::StrCat("value '", n, "' is not a tensor"));
    out.push_back(v.tensor);
  }
  return out;
}

absl::StatusOr<std::vector<std::optional<Tensor>>> RefCall::OptionalInputs(
    absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  std::vector<std::optional<std::string>> names;
  if (a.kind == Kind::kOptionalTensors) {
    names = a.optional_names;
  } else if (a.kind == Kind::kTensors) {
    names.assign(a.names.begin(), a.names.end());
  } else {
    return Invalid(absl::StrCat("argument '", name, "' is not a list of optional tensors"));
  }
  std::vector<std::optional<Tensor>> out;
  for (const std::optional<std::string>& n : names) {
    if (!n.has_value()) {
      out.emplace_back();
      continue;
    }
    PT2ONNX_ASSIGN_OR_RETURN(const RefValue* found, LookupRef(*n));
    const RefValue& v = *found;
    if (v.kind != RefValue::Kind::kTensor) return Invalid(absl::StrCat("value '", *n, "' is not a tensor"));
    out.emplace_back(v.tensor);
  }
  return out;
}

absl::StatusOr<RefValue> RefCall::ValueAt(size_t index) const {
  if (index >= node_.inputs.size()) return Invalid(absl::StrCat("operand ", index, " is missing"));
  absl::StatusOr<RefValue> v = ArgumentValue(values_, node_.inputs[index].arg);
  if (!v.ok()) return Invalid(absl::StrCat("operand ", index, ": ", v.status().message()));
  return v;
}

absl::StatusOr<RefScalar> RefCall::SymScalar(const pt2::SymArg& sym, DataType kind) const {
  RefScalar s;
  s.kind = kind;
  if (!sym.is_name) {
    s.i = kind == DataType::kBool ? sym.bool_value : sym.int_value;
    s.f = kind == DataType::kFloat ? sym.float_value : static_cast<double>(s.i);
    return s;
  }
  PT2ONNX_ASSIGN_OR_RETURN(const RefValue* found, LookupRef(sym.name));
  const RefValue& v = *found;
  switch (v.kind) {
    case RefValue::Kind::kInt: s.kind = DataType::kInt64; s.i = v.i; s.f = static_cast<double>(v.i); return s;
    case RefValue::Kind::kFloat: s.kind = DataType::kFloat; s.f = v.f; return s;
    case RefValue::Kind::kBool: s.kind = DataType::kBool; s.i = v.b; s.f = v.b; return s;
    default: return Invalid(absl::StrCat("value '", sym.name, "' is not a number"));
  }
}

absl::StatusOr<RefScalar> RefCall::ScalarOf(const Argument& a, absl::string_view what) const {
  RefScalar s;
  switch (a.kind) {
    case Kind::kInt: s.kind = DataType::kInt64; s.i = a.i; s.f = static_cast<double>(a.i); return s;
    case Kind::kFloat: s.kind = DataType::kFloat; s.f = a.f; return s;
    case Kind::kBool: s.kind = DataType::kBool; s.i = a.b; s.f = a.b; return s;
    case Kind::kSymInt: return SymScalar(a.sym, DataType::kInt64);
    case Kind::kSymFloat: return SymScalar(a.sym, DataType::kFloat);
    case Kind::kSymBool: return SymScalar(a.sym, DataType::kBool);
    case Kind::kTensor: {
      PT2ONNX_ASSIGN_OR_RETURN(const RefValue* found, LookupRef(a.name));
      const RefValue& v = *found;
      if (v.kind != RefValue::Kind::kTensor || v.tensor.numel() != 1) break;
      const DataType dt = v.tensor.dtype();
      if (IsFloatingPoint(dt)) {
        s.kind = DataType::kFloat;
        s.f = LoadDouble(v.tensor, 0);
      } else {
        s.kind = dt == DataType::kBool ? DataType::kBool : DataType::kInt64;
        s.i = LoadInt(v.tensor, 0);
        s.f = static_cast<double>(s.i);
      }
      return s;
    }
    default: break;
  }
  return Invalid(absl::StrCat("argument '", what, "' is not a number"));
}

absl::StatusOr<RefScalar> RefCall::Scalar(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  return ScalarOf(a, name);
}

absl::StatusOr<RefScalar> RefCall::ScalarAt(size_t index) const {
  if (index >= node_.inputs.size()) return Invalid(absl::StrCat("operand ", index, " is missing"));
  return ScalarOf(node_.inputs[index].arg, absl::StrCat("#", index));
}

absl::StatusOr<int64_t> RefCall::Int(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar s, Scalar(name));
  if (s.is_float()) return Invalid(absl::StrCat("argument '", name, "' is not an integer"));
  return s.i;
}

absl::StatusOr<std::optional<int64_t>> RefCall::OptionalInt(absl::string_view name) const {
  if (!Has(name)) return std::optional<int64_t>();
  PT2ONNX_ASSIGN_OR_RETURN(int64_t v, Int(name));
  return std::optional<int64_t>(v);
}

absl::StatusOr<std::vector<int64_t>> RefCall::Ints(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  switch (a.kind) {
    case Kind::kInts: return a.ints;
    case Kind::kInt: return std::vector<int64_t>{a.i};
    case Kind::kSymInts: {
      std::vector<int64_t> out;
      for (const pt2::SymArg& sym : a.syms) {
        PT2ONNX_ASSIGN_OR_RETURN(RefScalar s, SymScalar(sym, DataType::kInt64));
        out.push_back(s.i);
      }
      return out;
    }
    default: return Invalid(absl::StrCat("argument '", name, "' is not an integer list"));
  }
}

absl::StatusOr<double> RefCall::Double(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar s, Scalar(name));
  return s.AsDouble();
}

absl::StatusOr<std::optional<double>> RefCall::OptionalDouble(absl::string_view name) const {
  if (!Has(name)) return std::optional<double>();
  PT2ONNX_ASSIGN_OR_RETURN(double v, Double(name));
  return std::optional<double>(v);
}

absl::StatusOr<bool> RefCall::Bool(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar s, Scalar(name));
  return s.is_float() ? s.f != 0 : s.i != 0;
}

absl::StatusOr<std::string> RefCall::String(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  if (a.kind != Kind::kString) return Invalid(absl::StrCat("argument '", name, "' is not a string"));
  return a.s;
}

absl::StatusOr<std::optional<DataType>> RefCall::Dtype(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  if (a.kind == Kind::kNone) return std::optional<DataType>();
  if (a.kind != Kind::kScalarType) return Invalid(absl::StrCat("argument '", name, "' is not a dtype"));
  absl::StatusOr<DataType> dtype = FromTorchScalarType(a.i);
  if (!dtype.ok()) return Invalid(dtype.status().message());
  return std::optional<DataType>(*dtype);
}

absl::StatusOr<aten::ResultTypeOperand> RefCall::Operand(absl::string_view name) const {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, ArgRef(name));
  const Argument& a = *arg;
  aten::ResultTypeOperand op;
  if (a.kind == Kind::kTensor) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Input(name));
    op.kind = t.rank() == 0 ? aten::OperandKind::kZeroDimTensor : aten::OperandKind::kTensor;
    op.dtype = t.dtype();
    return op;
  }
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar s, Scalar(name));
  op.kind = aten::OperandKind::kScalar;
  op.dtype = s.kind;
  return op;
}

absl::StatusOr<DataType> RefCall::ResultType(const std::vector<absl::string_view>& names) const {
  std::vector<aten::ResultTypeOperand> ops;
  for (absl::string_view n : names) {
    PT2ONNX_ASSIGN_OR_RETURN(aten::ResultTypeOperand op, Operand(n));
    ops.push_back(op);
  }
  return aten::ResultType(ops);
}

DataType RefCall::OutputDtype(size_t i) const {
  if (i >= node_.outputs.size() || node_.outputs[i].kind != Kind::kTensor) return DataType::kUndefined;
  auto it = graph_.tensor_values.find(node_.outputs[i].name);
  return it == graph_.tensor_values.end() ? DataType::kUndefined : it->second.dtype;
}

const pt2::TensorMeta* RefCall::OutputMeta(size_t i) const {
  if (i >= node_.outputs.size() || node_.outputs[i].kind != Kind::kTensor) return nullptr;
  auto it = graph_.tensor_values.find(node_.outputs[i].name);
  return it == graph_.tensor_values.end() ? nullptr : &it->second;
}

absl::Status RefCall::SetTensor(Tensor t) { return Set(RefValue::OfTensor(std::move(t))); }

absl::Status RefCall::SetTensors(std::vector<Tensor> ts) {
  return Set(RefValue::OfTensors(std::move(ts)));
}

absl::Status RefCall::Set(RefValue v) {
  results_.push_back(std::move(v));
  return absl::OkStatus();
}

absl::Status RefCall::Invalid(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(key_, ": ", message));
}

absl::Status RefCall::Unsupported(absl::string_view message) const {
  return absl::UnimplementedError(absl::StrCat(key_, ": ", message));
}

}  // namespace pt2onnx::reference
