// File: translate/fx_values.cc
// -----------------------------------------------------------------------------
// See fx_values.h.
#include "translate/fx_values.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "core/pt2/sym_expr.h"

namespace pt2onnx::translate {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

void CountArgument(const Argument& arg, GraphBuilder::UseCounts& users) {
  if (arg.kind == Kind::kTensor || arg.kind == Kind::kOptionalTensor) ++users[arg.name];
  for (const std::string& n : arg.names) ++users[n];
  for (const auto& n : arg.optional_names) {
    if (n.has_value()) ++users[*n];
  }
  if (arg.sym.is_name) ++users[arg.sym.name];
  for (const pt2::SymArg& s : arg.syms) {
    if (s.is_name) ++users[s.name];
  }
}

bool IsIdentifierChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `expr` ("s36 + 1") with each symbol renamed by `names` ("past + 1"), so
// renaming a dim renames every expression built on it.
std::string RenameSymbols(const std::string& expr, const std::map<std::string, std::string>& names) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    if (!IsIdentifierChar(expr[i]) || absl::ascii_isdigit(static_cast<unsigned char>(expr[i]))) {
      out.push_back(expr[i++]);
      continue;
    }
    size_t end = i;
    while (end < expr.size() && IsIdentifierChar(expr[end])) ++end;
    const std::string token = expr.substr(i, end - i);
    auto it = names.find(token);
    out += it == names.end() ? token : it->second;
    i = end;
  }
  return out;
}

}  // namespace

ir::Dim ToDim(const pt2::SymInt& size, const TranslateOptions& options) {
  if (!size.is_symbolic) return ir::Dim::Static(size.value);
  std::string name = pt2::SymExprToString(size.expr);
  if (options.dim_names.empty()) return ir::Dim::Symbolic(name);
  // A name given for the whole expression ("2*s27=2*seq") wins.
  auto it = options.dim_names.find(name);
  return ir::Dim::Symbolic(it != options.dim_names.end() ? it->second : RenameSymbols(name, options.dim_names));
}

ir::ValueInfo ValueInfoFromMeta(std::string name, const pt2::TensorMeta& meta,
                                const TranslateOptions& options) {
  ir::ValueInfo info;
  info.name = std::move(name);
  info.dtype = meta.dtype;
  std::vector<ir::Dim> dims;
  for (const pt2::SymInt& s : meta.sizes) dims.push_back(ToDim(s, options));
  info.shape = std::move(dims);
  return info;
}

ir::ValueInfo ScalarInfo(std::string name, DataType dtype) {
  ir::ValueInfo info;
  info.name = std::move(name);
  info.dtype = dtype;
  info.shape = std::vector<ir::Dim>{};
  return info;
}

std::vector<std::string> DefinedNames(const pt2::Node& node) {
  std::vector<std::string> names;
  for (const Argument& out : node.outputs) {
    if (out.kind == Kind::kTensor) names.push_back(out.name);
    if (out.kind == Kind::kTensors) names.insert(names.end(), out.names.begin(), out.names.end());
    if ((out.kind == Kind::kSymInt || out.kind == Kind::kSymFloat || out.kind == Kind::kSymBool) &&
        out.sym.is_name) {
      names.push_back(out.sym.name);
    }
  }
  return names;
}

GraphBuilder::UseCounts CountUsers(const pt2::Graph& graph) {
  GraphBuilder::UseCounts users;
  for (const pt2::Node& node : graph.nodes) {
    for (const pt2::NamedArgument& a : node.inputs) CountArgument(a.arg, users);
  }
  for (const Argument& out : graph.outputs) CountArgument(out, users);
  return users;
}

ir::ValueInfo ComplexAsReal(ir::ValueInfo info) {
  if (!IsComplex(info.dtype)) return info;
  info.dtype = info.dtype == DataType::kComplex64 ? DataType::kFloat : DataType::kDouble;
  if (info.shape) info.shape->push_back(ir::Dim::Static(2));
  return info;
}

ir::ValueInfo ComplexOutputAsReal(ir::ValueInfo info) {
  if (!IsComplex(info.dtype)) return info;
  const std::string complex(DataTypeName(info.dtype));
  info = ComplexAsReal(std::move(info));
  info.metadata.emplace_back(kComplexOutputKey, complex);
  return info;
}

void AddIntermediateValueInfo(GraphBuilder& builder, const TranslateOptions& options) {
  ir::Graph& graph = builder.graph();
  absl::flat_hash_set<std::string> skip;
  for (const ir::ValueInfo& v : graph.inputs) skip.insert(v.name);
  for (const ir::ValueInfo& v : graph.outputs) skip.insert(v.name);
  for (const ir::Node& node : graph.nodes) {
    for (const std::string& out : node.outputs) {
      if (skip.contains(out) || graph.value_info.count(out)) continue;
      const pt2::TensorMeta* meta = builder.Meta(out);
      if (meta == nullptr) continue;
      graph.value_info[out] = ComplexAsReal(ValueInfoFromMeta(out, *meta, options));
    }
  }
}

}  // namespace pt2onnx::translate
