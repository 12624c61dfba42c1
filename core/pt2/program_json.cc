// Decoder for torch.export's JSON (docs/pt2-format.md section 3).
//
// Shape: RapidJSON builds a pool-allocated DOM (no string copies of the
// input as a whole, freed in one go on return), then one Read* function per
// schema type walks it. Error paths are built lazily: each Read* function
// receives a `Path` that links to its caller's on the stack, and a string is
// rendered only when an error is reported, so the success path allocates
// nothing for diagnostics.
#include "core/pt2/program_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace pt2onnx::pt2 {
namespace {

using rapidjson::Value;

// Iterative parsing keeps deeply nested (possibly hostile) input off the
// call stack, which is small in wasm. Full precision so that e.g. 1e-05
// reads as the same double Python wrote; floats are rare in these files.
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag |
                                 rapidjson::kParseNanAndInfFlag |
                                 rapidjson::kParseFullPrecisionFlag;

// Subgraphs and as_string_to_argument nest; real programs stay in single
// digits. The cap bounds our own recursion on crafted input.
constexpr int kMaxNesting = 64;

constexpr int64_t kStridedLayout = 7;  // serialized Layout.Strided

// A JSON path as a chain of stack frames: each Read* function passes
// `path.Field("x")` / `path.Index(i)` down. A Path refers to its parent, so a
// derived Path must not outlive the one it came from: pass derived paths as
// call arguments or keep them in locals, never chain-and-store
// (`Path p = a.Field("x").Field("y")` dangles).
class Path {
 public:
  Path() = default;  // the document root

  Path Field(absl::string_view name) const {
    Path p(this);
    p.field_ = name;
    return p;
  }
  Path Index(size_t i) const {
    Path p(this);
    p.index_ = i;
    p.has_index_ = true;
    return p;
  }
  Path Key(absl::string_view key) const {
    Path p(this);
    p.field_ = key;
    p.is_key_ = true;
    return p;
  }
  // nodes[i] of a graph, remembered with the node's FX name and target so
  // messages can say which node (views must outlive the Path; they point
  // into the DOM).
  Path AtNode(size_t i, absl::string_view name,
              absl::string_view target) const {
    Path p = Index(i);
    p.node_name_ = name;
    p.node_target_ = target;
    p.is_node_ = true;
    return p;
  }

  // "node 'add' (torch.ops.aten.add.Tensor) at graph_module.graph.nodes[3]"
  // for paths inside a node (the innermost node), else just the path.
  std::string Describe() const {
    std::vector<const Path*> chain;
    for (const Path* p = this; p != nullptr; p = p->parent_) chain.push_back(p);
    std::string out;
    const Path* node = nullptr;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Path& p = **it;
      if (p.parent_ == nullptr) continue;  // root
      if (p.is_key_) {
        absl::StrAppend(&out, "['", p.field_, "']");
      } else if (p.has_index_) {
        absl::StrAppend(&out, "[", p.index_, "]");
      } else {
        absl::StrAppend(&out, out.empty() ? "" : ".", p.field_);
      }
      if (p.is_node_ && !p.node_target_.empty()) node = &p;
    }
    if (out.empty()) out = "JSON top level";
    if (node == nullptr) return out;
    std::string who = node->node_name_.empty()
                          ? absl::StrCat("node ", node->node_target_)
                          : absl::StrCat("node '", node->node_name_, "' (",
                                         node->node_target_, ")");
    return absl::StrCat(who, " at ", out);
  }

 private:
  explicit Path(const Path* parent) : parent_(parent) {}

  const Path* parent_ = nullptr;
  absl::string_view field_;
  size_t index_ = 0;
  bool has_index_ = false;
  bool is_key_ = false;
  bool is_node_ = false;
  absl::string_view node_name_;
  absl::string_view node_target_;
};

// ---- errors -----------------------------------------------------------------

absl::Status Invalid(const Path& path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path.Describe(), ": ", what));
}

