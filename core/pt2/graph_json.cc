#include "core/pt2/graph_json.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/pt2/argument_json.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2::internal {

// ---- graphs -----------------------------------------------------------------

namespace {

absl::Status ReadNode(const Value& v, const Path& nodes_path, size_t index,
                      int depth, Node* node) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, nodes_path.Index(index)));
  // Target and name first, so every later message can name the node.
  absl::string_view name;
  absl::string_view target;
  if (const Value* n = Member(v, "name"); n != nullptr && n->IsString()) {
    name = View(*n);
  }
  if (const Value* t = Member(v, "target"); t != nullptr && t->IsString()) {
    target = View(*t);
  }
  const Path path = nodes_path.AtNode(index, name, target);
  PT2ONNX_ASSIGN_OR_RETURN(const Value* t, Required(v, "target", path));
  PT2ONNX_ASSIGN_OR_RETURN(node->target, ReadString(*t, path.Field("target")));
  if (const Value* n = Member(v, "name")) {
    PT2ONNX_ASSIGN_OR_RETURN(node->name, ReadString(*n, path.Field("name")));
  }

  PT2ONNX_ASSIGN_OR_RETURN(const Value* inputs, Required(v, "inputs", path));
  const Path inputs_path = path.Field("inputs");
  if (!inputs->IsArray()) return TypeError(inputs_path, "an array", *inputs);
  node->inputs.resize(inputs->Size());
  for (rapidjson::SizeType i = 0; i < inputs->Size(); ++i) {
    const Value& in = (*inputs)[i];
    const Path in_path = inputs_path.Index(i);
    NamedArgument& na = node->inputs[i];
    PT2ONNX_RETURN_IF_ERROR(ExpectObject(in, in_path));
    if (const Value* n = Member(in, "name")) {
      PT2ONNX_ASSIGN_OR_RETURN(na.name, ReadString(*n, in_path.Field("name")));
    }
    PT2ONNX_ASSIGN_OR_RETURN(const Value* arg, Required(in, "arg", in_path));
    PT2ONNX_RETURN_IF_ERROR(
        ReadArgument(*arg, in_path.Field("arg"), depth, &na.arg));
    if (const Value* kind = Member(in, "kind")) {  // null in older files
      const Path kind_path = in_path.Field("kind");
      PT2ONNX_ASSIGN_OR_RETURN(int64_t k, ReadInt(*kind, kind_path));
      if (k < 0 || k > 2) {
        return Invalid(kind_path, absl::StrCat("unknown ArgumentKind ", k,
                                               " (file from a newer torch?)"));
      }
      na.kind = static_cast<ArgumentKind>(k);
    }
  }

  PT2ONNX_ASSIGN_OR_RETURN(const Value* outputs, Required(v, "outputs", path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadArgumentList(*outputs, path.Field("outputs"), depth, &node->outputs));
  if (const Value* metadata = Member(v, "metadata")) {
    PT2ONNX_RETURN_IF_ERROR(
        ReadStringMap(*metadata, path.Field("metadata"), &node->metadata));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadGraph(const Value& v, const Path& path, int depth, Graph* g) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* inputs, Required(v, "inputs", path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadArgumentList(*inputs, path.Field("inputs"), depth, &g->inputs));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* outputs, Required(v, "outputs", path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadArgumentList(*outputs, path.Field("outputs"), depth, &g->outputs));

  PT2ONNX_ASSIGN_OR_RETURN(const Value* nodes, Required(v, "nodes", path));
  const Path nodes_path = path.Field("nodes");
  if (!nodes->IsArray()) return TypeError(nodes_path, "an array", *nodes);
  g->nodes.resize(nodes->Size());
  for (rapidjson::SizeType i = 0; i < nodes->Size(); ++i) {
    PT2ONNX_RETURN_IF_ERROR(
        ReadNode((*nodes)[i], nodes_path, i, depth, &g->nodes[i]));
  }

  if (const Value* tv = Member(v, "tensor_values")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*tv, path.Field("tensor_values"),
                                    &g->tensor_values, ReadTensorMeta));
  }
  if (const Value* si = Member(v, "sym_int_values")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*si, path.Field("sym_int_values"),
                                    &g->sym_int_values, ReadSymInt));
  }
  if (const Value* sb = Member(v, "sym_bool_values")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*sb, path.Field("sym_bool_values"),
                                    &g->sym_bool_values, ReadSymBool));
  }
  if (const Value* sf = Member(v, "sym_float_values")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*sf, path.Field("sym_float_values"),
                                    &g->sym_float_values, ReadSymFloat));
  }
  if (const Value* single = Member(v, "is_single_tensor_return")) {
    PT2ONNX_ASSIGN_OR_RETURN(
        g->is_single_tensor_return,
        ReadBool(*single, path.Field("is_single_tensor_return")));
  }
  return absl::OkStatus();
}

// ---- graph signature --------------------------------------------------------

