// File: translate/translate_context.cc
// -----------------------------------------------------------------------------
// TranslateContext: tensor inputs and their metadata, node emission, output
// binding and the commit of a translated node. The readers of non-tensor
// arguments (ints, scalars, dtypes ...) are in context_arguments.cc.
#include "translate/translate_context.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "translate/graph_builder.h"
#include "translate/registry.h"

namespace pt2onnx::translate {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

// The FX name an output Argument defines ("" when it defines none).
std::string OutputFxName(const Argument& out) {
  switch (out.kind) {
    case Kind::kTensor:
      return out.name;
    case Kind::kSymInt:
    case Kind::kSymFloat:
    case Kind::kSymBool:
      return out.sym.is_name ? out.sym.name : "";
    default:
      return "";
  }
}

}  // namespace

TranslateContext::TranslateContext(GraphBuilder& builder, const pt2::Node& node,
                                   const OpSchema* schema, int opset)
    : builder_(builder),
      node_(node),
      schema_(schema),
      opset_(opset),
      key_(TargetToKey(node.target)),
      first_node_(builder.graph().nodes.size()) {}

const pt2::NamedArgument* TranslateContext::FindNodeArg(absl::string_view arg) const {
  for (const pt2::NamedArgument& a : node_.inputs) {
    if (a.name == arg) return &a;
  }
  return nullptr;
}

bool TranslateContext::Has(absl::string_view arg) const {
  if (const pt2::NamedArgument* a = FindNodeArg(arg)) return a->arg.kind != Kind::kNone;
  if (schema_ == nullptr) return false;
  const SchemaArgument* s = schema_->FindArgument(arg);
  return s != nullptr && s->default_value.has_value() && s->default_value->kind != Kind::kNone;
}

absl::StatusOr<Argument> TranslateContext::Arg(absl::string_view arg) const {
  if (const pt2::NamedArgument* a = FindNodeArg(arg)) return a->arg;
  if (schema_ != nullptr) {
    const SchemaArgument* s = schema_->FindArgument(arg);
    if (s != nullptr && s->default_value.has_value()) return *s->default_value;
    if (s != nullptr) return Invalid(absl::StrCat("required argument '", arg, "' is missing"));
  }
  return Invalid(absl::StrCat("argument '", arg, "' is missing and its schema has no default"));
}

absl::StatusOr<std::string> TranslateContext::SymArgToTensor(const pt2::SymArg& sym) {
  if (sym.is_name) return builder_.Lookup(sym.name);
  return ConstantInt64(sym.int_value);
}

absl::StatusOr<std::string> TranslateContext::ArgumentToTensor(const Argument& arg,
                                                              absl::string_view arg_name) {
  switch (arg.kind) {
    case Kind::kTensor:
    case Kind::kOptionalTensor:
      return builder_.Lookup(arg.name);
    case Kind::kSymInt:
      return SymArgToTensor(arg.sym);
    case Kind::kSymFloat:
      if (arg.sym.is_name) return builder_.Lookup(arg.sym.name);
      return ConstantScalar(DataType::kFloat, arg.sym.float_value);
    case Kind::kSymBool:
      if (arg.sym.is_name) return builder_.Lookup(arg.sym.name);
      return ConstantScalar(DataType::kBool, arg.sym.bool_value ? 1 : 0);
    case Kind::kInt:
      return ConstantInt64(arg.i);
    case Kind::kFloat:
      return ConstantScalar(DataType::kFloat, arg.f);
    case Kind::kBool:
      return ConstantScalar(DataType::kBool, arg.b ? 1 : 0);
    default:
      return Invalid(absl::StrCat("argument '", arg_name, "' is not a tensor"));
  }
}

absl::StatusOr<std::string> TranslateContext::Input(absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  return ArgumentToTensor(a, arg);
}