// Prefixes a status produced elsewhere (e.g. FromTorchScalarType) with the
// path, keeping its code.
absl::Status AtPath(const Path& path, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(path.Describe(), ": ", status.message()));
}

absl::string_view View(const Value& v) {
  return absl::string_view(v.GetString(), v.GetStringLength());
}

// "string 'abc'", "number 1.5", "array", ... for type errors.
std::string DescribeValue(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
      return "false";
    case rapidjson::kTrueType:
      return "true";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType: {
      absl::string_view s = View(v);
      if (s.size() > 40) {
        return absl::StrCat("string '", s.substr(0, 40), "...'");
      }
      return absl::StrCat("string '", s, "'");
    }
    case rapidjson::kNumberType:
      if (v.IsInt64()) return absl::StrCat("number ", v.GetInt64());
      if (v.IsUint64()) return absl::StrCat("number ", v.GetUint64());
      return absl::StrCat("number ", v.GetDouble());
  }
  return "a value";
}

absl::Status TypeError(const Path& path, absl::string_view expected,
                       const Value& got) {
  return Invalid(path, absl::StrCat("expected ", expected, ", got ",
                                    DescribeValue(got)));
}

absl::Status UnknownTag(const Path& path, absl::string_view union_name,
                        absl::string_view tag) {
  return Invalid(path, absl::StrCat("unknown ", union_name, " tag '", tag,
                                    "' (file from a newer torch?)"));
}

absl::Status ParseError(absl::string_view what, absl::string_view json,
                        rapidjson::ParseErrorCode code, size_t offset) {
  // A short excerpt helps find the spot in a one-line multi-MB file.
  size_t begin = offset > 16 ? offset - 16 : 0;
  std::string excerpt(json.substr(std::min(begin, json.size()), 32));
  for (char& c : excerpt) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": malformed JSON at offset ", offset, ": ",
      rapidjson::GetParseError_En(code), " (near '", excerpt, "')"));
}

// ---- JSON primitives --------------------------------------------------------

