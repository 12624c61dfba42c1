#include "core/pt2/argument_json.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/pt2/graph_json.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2::internal {
namespace {

// Subgraphs and as_string_to_argument nest; real programs stay in single
// digits. The cap bounds our own recursion on crafted input.
constexpr int kMaxNesting = 64;

// ---- symbolic values --------------------------------------------------------

enum class SymType { kInt, kBool, kFloat };

absl::string_view SymUnionName(SymType t) {
  return t == SymType::kInt    ? "SymInt"
         : t == SymType::kBool ? "SymBool"
                               : "SymFloat";
}
absl::string_view SymArgUnionName(SymType t) {
  return t == SymType::kInt    ? "SymIntArgument"
         : t == SymType::kBool ? "SymBoolArgument"
                               : "SymFloatArgument";
}
absl::string_view SymConstTag(SymType t) {
  return t == SymType::kInt    ? "as_int"
         : t == SymType::kBool ? "as_bool"
                               : "as_float";
}

// Stores a concrete SymInt/SymBool/SymFloat value (bools as 0/1 in `value`).
absl::Status ReadSymConstant(const Value& v, const Path& path, SymType t,
                             SymInt* out) {
  switch (t) {
    case SymType::kInt: {
      PT2ONNX_ASSIGN_OR_RETURN(out->value, ReadInt(v, path));
      break;
    }
    case SymType::kBool: {
      PT2ONNX_ASSIGN_OR_RETURN(bool b, ReadBool(v, path));
      out->value = b ? 1 : 0;
      break;
    }
    case SymType::kFloat: {
      PT2ONNX_ASSIGN_OR_RETURN(out->float_value, ReadFloat(v, path));
      break;
    }
  }
  return absl::OkStatus();
}

// SymExprHint: {"as_int": n} | {"as_bool": b} | {"as_float": f}; a bare
// number is tolerated for hand-written or pre-8 files.
absl::Status ReadHint(const Value& v, const Path& path, SymInt* out) {
  out->has_hint = true;
  if (v.IsNumber()) {
    if (v.IsInt64()) return ReadSymConstant(v, path, SymType::kInt, out);
    return ReadSymConstant(v, path, SymType::kFloat, out);
  }
  PT2ONNX_ASSIGN_OR_RETURN(UnionValue u, ReadUnion(v, path, "SymExprHint"));
  for (SymType t : {SymType::kInt, SymType::kBool, SymType::kFloat}) {
    if (u.tag == SymConstTag(t)) {
      return ReadSymConstant(*u.value, path.Field(u.tag), t, out);
    }
  }
  return UnknownTag(path, "SymExprHint", u.tag);
}

// SymInt / SymBool / SymFloat: {"as_int": n} or {"as_expr": {"expr_str": s,
// "hint": SymExprHint|null}}. Very old files write sizes as bare numbers.
absl::StatusOr<SymInt> ReadSymValue(const Value& v, const Path& path,
                                    SymType t) {
  SymInt out;
  if (!v.IsObject()) {
    PT2ONNX_RETURN_IF_ERROR(ReadSymConstant(v, path, t, &out));
    return out;
  }
  PT2ONNX_ASSIGN_OR_RETURN(UnionValue u, ReadUnion(v, path, SymUnionName(t)));
  const Path tag_path = path.Field(u.tag);
  if (u.tag == SymConstTag(t)) {
    PT2ONNX_RETURN_IF_ERROR(ReadSymConstant(*u.value, tag_path, t, &out));
    return out;
  }
  if (u.tag != "as_expr") return UnknownTag(path, SymUnionName(t), u.tag);
  out.is_symbolic = true;
  if (u.value->IsString()) {  // pre-SymExpr files: the expression alone
    out.expr = std::string(View(*u.value));
    return out;
  }
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(*u.value, tag_path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* expr,
                           Required(*u.value, "expr_str", tag_path));
  PT2ONNX_ASSIGN_OR_RETURN(out.expr,
                           ReadString(*expr, tag_path.Field("expr_str")));
  if (const Value* hint = Member(*u.value, "hint")) {
    PT2ONNX_RETURN_IF_ERROR(ReadHint(*hint, tag_path.Field("hint"), &out));
  }
  return out;
}

}  // namespace