absl::StatusOr<std::optional<std::string>> TranslateContext::OptionalInput(absl::string_view arg) {
  if (!Has(arg)) return std::optional<std::string>();
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, Input(arg));
  return std::optional<std::string>(std::move(value));
}

absl::StatusOr<std::vector<std::string>> TranslateContext::Inputs(absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> values, OptionalInputs(arg));
  std::vector<std::string> result;
  for (auto& v : values) {
    if (!v.has_value()) return Invalid(absl::StrCat("argument '", arg, "' holds a None tensor"));
    result.push_back(std::move(*v));
  }
  return result;
}

absl::StatusOr<std::vector<std::optional<std::string>>> TranslateContext::OptionalInputs(
    absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  std::vector<std::optional<std::string>> result;
  if (a.kind == Kind::kTensors) {
    for (const std::string& name : a.names) {
      PT2ONNX_ASSIGN_OR_RETURN(std::string v, builder_.Lookup(name));
      result.push_back(std::move(v));
    }
  } else if (a.kind == Kind::kOptionalTensors) {
    for (const auto& name : a.optional_names) {
      if (!name.has_value()) {
        result.push_back(std::nullopt);
        continue;
      }
      PT2ONNX_ASSIGN_OR_RETURN(std::string v, builder_.Lookup(*name));
      result.push_back(std::move(v));
    }
  } else if (a.kind != Kind::kNone) {
    return Invalid(absl::StrCat("argument '", arg, "' is not a list of tensors"));
  }
  return result;
}

absl::StatusOr<const pt2::TensorMeta*> TranslateContext::InputMeta(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  if (a.kind != Kind::kTensor && a.kind != Kind::kOptionalTensor) {
    return Invalid(absl::StrCat("argument '", arg, "' is not a tensor"));
  }
  const pt2::TensorMeta* meta = builder_.Meta(a.name);
  if (meta == nullptr) {
    return Invalid(absl::StrCat("tensor '", a.name, "' (argument '", arg,
                                "') has no type information in the program"));
  }
  return meta;
}

absl::StatusOr<DataType> TranslateContext::InputDtype(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, InputMeta(arg));
  return meta->dtype;
}

absl::StatusOr<int64_t> TranslateContext::InputRank(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, InputMeta(arg));
  return static_cast<int64_t>(meta->sizes.size());
}

const pt2::TensorMeta* TranslateContext::InputListMeta(absl::string_view arg, size_t j) const {
  absl::StatusOr<Argument> a = Arg(arg);
  if (!a.ok()) return nullptr;
  if (a->kind == Kind::kTensors && j < a->names.size()) return builder_.Meta(a->names[j]);
  if (a->kind == Kind::kOptionalTensors && j < a->optional_names.size() &&
      a->optional_names[j].has_value()) {
    return builder_.Meta(*a->optional_names[j]);
  }
  return nullptr;
}

const pt2::TensorMeta* TranslateContext::OutputMeta(int i) const {
  if (i < 0 || i >= num_outputs()) return nullptr;
  const Argument& out = node_.outputs[i];
  if (out.kind != Kind::kTensor) return nullptr;
  return builder_.Meta(out.name);
}

DataType TranslateContext::OutputDtype(int i) const {
  const pt2::TensorMeta* meta = OutputMeta(i);
  return meta == nullptr ? DataType::kUndefined : meta->dtype;
}

int64_t TranslateContext::OutputRank(int i) const {
  const pt2::TensorMeta* meta = OutputMeta(i);
  return meta == nullptr ? -1 : static_cast<int64_t>(meta->sizes.size());
}

const pt2::Graph& TranslateContext::fx_graph() const { return builder_.fx_graph(); }

absl::StatusOr<std::string> TranslateContext::ValueOf(absl::string_view fx_name) const {
  return builder_.Lookup(fx_name);
}