// The member, or nullptr when absent or null (null = Python None = default).
const Value* Member(const Value& obj, const char* key) {
  Value::ConstMemberIterator it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

absl::StatusOr<const Value*> Required(const Value& obj, const char* key,
                                      const Path& path) {
  const Value* v = Member(obj, key);
  if (v == nullptr) {
    return Invalid(path, absl::StrCat("missing required field '", key, "'"));
  }
  return v;
}

absl::Status ExpectObject(const Value& v, const Path& path) {
  if (!v.IsObject()) return TypeError(path, "an object", v);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadInt(const Value& v, const Path& path) {
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsUint64()) {
    return Invalid(path, absl::StrCat("integer ", v.GetUint64(),
                                      " does not fit int64"));
  }
  if (v.IsDouble() && std::isfinite(v.GetDouble()) &&
      v.GetDouble() == std::floor(v.GetDouble()) &&
      std::fabs(v.GetDouble()) >= 9223372036854775808.0) {  // 2^63
    return Invalid(path, absl::StrCat("integer ", v.GetDouble(),
                                      " does not fit int64"));
  }
  return TypeError(path, "an integer", v);
}

// Python's float is written as a JSON number, or as "Infinity"/"-Infinity"
// (allow_nan=False); "NaN" is what the C++ serializer accepts too.
absl::StatusOr<double> ReadFloat(const Value& v, const Path& path) {
  if (v.IsNumber()) return v.GetDouble();
  if (v.IsString()) {
    absl::string_view s = View(v);
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  return TypeError(path, "a float", v);
}

absl::StatusOr<bool> ReadBool(const Value& v, const Path& path) {
  if (v.IsBool()) return v.GetBool();
  return TypeError(path, "a bool", v);
}

absl::StatusOr<std::string> ReadString(const Value& v, const Path& path) {
  if (v.IsString()) return std::string(View(v));
  return TypeError(path, "a string", v);
}

template <typename T, typename ReadFn>
absl::Status ReadList(const Value& v, const Path& path, std::vector<T>* out,
                      ReadFn read) {
  if (!v.IsArray()) return TypeError(path, "an array", v);
  out->clear();
  out->reserve(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    auto item = read(v[i], path.Index(i));
    if (!item.ok()) return item.status();
    out->push_back(*std::move(item));
  }
  return absl::OkStatus();
}

// Reads a JSON object {key: T} into a std::map (a repeated key: last wins,
// as with Python's json.loads).
template <typename T, typename ReadFn>
absl::Status ReadMap(const Value& v, const Path& path,
                     std::map<std::string, T>* out, ReadFn read) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  for (const auto& m : v.GetObject()) {
    absl::string_view key = View(m.name);
    auto item = read(m.value, path.Key(key));
    if (!item.ok()) return item.status();
    (*out)[std::string(key)] = *std::move(item);
  }
  return absl::OkStatus();
}

// ---- unions -----------------------------------------------------------------

struct UnionValue {
  absl::string_view tag;
  const Value* value = nullptr;
};

// Accepts the single-key form {"tag": value} (torch >= 2.3), the all-members
// form with unset members null (<= 2.2: the unique non-null member wins), and
// the {"$type", "$value"} form of 2024 development builds.
absl::StatusOr<UnionValue> ReadUnion(const Value& v, const Path& path,
                                     absl::string_view union_name) {
  if (!v.IsObject()) {
    return TypeError(
        path, absl::StrCat(union_name, " union (a single-key object)"), v);
  }
  if (v.MemberCount() == 1) {
    const auto& m = *v.MemberBegin();
    return UnionValue{View(m.name), &m.value};
  }
  const Value* type = Member(v, "$type");
  const Value* value = Member(v, "$value");
  if (type != nullptr && type->IsString() && value != nullptr) {
    return UnionValue{View(*type), value};
  }
  UnionValue found;
  for (const auto& m : v.GetObject()) {
    if (m.value.IsNull()) continue;
    if (found.value != nullptr) {
      return Invalid(path, absl::StrCat(union_name,
                                        " union has several members set ('",
                                        found.tag, "', '", View(m.name), "')"));
    }
    found = UnionValue{View(m.name), &m.value};
  }
  if (found.value == nullptr) {
    return Invalid(path, absl::StrCat(union_name, " union has no member set"));
  }
  return found;
}

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

absl::StatusOr<SymInt> ReadSymInt(const Value& v, const Path& path) {
  return ReadSymValue(v, path, SymType::kInt);
}
absl::StatusOr<SymInt> ReadSymBool(const Value& v, const Path& path) {
  return ReadSymValue(v, path, SymType::kBool);
}
absl::StatusOr<SymInt> ReadSymFloat(const Value& v, const Path& path) {
  return ReadSymValue(v, path, SymType::kFloat);
}

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

// ---- tensors ----------------------------------------------------------------

absl::StatusOr<Device> ReadDevice(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  Device d;
  PT2ONNX_ASSIGN_OR_RETURN(const Value* type, Required(v, "type", path));
  PT2ONNX_ASSIGN_OR_RETURN(d.type, ReadString(*type, path.Field("type")));
  if (const Value* index = Member(v, "index")) {
    PT2ONNX_ASSIGN_OR_RETURN(d.index, ReadInt(*index, path.Field("index")));
  }
  return d;
}

absl::string_view LayoutName(int64_t code) {
  static constexpr absl::string_view kNames[] = {
      "Unknown", "SparseCoo", "SparseCsr", "SparseCsc",
      "SparseBsr", "SparseBsc", "_mkldnn"};
  if (code >= 0 && code < 7) return kNames[code];
  return "unknown";
}

absl::StatusOr<TensorMeta> ReadTensorMeta(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  TensorMeta m;
  {
    const Path p = path.Field("dtype");
    PT2ONNX_ASSIGN_OR_RETURN(const Value* dtype, Required(v, "dtype", path));
    PT2ONNX_ASSIGN_OR_RETURN(int64_t code, ReadInt(*dtype, p));
    absl::StatusOr<DataType> dt = FromTorchScalarType(code);
    if (!dt.ok()) return AtPath(p, dt.status());
    m.dtype = *dt;
  }
  PT2ONNX_ASSIGN_OR_RETURN(const Value* sizes, Required(v, "sizes", path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadList(*sizes, path.Field("sizes"), &m.sizes, ReadSymInt));
  if (const Value* strides = Member(v, "strides")) {
    PT2ONNX_RETURN_IF_ERROR(
        ReadList(*strides, path.Field("strides"), &m.strides, ReadSymInt));
  }
  if (const Value* offset = Member(v, "storage_offset")) {
    PT2ONNX_ASSIGN_OR_RETURN(m.storage_offset,
                             ReadSymInt(*offset, path.Field("storage_offset")));
  }
  if (const Value* rg = Member(v, "requires_grad")) {
    PT2ONNX_ASSIGN_OR_RETURN(m.requires_grad,
                             ReadBool(*rg, path.Field("requires_grad")));
  }
  if (const Value* device = Member(v, "device")) {
    PT2ONNX_ASSIGN_OR_RETURN(m.device,
                             ReadDevice(*device, path.Field("device")));
  }
  if (const Value* layout = Member(v, "layout")) {
    const Path p = path.Field("layout");
    PT2ONNX_ASSIGN_OR_RETURN(int64_t code, ReadInt(*layout, p));
    if (code != kStridedLayout) {
      return AtPath(p, absl::UnimplementedError(absl::StrCat(
                           "layout ", LayoutName(code), " (", code,
                           "): sparse/mkldnn tensors are not supported; "
                           "convert to a dense tensor before export")));
    }
  }
  return m;
}

// TensorArgument / TokenArgument: {"name": value_name}.
absl::StatusOr<std::string> ReadTensorName(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* name, Required(v, "name", path));
  return ReadString(*name, path.Field("name"));
}

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

absl::Status ReadGraph(const Value& v, const Path& path, int depth, Graph* g);

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

template <typename T, typename ReadFn>
auto ListReader(ReadFn read) {
  return [read](const Value& v,
                const Path& path) -> absl::StatusOr<std::vector<T>> {
    std::vector<T> out;
    PT2ONNX_RETURN_IF_ERROR(ReadList(v, path, &out, read));
    return out;
  };
}

auto SymArgReader(SymType t) {
  return [t](const Value& v, const Path& path) {
    return ReadSymArg(v, path, t);
  };
}

// Decodes an Argument union (or a ConstantValue, whose tags are a subset;
// `union_name` only changes messages). `depth` counts enclosing subgraphs and
// string_to_argument maps.
absl::Status ReadArgument(const Value& v, const Path& path, int depth,
                          Argument* out,
                          absl::string_view union_name = "Argument") {
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

// ---- graphs -----------------------------------------------------------------

absl::Status ReadStringMap(const Value& v, const Path& path,
                           std::map<std::string, std::string>* out) {
  return ReadMap(v, path, out, ReadString);
}

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

absl::Status ReadSignature(const Value& v, const Path& path,
                           GraphSignature* sig) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PT2ONNX_RETURN_IF_ERROR(ReadSpecList(v, "input_specs", path, "InputSpec",
                                       kInputSpecTags, &sig->input_specs));
  return ReadSpecList(v, "output_specs", path, "OutputSpec", kOutputSpecTags,
                      &sig->output_specs);
}

// ---- exported program -------------------------------------------------------

// module_call_graph: [{fqn, signature|null}]; only the root (fqn "") matters
// for the user-facing pytree of inputs and outputs.
absl::Status ReadModuleCallGraph(const Value& v, const Path& path,
                                 ExportedProgram* ep) {
  if (!v.IsArray()) return TypeError(path, "an array", v);
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    const Path entry_path = path.Index(i);
    PT2ONNX_RETURN_IF_ERROR(ExpectObject(v[i], entry_path));
    const Value* fqn = Member(v[i], "fqn");
    if (fqn == nullptr || !fqn->IsString() || fqn->GetStringLength() != 0) {
      continue;
    }
    const Value* sig = Member(v[i], "signature");
    if (sig == nullptr) return absl::OkStatus();
    const Path sig_path = entry_path.Field("signature");
    PT2ONNX_RETURN_IF_ERROR(ExpectObject(*sig, sig_path));
    if (const Value* s = Member(*sig, "in_spec")) {
      PT2ONNX_ASSIGN_OR_RETURN(ep->in_spec,
                               ReadString(*s, sig_path.Field("in_spec")));
    }
    if (const Value* s = Member(*sig, "out_spec")) {
      PT2ONNX_ASSIGN_OR_RETURN(ep->out_spec,
                               ReadString(*s, sig_path.Field("out_spec")));
    }
    if (const Value* names = Member(*sig, "forward_arg_names")) {
      PT2ONNX_RETURN_IF_ERROR(
          ReadList(*names, sig_path.Field("forward_arg_names"),
                   &ep->forward_arg_names, ReadString));
    }
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

// A range bound: an int, null (unbounded, current files), or +-infinity as a
// float or "Infinity" string (pre-2.4 files).
absl::StatusOr<std::optional<int64_t>> ReadBound(const Value* v,
                                                 const Path& path) {
  if (v == nullptr) return std::optional<int64_t>();
  if (v->IsString() || (v->IsDouble() && std::isinf(v->GetDouble()))) {
    PT2ONNX_ASSIGN_OR_RETURN(double d, ReadFloat(*v, path));
    if (std::isinf(d)) return std::optional<int64_t>();
    return TypeError(path, "an integer or +-Infinity", *v);
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, ReadInt(*v, path));
  return std::optional<int64_t>(n);
}

absl::StatusOr<RangeConstraint> ReadRange(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  RangeConstraint r;
  PT2ONNX_ASSIGN_OR_RETURN(
      r.min_val, ReadBound(Member(v, "min_val"), path.Field("min_val")));
  PT2ONNX_ASSIGN_OR_RETURN(
      r.max_val, ReadBound(Member(v, "max_val"), path.Field("max_val")));
  return r;
}

// schema_version is {major, minor}; schema-1 files wrote a bare int.
absl::StatusOr<std::pair<int64_t, int64_t>> ReadVersion(const Value& v,
                                                        const Path& path) {
  if (v.IsNumber()) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t major, ReadInt(v, path));
    return std::make_pair(major, int64_t{0});
  }
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* major, Required(v, "major", path));
  std::pair<int64_t, int64_t> out(0, 0);
  PT2ONNX_ASSIGN_OR_RETURN(out.first, ReadInt(*major, path.Field("major")));
  if (const Value* minor = Member(v, "minor")) {
    PT2ONNX_ASSIGN_OR_RETURN(out.second, ReadInt(*minor, path.Field("minor")));
  }
  return out;
}

