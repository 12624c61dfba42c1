#include "translate/metadata.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/pt2/sym_expr.h"
#include "core/pt2/symbol_order.h"

namespace pt2onnx::translate {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

// Splits at `sep` outside brackets: module paths may hold "[0]" and commas.
std::vector<std::string> SplitOutsideBrackets(absl::string_view text, char sep) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == sep && depth == 0) {
      parts.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.emplace_back(text.substr(start));
  return parts;
}

std::string PythonFloat(double v) {
  std::string s = absl::StrCat(v);
  if (s.find_first_of(".eE") == std::string::npos && s.find("inf") == std::string::npos &&
      s.find("nan") == std::string::npos) {
    absl::StrAppend(&s, ".0");
  }
  return s;
}

std::string SymRepr(const pt2::SymArg& s, Kind kind) {
  if (s.is_name) return absl::StrCat("%", s.name);
  if (kind == Kind::kSymFloat || kind == Kind::kSymFloats) return PythonFloat(s.float_value);
  if (kind == Kind::kSymBool || kind == Kind::kSymBools) return s.bool_value ? "True" : "False";
  return absl::StrCat(s.int_value);
}

std::string ArgRepr(const Argument& a) {
  switch (a.kind) {
    case Kind::kNone: return "None";
    case Kind::kTensor:
    case Kind::kOptionalTensor: return absl::StrCat("%", a.name);
    case Kind::kTensors: {
      std::vector<std::string> items;
      for (const auto& n : a.names) items.push_back(absl::StrCat("%", n));
      return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    }
    case Kind::kOptionalTensors: {
      std::vector<std::string> items;
      for (const auto& n : a.optional_names) items.push_back(n ? absl::StrCat("%", *n) : "None");
      return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    }
    case Kind::kInt: return absl::StrCat(a.i);
    case Kind::kInts: return absl::StrCat("[", absl::StrJoin(a.ints, ", "), "]");
    case Kind::kFloat: return PythonFloat(a.f);
    case Kind::kFloats: {
      std::vector<std::string> items;
      for (double f : a.floats) items.push_back(PythonFloat(f));
      return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    }
    case Kind::kBool: return a.b ? "True" : "False";
    case Kind::kString: return absl::StrCat("'", a.s, "'");
    case Kind::kSymInt:
    case Kind::kSymFloat:
    case Kind::kSymBool: return SymRepr(a.sym, a.kind);
    case Kind::kSymInts:
    case Kind::kSymFloats:
    case Kind::kSymBools: {
      std::vector<std::string> items;
      for (const auto& s : a.syms) items.push_back(SymRepr(s, a.kind));
      return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    }
    case Kind::kScalarType: {
      absl::StatusOr<DataType> dtype = FromTorchScalarType(a.i);
      return dtype.ok() ? absl::StrCat("torch.", DataTypeName(*dtype)) : absl::StrCat(a.i);
    }
    case Kind::kDevice:
      return a.device.index ? absl::StrCat(a.device.type, ":", *a.device.index) : a.device.type;
    case Kind::kGraph: return absl::StrCat("%", a.s);
    default: return "...";
  }
}

std::string FxNodeRepr(const pt2::Node& node, const absl::flat_hash_map<std::string, int>& users) {
  std::vector<std::string> args;
  std::vector<std::string> kwargs;
  for (const pt2::NamedArgument& a : node.inputs) {
    if (a.kind == pt2::ArgumentKind::kKeyword) {
      kwargs.push_back(absl::StrCat(a.name, ": ", ArgRepr(a.arg)));
    } else {
      args.push_back(ArgRepr(a.arg));
    }
  }
  auto it = users.find(node.name);
  int num_users = it == users.end() ? 0 : it->second;
  std::string args_text = absl::StrJoin(args, ", ");
  if (args.size() == 1) absl::StrAppend(&args_text, ",");
  absl::string_view target = node.target;
  return absl::StrCat("%", node.name, " : [num_users=", num_users, "] = call_function[target=",
                      target, "](args = (", args_text, "), kwargs = {",
                      absl::StrJoin(kwargs, ", "), "})");
}

std::string PythonStr(absl::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

}  // namespace