namespace {

// How a spec's "arg" member is encoded.
enum class SpecArg { kArgument, kTensor, kCustomObj, kConstant };

template <typename KindT>
struct SpecTag {
  absl::string_view tag;
  KindT kind;
  const char* target_key;  // member naming the state_dict/constant entry
  SpecArg arg;
};

using IKind = InputSpec::Kind;
constexpr SpecTag<IKind> kInputSpecTags[] = {
    {"user_input", IKind::kUserInput, nullptr, SpecArg::kArgument},
    {"parameter", IKind::kParameter, "parameter_name", SpecArg::kTensor},
    {"buffer", IKind::kBuffer, "buffer_name", SpecArg::kTensor},
    {"tensor_constant", IKind::kTensorConstant, "tensor_constant_name",
     SpecArg::kTensor},
    {"custom_obj", IKind::kCustomObj, "custom_obj_name", SpecArg::kCustomObj},
    {"token", IKind::kToken, nullptr, SpecArg::kTensor},
    {"constant_input", IKind::kConstantInput, "name", SpecArg::kConstant},
};

using OKind = OutputSpec::Kind;
constexpr SpecTag<OKind> kOutputSpecTags[] = {
    {"user_output", OKind::kUserOutput, nullptr, SpecArg::kArgument},
    {"loss_output", OKind::kLossOutput, nullptr, SpecArg::kTensor},
    {"buffer_mutation", OKind::kBufferMutation, "buffer_name",
     SpecArg::kTensor},
    {"parameter_mutation", OKind::kParameterMutation, "parameter_name",
     SpecArg::kTensor},
    {"gradient_to_parameter", OKind::kGradientToParameter, "parameter_name",
     SpecArg::kTensor},
    {"gradient_to_user_input", OKind::kGradientToUserInput, "user_input_name",
     SpecArg::kTensor},
    {"user_input_mutation", OKind::kUserInputMutation, "user_input_name",
     SpecArg::kTensor},
    {"token", OKind::kToken, nullptr, SpecArg::kTensor},
};

// Decodes one InputSpec or OutputSpec union into `spec` (InputSpec's
// `value` and `persistent` exist only there, hence the if constexpr).
template <typename SpecT, typename KindT, size_t N>
absl::Status ReadSpec(const Value& v, const Path& path,
                      absl::string_view union_name,
                      const SpecTag<KindT> (&tags)[N], SpecT* spec) {
  PT2ONNX_ASSIGN_OR_RETURN(UnionValue u, ReadUnion(v, path, union_name));
  const SpecTag<KindT>* entry = nullptr;
  for (const SpecTag<KindT>& t : tags) {
    if (t.tag == u.tag) entry = &t;
  }
  if (entry == nullptr) return UnknownTag(path, union_name, u.tag);
  spec->kind = entry->kind;
  const Value& x = *u.value;
  const Path p = path.Field(u.tag);
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(x, p));
  if (entry->target_key != nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(const Value* t, Required(x, entry->target_key, p));
    PT2ONNX_ASSIGN_OR_RETURN(spec->target,
                             ReadString(*t, p.Field(entry->target_key)));
  }
  if constexpr (std::is_same_v<SpecT, InputSpec>) {
    if (entry->arg == SpecArg::kConstant) {
      // The placeholder is graph.inputs[i]; the spec carries only its value.
      if (const Value* value = Member(x, "value")) {
        return ReadArgument(*value, p.Field("value"), 0, &spec->value,
                            "ConstantValue");
      }
      spec->value.kind = Argument::Kind::kNone;  // "value": null
      return absl::OkStatus();
    }
    if (const Value* persistent = Member(x, "persistent")) {
      PT2ONNX_ASSIGN_OR_RETURN(spec->persistent,
                               ReadBool(*persistent, p.Field("persistent")));
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(const Value* arg, Required(x, "arg", p));
  const Path arg_path = p.Field("arg");
  switch (entry->arg) {
    case SpecArg::kArgument:
      return ReadArgument(*arg, arg_path, 0, &spec->arg);
    case SpecArg::kTensor: {  // TensorArgument, or TokenArgument (also {name})
      spec->arg.kind = Argument::Kind::kTensor;
      PT2ONNX_ASSIGN_OR_RETURN(spec->arg.name, ReadTensorName(*arg, arg_path));
      return absl::OkStatus();
    }
    case SpecArg::kCustomObj:
      return ReadCustomObj(*arg, arg_path, &spec->arg);
    case SpecArg::kConstant:
      break;
  }
  return absl::OkStatus();
}

template <typename SpecT, typename KindT, size_t N>
absl::Status ReadSpecList(const Value& sig, const char* key, const Path& path,
                          absl::string_view union_name,
                          const SpecTag<KindT> (&tags)[N],
                          std::vector<SpecT>* out) {
  PT2ONNX_ASSIGN_OR_RETURN(const Value* list, Required(sig, key, path));
  const Path list_path = path.Field(key);
  if (!list->IsArray()) return TypeError(list_path, "an array", *list);
  out->resize(list->Size());
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    PT2ONNX_RETURN_IF_ERROR(ReadSpec((*list)[i], list_path.Index(i), union_name,
                                     tags, &(*out)[i]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadSignature(const Value& v, const Path& path,
                           GraphSignature* sig) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PT2ONNX_RETURN_IF_ERROR(ReadSpecList(v, "input_specs", path, "InputSpec",
                                       kInputSpecTags, &sig->input_specs));
  return ReadSpecList(v, "output_specs", path, "OutputSpec", kOutputSpecTags,
                      &sig->output_specs);
}

}  // namespace pt2onnx::pt2::internal