absl::Status CheckSchemaMajor(int64_t major, int64_t minor) {
  if (major == 8) return absl::OkStatus();
  if (major < 8) {
    return absl::FailedPreconditionError(absl::StrCat(
        "schema_version: the program was written by an older torch (schema ",
        major, ".", minor, ", torch <= 2.5); re-export with torch >= 2.6"));
  }
  return absl::UnimplementedError(absl::StrCat(
      "schema_version: the program uses a newer schema (", major, ".", minor,
      ") than this converter reads (8.x); export with an older torch or "
      "update pt2onnx"));
}

absl::Status ParseDocument(absl::string_view json, absl::string_view what,
                           rapidjson::Document* doc) {
  doc->Parse<kParseFlags>(json.data(), json.size());
  if (doc->HasParseError()) {
    return ParseError(what, json, doc->GetParseError(), doc->GetErrorOffset());
  }
  return absl::OkStatus();
}

// Pool chunks sized to the input: few mallocs for a tens-of-MB program, no
// big reservation for a 200-byte config.
size_t PoolChunkSize(size_t json_size) {
  return std::clamp<size_t>(json_size / 4, size_t{64} << 10, size_t{4} << 20);
}

absl::Status ReadProgram(const Value& root, ExportedProgram* ep) {
  const Path path;
  PT2ONNX_ASSIGN_OR_RETURN(const Value* gm,
                           Required(root, "graph_module", path));
  const Path gm_path = path.Field("graph_module");
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(*gm, gm_path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* graph, Required(*gm, "graph", gm_path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadGraph(*graph, gm_path.Field("graph"), 0, &ep->graph));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* sig,
                           Required(*gm, "signature", gm_path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadSignature(*sig, gm_path.Field("signature"), &ep->signature));
  if (const Value* metadata = Member(*gm, "metadata")) {
    PT2ONNX_RETURN_IF_ERROR(ReadStringMap(*metadata, gm_path.Field("metadata"),
                                          &ep->module_metadata));
  }
  if (const Value* mcg = Member(*gm, "module_call_graph")) {
    PT2ONNX_RETURN_IF_ERROR(
        ReadModuleCallGraph(*mcg, gm_path.Field("module_call_graph"), ep));
  }
  if (const Value* opset = Member(root, "opset_version")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*opset, path.Field("opset_version"),
                                    &ep->opset_version, ReadInt));
  }
  if (const Value* ranges = Member(root, "range_constraints")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*ranges, path.Field("range_constraints"),
                                    &ep->range_constraints, ReadRange));
  }
  if (const Value* tv = Member(root, "torch_version")) {
    PT2ONNX_ASSIGN_OR_RETURN(ep->torch_version,
                             ReadString(*tv, path.Field("torch_version")));
  }
  return absl::OkStatus();
}