absl::StatusOr<SymInt> ReadSymInt(const Value& v, const Path& path) {
  return ReadSymValue(v, path, SymType::kInt);
}
absl::StatusOr<SymInt> ReadSymBool(const Value& v, const Path& path) {
  return ReadSymValue(v, path, SymType::kBool);
}
absl::StatusOr<SymInt> ReadSymFloat(const Value& v, const Path& path) {
  return ReadSymValue(v, path, SymType::kFloat);
}

namespace {

// Sym*Argument: {"as_name": value_name} or a constant {"as_int": n} /
// {"as_bool": b} / {"as_float": f}.
absl::StatusOr<SymArg> ReadSymArg(const Value& v, const Path& path, SymType t) {
  PT2ONNX_ASSIGN_OR_RETURN(UnionValue u,
                           ReadUnion(v, path, SymArgUnionName(t)));
  const Path tag_path = path.Field(u.tag);
  SymArg out;
  if (u.tag == "as_name") {
    out.is_name = true;
    PT2ONNX_ASSIGN_OR_RETURN(out.name, ReadString(*u.value, tag_path));
    return out;
  }
  if (u.tag != SymConstTag(t)) {
    return UnknownTag(path, SymArgUnionName(t), u.tag);
  }
  switch (t) {
    case SymType::kInt: {
      PT2ONNX_ASSIGN_OR_RETURN(out.int_value, ReadInt(*u.value, tag_path));
      break;
    }
    case SymType::kBool: {
      PT2ONNX_ASSIGN_OR_RETURN(out.bool_value, ReadBool(*u.value, tag_path));
      break;
    }
    case SymType::kFloat: {
      PT2ONNX_ASSIGN_OR_RETURN(out.float_value, ReadFloat(*u.value, tag_path));
      break;
    }
  }
  return out;
}

}  // namespace

// ---- tensors (TensorMeta and Device: tensor_meta_json.cc) --------------------

absl::StatusOr<std::string> ReadTensorName(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* name, Required(v, "name", path));
  return ReadString(*name, path.Field("name"));
}

namespace {

// OptionalTensorArgument: {"as_tensor": {"name"}} | {"as_none": true}.
absl::StatusOr<std::optional<std::string>> ReadOptionalTensor(
    const Value& v, const Path& path) {
  PT2ONNX_ASSIGN_OR_RETURN(UnionValue u,
                           ReadUnion(v, path, "OptionalTensorArgument"));
  if (u.tag == "as_none") return std::optional<std::string>();
  if (u.tag != "as_tensor") {
    return UnknownTag(path, "OptionalTensorArgument", u.tag);
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string name,
                           ReadTensorName(*u.value, path.Field(u.tag)));
  return std::optional<std::string>(std::move(name));
}

}  // namespace

absl::Status ReadCustomObj(const Value& v, const Path& path, Argument* out) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  out->kind = Argument::Kind::kCustomObj;
  PT2ONNX_ASSIGN_OR_RETURN(const Value* name, Required(v, "name", path));
  PT2ONNX_ASSIGN_OR_RETURN(out->name, ReadString(*name, path.Field("name")));
  if (const Value* fqn = Member(v, "class_fqn")) {
    PT2ONNX_ASSIGN_OR_RETURN(out->s, ReadString(*fqn, path.Field("class_fqn")));
  }
  return absl::OkStatus();
}

// ---- arguments --------------------------------------------------------------