bool TranslateContext::OutputUsed(int i) const {
  if (i < 0 || i >= num_outputs()) return false;
  const Argument& out = node_.outputs[i];
  if (out.kind == Kind::kTensors) {
    for (const std::string& name : out.names) {
      if (builder_.UseCount(name) > 0) return true;
    }
    return false;
  }
  std::string fx_name = OutputFxName(out);
  return !fx_name.empty() && builder_.UseCount(fx_name) > 0;
}

std::vector<std::string> TranslateContext::AddNode(absl::string_view op_type,
                                                   std::vector<std::string> inputs,
                                                   std::vector<ir::Attribute> attributes,
                                                   int num_outputs, absl::string_view domain) {
  return builder_.AddNode(op_type, std::move(inputs), std::move(attributes), num_outputs, domain);
}

std::string TranslateContext::Op(absl::string_view op_type, std::vector<std::string> inputs,
                                 std::vector<ir::Attribute> attributes) {
  return AddNode(op_type, std::move(inputs), std::move(attributes), 1)[0];
}

std::string TranslateContext::Constant(ir::Tensor value) {
  return Op("Constant", {}, {ir::Attribute::TensorValue("value", std::move(value))});
}

std::string TranslateContext::ConstantInt64s(std::vector<int64_t> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return Constant(ir::Tensor::Int64s({n}, values));
}

std::string TranslateContext::ConstantInt64(int64_t value) {
  return Constant(ir::Tensor::Int64Scalar(value));
}

std::string TranslateContext::ConstantScalar(DataType dtype, double value) {
  return Constant(ir::Tensor::Scalar(dtype, value));
}

std::string TranslateContext::CastTo(const std::string& value, DataType from, DataType dtype) {
  if (from == dtype) return value;
  return Op("Cast", {value}, {ir::Attribute::Int("to", static_cast<int64_t>(dtype))});
}

absl::StatusOr<std::string> TranslateContext::InputAs(absl::string_view arg, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  if (a.kind != Kind::kTensor) return InputOrScalarAs(arg, dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, Input(arg));
  PT2ONNX_ASSIGN_OR_RETURN(DataType from, InputDtype(arg));
  return CastTo(value, from, dtype);
}

absl::StatusOr<std::string> TranslateContext::InputOrScalarAs(absl::string_view arg, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  switch (a.kind) {
    case Kind::kTensor:
      return InputAs(arg, dtype);
    case Kind::kInt:
      // Exact: an int64 beyond 2^53 does not survive a trip through double.
      if (dtype == DataType::kInt64) return ConstantInt64(a.i);
      return ConstantScalar(dtype, static_cast<double>(a.i));
    case Kind::kFloat:
      return ConstantScalar(dtype, a.f);
    case Kind::kBool:
      return ConstantScalar(dtype, a.b ? 1.0 : 0.0);
    case Kind::kSymInt:
    case Kind::kSymFloat:
    case Kind::kSymBool: {
      if (!a.sym.is_name) {
        double v = a.kind == Kind::kSymInt    ? static_cast<double>(a.sym.int_value)
                   : a.kind == Kind::kSymBool ? (a.sym.bool_value ? 1.0 : 0.0)
                                              : a.sym.float_value;
        return ConstantScalar(dtype, v);
      }
      PT2ONNX_ASSIGN_OR_RETURN(std::string value, builder_.Lookup(a.sym.name));
      DataType from = a.kind == Kind::kSymInt    ? DataType::kInt64
                      : a.kind == Kind::kSymBool ? DataType::kBool
                                                 : DataType::kFloat;
      return CastTo(value, from, dtype);
    }
    default:
      return Invalid(absl::StrCat("argument '", arg, "' is neither a tensor nor a scalar"));
  }
}

absl::Status TranslateContext::SetOutput(int i, const std::string& value) {
  if (i < 0 || i >= num_outputs()) {
    return absl::InternalError(absl::StrCat("node '", node_.name, "' (", key_,
                                            "): translation bound output ", i, " of ",
                                            num_outputs()));
  }
  std::string fx_name = OutputFxName(node_.outputs[i]);
  if (fx_name.empty()) return absl::OkStatus();  // None / constant output
  bindings_.push_back(Binding{std::move(fx_name), value, false});
  return absl::OkStatus();
}