// Finds the value of the top-level key "schema_version" by tracking only
// string boundaries and bracket depth (memchr over string bodies), which is
// several times faster than even a SAX parse: torch writes schema_version
// after graph_module, i.e. after nearly all of the text. Returns the offset of
// the value, or npos. Does not validate the JSON.
size_t FindTopLevelSchemaVersion(absl::string_view json) {
  const char* const begin = json.data();
  const char* const end = begin + json.size();
  int depth = 0;
  for (const char* p = begin; p < end; ++p) {
    const char c = *p;
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == '"') {
      const char* body = p + 1;
      const char* q = body;
      while (true) {  // the closing quote: one preceded by even backslashes
        q = static_cast<const char*>(std::memchr(q, '"', end - q));
        if (q == nullptr) return absl::string_view::npos;
        size_t backslashes = 0;
        while (q - backslashes > body && q[-1 - backslashes] == '\\') {
          ++backslashes;
        }
        if (backslashes % 2 == 0) break;
        ++q;
      }
      p = q;
      if (depth != 1 || absl::string_view(body, q - body) != "schema_version") {
        continue;
      }
      const char* colon = q + 1;
      while (colon < end && (*colon == ' ' || *colon == '\n' ||
                             *colon == '\t' || *colon == '\r')) {
        ++colon;
      }
      if (colon < end && *colon == ':') return colon + 1 - begin;
    }
  }
  return absl::string_view::npos;
}