namespace {

struct ArgumentTag {
  absl::string_view tag;
  Argument::Kind kind;
};

// schema.py `Argument`, in declaration order (pt2-format.md 3.7).
constexpr ArgumentTag kArgumentTags[] = {
    {"as_none", Argument::Kind::kNone},
    {"as_tensor", Argument::Kind::kTensor},
    {"as_tensors", Argument::Kind::kTensors},
    {"as_int", Argument::Kind::kInt},
    {"as_ints", Argument::Kind::kInts},
    {"as_float", Argument::Kind::kFloat},
    {"as_floats", Argument::Kind::kFloats},
    {"as_string", Argument::Kind::kString},
    {"as_strings", Argument::Kind::kStrings},
    {"as_sym_int", Argument::Kind::kSymInt},
    {"as_sym_ints", Argument::Kind::kSymInts},
    {"as_scalar_type", Argument::Kind::kScalarType},
    {"as_memory_format", Argument::Kind::kMemoryFormat},
    {"as_layout", Argument::Kind::kLayout},
    {"as_device", Argument::Kind::kDevice},
    {"as_bool", Argument::Kind::kBool},
    {"as_bools", Argument::Kind::kBools},
    {"as_sym_bool", Argument::Kind::kSymBool},
    {"as_sym_bools", Argument::Kind::kSymBools},
    {"as_graph", Argument::Kind::kGraph},
    {"as_optional_tensors", Argument::Kind::kOptionalTensors},
    {"as_custom_obj", Argument::Kind::kCustomObj},
    {"as_operator", Argument::Kind::kOperator},
    {"as_sym_float", Argument::Kind::kSymFloat},
    {"as_sym_floats", Argument::Kind::kSymFloats},
    {"as_optional_tensor", Argument::Kind::kOptionalTensor},
    {"as_complex", Argument::Kind::kComplex},
    {"as_nested_tensors", Argument::Kind::kNestedTensors},
    {"as_int_lists", Argument::Kind::kIntLists},
    {"as_string_to_argument", Argument::Kind::kStringToArgument},
    {"as_float_lists", Argument::Kind::kFloatLists},
};

auto SymArgReader(SymType t) {
  return [t](const Value& v, const Path& path) {
    return ReadSymArg(v, path, t);
  };
}

}  // namespace