absl::Status TranslateContext::SetListOutput(int i, const std::vector<std::string>& values) {
  if (i < 0 || i >= num_outputs()) {
    return absl::InternalError(absl::StrCat("node '", node_.name, "' (", key_,
                                            "): translation bound list output ", i));
  }
  const Argument& out = node_.outputs[i];
  if (out.kind != Kind::kTensors) return SetOutput(i, values.empty() ? "" : values[0]);
  if (out.names.size() != values.size()) {
    return absl::InternalError(absl::StrCat("node '", node_.name, "' (", key_, "): produced ",
                                            values.size(), " tensors, the program expects ",
                                            out.names.size()));
  }
  for (size_t j = 0; j < values.size(); ++j) {
    bindings_.push_back(Binding{out.names[j], values[j], false});
  }
  return absl::OkStatus();
}

absl::Status TranslateContext::SetInPlaceResult(absl::string_view mutated_arg,
                                                const std::string& value) {
  PT2ONNX_RETURN_IF_ERROR(SetOutput(0, value));
  const pt2::NamedArgument* a = FindNodeArg(mutated_arg);
  if (a != nullptr && a->arg.kind == Kind::kTensor) {
    bindings_.push_back(Binding{a->arg.name, value, true});
  }
  return absl::OkStatus();
}

absl::Status TranslateContext::RebindMutatedArgument(absl::string_view mutated_arg,
                                                     const std::string& value) {
  const pt2::NamedArgument* a = FindNodeArg(mutated_arg);
  if (a != nullptr && a->arg.kind == Kind::kTensor) {
    bindings_.push_back(Binding{a->arg.name, value, true});
  }
  return absl::OkStatus();
}

absl::Status TranslateContext::Commit() {
  ir::Graph& graph = builder_.graph();
  auto produced_here = [&](const std::string& value) {
    for (size_t i = first_node_; i < graph.nodes.size(); ++i) {
      for (const std::string& out : graph.nodes[i].outputs) {
        if (out == value) return true;
      }
    }
    return false;
  };
  absl::flat_hash_map<std::string, std::string> renamed;
  for (const Binding& b : bindings_) {
    if (b.alias) continue;
    if (b.value.empty()) {
      return absl::InternalError(absl::StrCat("node '", node_.name, "' (", key_,
                                              "): output '", b.fx_name, "' bound to no value"));
    }
    auto it = renamed.find(b.value);
    std::string source = it == renamed.end() ? b.value : it->second;
    std::string final_name;
    if (it == renamed.end() && produced_here(b.value)) {
      builder_.RenameProduced(first_node_, b.value, b.fx_name);
      renamed[b.value] = b.fx_name;
      final_name = b.fx_name;
    } else if (source == b.fx_name) {
      final_name = source;
    } else {
      // The value already exists under another name (an input, a weight, an
      // earlier result): an Identity gives this FX value its own ONNX name.
      std::string out = AddNode("Identity", {source}, {}, 1)[0];
      builder_.RenameProduced(first_node_, out, b.fx_name);
      final_name = b.fx_name;
    }
    builder_.Bind(b.fx_name, final_name);
  }
  for (const Binding& b : bindings_) {
    if (!b.alias) continue;
    auto it = renamed.find(b.value);
    builder_.Bind(b.fx_name, it == renamed.end() ? b.value : it->second);
  }
  return absl::OkStatus();
}

absl::Status TranslateContext::Unsupported(absl::string_view what) const {
  return absl::UnimplementedError(
      absl::StrCat("node '", node_.name, "' (", key_, "): ", what));
}

absl::Status TranslateContext::Invalid(absl::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrCat("node '", node_.name, "' (", key_, "): ", what));
}

}  // namespace pt2onnx::translate