absl::StatusOr<PayloadMeta> ReadPayloadMeta(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PayloadMeta meta;
  PT2ONNX_ASSIGN_OR_RETURN(const Value* name, Required(v, "path_name", path));
  PT2ONNX_ASSIGN_OR_RETURN(meta.path_name,
                           ReadString(*name, path.Field("path_name")));
  if (const Value* p = Member(v, "is_param")) {
    PT2ONNX_ASSIGN_OR_RETURN(meta.is_param,
                             ReadBool(*p, path.Field("is_param")));
  }
  if (const Value* p = Member(v, "use_pickle")) {
    PT2ONNX_ASSIGN_OR_RETURN(meta.use_pickle,
                             ReadBool(*p, path.Field("use_pickle")));
  }
  if (const Value* tm = Member(v, "tensor_meta")) {
    PT2ONNX_ASSIGN_OR_RETURN(meta.tensor_meta,
                             ReadTensorMeta(*tm, path.Field("tensor_meta")));
  }
  return meta;
}

}  // namespace

absl::StatusOr<ExportedProgram> ParseExportedProgramJson(
    absl::string_view json) {
  // Declared before the document so it is destroyed after it.
  rapidjson::MemoryPoolAllocator<> pool(PoolChunkSize(json.size()));
  rapidjson::Document doc(&pool);
  PT2ONNX_RETURN_IF_ERROR(ParseDocument(json, "program JSON", &doc));
  const Path root;
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(doc, root));
  const Value* version = Member(doc, "schema_version");
  if (version == nullptr) {
    return Invalid(root, "missing 'schema_version' (not a torch.export "
                         "program JSON?)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(auto major_minor,
                           ReadVersion(*version, root.Field("schema_version")));
  PT2ONNX_RETURN_IF_ERROR(
      CheckSchemaMajor(major_minor.first, major_minor.second));
  ExportedProgram ep;
  ep.schema_major = major_minor.first;
  ep.schema_minor = major_minor.second;
  PT2ONNX_RETURN_IF_ERROR(ReadProgram(doc, &ep));
  return ep;
}