std::string PythonListRepr(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& s : items) quoted.push_back(PythonStr(s));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

ir::Metadata NodeMetadata::AsProps() const {
  return {
      {"namespace", name_space},
      {"pkg.torch.onnx.class_hierarchy", PythonListRepr(class_hierarchy)},
      {"pkg.torch.onnx.fx_node", fx_node},
      {"pkg.torch.onnx.name_scopes", PythonListRepr(name_scopes)},
      {"pkg.torch.onnx.stack_trace", stack_trace},
  };
}

NodeMetadata BuildNodeMetadata(const pt2::Node& node,
                               const absl::flat_hash_map<std::string, int>& users) {
  NodeMetadata meta;
  std::vector<std::string> namespaces;
  auto stack = node.metadata.find("nn_module_stack");
  if (stack != node.metadata.end() && !stack->second.empty()) {
    for (const std::string& item : SplitOutsideBrackets(stack->second, ';')) {
      // key,path,type — the path may itself contain commas inside brackets.
      std::vector<std::string> fields = SplitOutsideBrackets(item, ',');
      if (fields.size() < 3) continue;
      const std::string& type = fields.back();
      std::string path = absl::StrJoin(fields.begin() + 1, fields.end() - 1, ",");
      meta.name_scopes.push_back(path);
      meta.class_hierarchy.push_back(type);
      // The root module's path is empty: torch.onnx still writes ": <type>".
      namespaces.push_back(absl::StrCat(path, ": ", type));
    }
  }
  std::string target(absl::StripPrefix(node.target, "torch.ops."));
  meta.name_scopes.push_back(node.name);
  meta.class_hierarchy.push_back(target);
  namespaces.push_back(absl::StrCat(node.name, ": ", target));
  meta.name_space = absl::StrJoin(namespaces, "/");
  meta.fx_node = FxNodeRepr(node, users);
  auto trace = node.metadata.find("stack_trace");
  if (trace != node.metadata.end()) meta.stack_trace = trace->second;
  return meta;
}

ir::Metadata GraphMetadata(const pt2::ExportedProgram& program) {
  std::vector<std::string> lines = {"# inputs"};
  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    std::string name = spec.arg.kind == Kind::kTensor ? spec.arg.name
                       : spec.arg.sym.is_name        ? spec.arg.sym.name
                                                     : spec.target;
    std::string line = absl::StrCat(name, ": ", pt2::InputKindName(spec.kind));
    if (!spec.target.empty() && spec.kind != pt2::InputSpec::Kind::kUserInput) {
      absl::StrAppend(&line, " target='", spec.target, "'");
    }
    if (spec.kind == pt2::InputSpec::Kind::kBuffer) {
      absl::StrAppend(&line, " persistent=", spec.persistent ? "True" : "False");
    }
    lines.push_back(line);
  }
  lines.push_back("");
  lines.push_back("# outputs");
  for (const pt2::OutputSpec& spec : program.signature.output_specs) {
    std::string name = spec.arg.kind == Kind::kTensor ? spec.arg.name
                       : spec.arg.sym.is_name        ? spec.arg.sym.name
                                                     : "";
    std::string line = absl::StrCat(name, ": ", pt2::OutputKindName(spec.kind));
    if (!spec.target.empty()) absl::StrAppend(&line, " target='", spec.target, "'");
    lines.push_back(line);
  }
  std::vector<std::string> ranges;
  for (const std::string& symbol : pt2::RangeConstraintSymbols(program)) {
    const pt2::RangeConstraint& range = program.range_constraints.at(symbol);
    ranges.push_back(absl::StrCat(
        symbol, ": VR[", range.min_val ? absl::StrCat(*range.min_val) : "-int_oo", ", ",
        range.max_val ? absl::StrCat(*range.max_val) : "int_oo", "]"));
  }
  return {
      // str(ExportGraphSignature) opens and closes with a newline.
      {"pkg.torch.export.ExportedProgram.graph_signature", absl::StrCat("\n", absl::StrJoin(lines, "\n"), "\n")},
      {"pkg.torch.export.ExportedProgram.range_constraints",
       absl::StrCat("{", absl::StrJoin(ranges, ", "), "}")},
  };
}

}  // namespace pt2onnx::translate