absl::Status ReadArgument(const Value& v, const Path& path, int depth,
                          Argument* out, absl::string_view union_name) {
  PT2ONNX_ASSIGN_OR_RETURN(UnionValue u, ReadUnion(v, path, union_name));
  const ArgumentTag* entry = nullptr;
  for (const ArgumentTag& t : kArgumentTags) {
    if (t.tag == u.tag) {
      entry = &t;
      break;
    }
  }
  if (entry == nullptr) return UnknownTag(path, union_name, u.tag);
  out->kind = entry->kind;
  const Value& x = *u.value;
  const Path p = path.Field(u.tag);
  using K = Argument::Kind;
  switch (entry->kind) {
    case K::kNone:  // true in current files, [] for the old Tuple[()] type
      return absl::OkStatus();
    case K::kTensor: {
        PT2ONNX_ASSIGN_OR_RETURN(out->name, ReadTensorName(x, p));
        return absl::OkStatus();
    }
    case K::kTensors:
      return ReadList(x, p, &out->names, ReadTensorName);
    case K::kInt:
    case K::kScalarType:
    case K::kMemoryFormat:
    case K::kLayout: {
        PT2ONNX_ASSIGN_OR_RETURN(out->i, ReadInt(x, p));
        return absl::OkStatus();
    }
    case K::kInts:
      return ReadList(x, p, &out->ints, ReadInt);
    case K::kFloat: {
        PT2ONNX_ASSIGN_OR_RETURN(out->f, ReadFloat(x, p));
        return absl::OkStatus();
    }
    case K::kFloats:
      return ReadList(x, p, &out->floats, ReadFloat);
    case K::kString:
    case K::kOperator: {
        PT2ONNX_ASSIGN_OR_RETURN(out->s, ReadString(x, p));
        return absl::OkStatus();
    }
    case K::kStrings:
      return ReadList(x, p, &out->strings, ReadString);
    case K::kSymInt: {
        PT2ONNX_ASSIGN_OR_RETURN(out->sym, ReadSymArg(x, p, SymType::kInt));
        return absl::OkStatus();
    }
    case K::kSymInts:
      return ReadList(x, p, &out->syms, SymArgReader(SymType::kInt));
    case K::kSymBool: {
        PT2ONNX_ASSIGN_OR_RETURN(out->sym, ReadSymArg(x, p, SymType::kBool));
        return absl::OkStatus();
    }
    case K::kSymBools:
      return ReadList(x, p, &out->syms, SymArgReader(SymType::kBool));
    case K::kSymFloat: {
        PT2ONNX_ASSIGN_OR_RETURN(out->sym, ReadSymArg(x, p, SymType::kFloat));
        return absl::OkStatus();
    }
    case K::kSymFloats:
      return ReadList(x, p, &out->syms, SymArgReader(SymType::kFloat));
    case K::kDevice: {
        PT2ONNX_ASSIGN_OR_RETURN(out->device, ReadDevice(x, p));
        return absl::OkStatus();
    }
    case K::kBool: {
        PT2ONNX_ASSIGN_OR_RETURN(out->b, ReadBool(x, p));
        return absl::OkStatus();
    }
    case K::kBools:
      return ReadList(x, p, &out->bools, ReadBool);
    case K::kGraph: {
      if (depth >= kMaxNesting) {
        return Invalid(p, absl::StrCat("subgraphs nested deeper than ",
                                       kMaxNesting));
      }
      PT2ONNX_RETURN_IF_ERROR(ExpectObject(x, p));
      PT2ONNX_ASSIGN_OR_RETURN(const Value* name, Required(x, "name", p));
      PT2ONNX_ASSIGN_OR_RETURN(out->s, ReadString(*name, p.Field("name")));
      PT2ONNX_ASSIGN_OR_RETURN(const Value* graph, Required(x, "graph", p));
      auto sub = std::make_shared<Graph>();
      PT2ONNX_RETURN_IF_ERROR(ReadGraph(*graph, p.Field("graph"), depth + 1,
                                        sub.get()));
      out->graph = std::move(sub);
      return absl::OkStatus();
    }
    case K::kOptionalTensors:
      return ReadList(x, p, &out->optional_names, ReadOptionalTensor);
    case K::kOptionalTensor: {
      PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> name,
                               ReadOptionalTensor(x, p));
      out->b = name.has_value();
      if (name.has_value()) out->name = *std::move(name);
      return absl::OkStatus();
    }
    case K::kCustomObj:
      return ReadCustomObj(x, p, out);
    case K::kComplex: {
      PT2ONNX_RETURN_IF_ERROR(ExpectObject(x, p));
      PT2ONNX_ASSIGN_OR_RETURN(const Value* re, Required(x, "real", p));
      PT2ONNX_ASSIGN_OR_RETURN(const Value* im, Required(x, "imag", p));
      PT2ONNX_ASSIGN_OR_RETURN(double real, ReadFloat(*re, p.Field("real")));
      PT2ONNX_ASSIGN_OR_RETURN(double imag, ReadFloat(*im, p.Field("imag")));
      out->floats = {real, imag};
      return absl::OkStatus();
    }
    case K::kIntLists:
      return ReadList(x, p, &out->int_lists, ListReader<int64_t>(ReadInt));
    case K::kFloatLists:
      return ReadList(x, p, &out->float_lists, ListReader<double>(ReadFloat));
    case K::kNestedTensors:
      return ReadList(x, p, &out->nested_names,
                      ListReader<std::string>(ReadTensorName));
    case K::kStringToArgument: {
      if (depth >= kMaxNesting) {
        return Invalid(p, absl::StrCat("arguments nested deeper than ",
                                       kMaxNesting));
      }
      PT2ONNX_RETURN_IF_ERROR(ExpectObject(x, p));
      out->named.reserve(x.MemberCount());
      for (const auto& m : x.GetObject()) {
        Argument item;
        PT2ONNX_RETURN_IF_ERROR(
            ReadArgument(m.value, p.Key(View(m.name)), depth + 1, &item));
        out->named.emplace_back(std::string(View(m.name)), std::move(item));
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}


absl::Status ReadArgumentList(const Value& v, const Path& path, int depth,
                              std::vector<Argument>* out) {
  if (!v.IsArray()) return TypeError(path, "an array", v);
  out->resize(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    PT2ONNX_RETURN_IF_ERROR(
        ReadArgument(v[i], path.Index(i), depth, &(*out)[i]));
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::pt2::internal