absl::StatusOr<std::pair<int64_t, int64_t>> ParseSchemaVersion(
    absl::string_view json) {
  const Path root;
  const size_t at = FindTopLevelSchemaVersion(json);
  if (at == absl::string_view::npos) {
    // Say what is wrong with the text if it is not JSON at all (slow path).
    rapidjson::MemoryStream stream(json.data(), json.size());
    rapidjson::BaseReaderHandler<> ignore;
    rapidjson::Reader reader;
    rapidjson::ParseResult result = reader.Parse<kParseFlags>(stream, ignore);
    if (result.IsError()) {
      return ParseError("program JSON", json, result.Code(), result.Offset());
    }
    return Invalid(root, "missing 'schema_version' (not a torch.export "
                         "program JSON?)");
  }
  // Parse just the value ({"major": 8, "minor": 20}, or a bare int).
  absl::string_view rest = json.substr(at);
  rapidjson::Document doc;
  doc.Parse<kParseFlags | rapidjson::kParseStopWhenDoneFlag>(rest.data(),
                                                             rest.size());
  if (doc.HasParseError()) {
    return ParseError("program JSON", json, doc.GetParseError(),
                      at + doc.GetErrorOffset());
  }
  return ReadVersion(doc, root.Field("schema_version"));
}

absl::StatusOr<std::vector<std::pair<std::string, PayloadMeta>>>
ParsePayloadConfig(absl::string_view json) {
  rapidjson::MemoryPoolAllocator<> pool(PoolChunkSize(json.size()));
  rapidjson::Document doc(&pool);
  PT2ONNX_RETURN_IF_ERROR(ParseDocument(json, "payload config JSON", &doc));
  const Path root;
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(doc, root));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* config, Required(doc, "config", root));
  const Path config_path = root.Field("config");
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(*config, config_path));
  std::vector<std::pair<std::string, PayloadMeta>> out;
  out.reserve(config->MemberCount());
  for (const auto& m : config->GetObject()) {
    absl::string_view fqn = View(m.name);
    PT2ONNX_ASSIGN_OR_RETURN(PayloadMeta meta,
                             ReadPayloadMeta(m.value, config_path.Key(fqn)));
    out.emplace_back(std::string(fqn), std::move(meta));
  }
  return out;
}

}  // namespace pt2onnx::pt2
