#include "translate/renames.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pt2/symbol_order.h"

namespace pt2onnx::translate {

absl::Status CheckDimNames(const pt2::ExportedProgram& program,
                           const std::map<std::string, std::string>& dim_names) {
  if (dim_names.empty()) return absl::OkStatus();
  // Listed in input order, so the first one named is the first input's.
  const std::vector<std::string> symbols = pt2::DimNamesInInputOrder(program);
  for (const auto& [from, to] : dim_names) {
    if (std::find(symbols.begin(), symbols.end(), from) == symbols.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot rename dimension '", from, "': the program has no such symbolic dimension (",
          symbols.empty() ? "it has only static shapes"
                          : absl::StrCat("it has: ", absl::StrJoin(symbols, ", ")),
          ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNameCount(const std::vector<std::string>& names, size_t count,
                            absl::string_view what) {
  if (names.size() <= count) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(names.size(), " ", what, " names were given (",
                                                 absl::StrJoin(names, ", "), ") but the graph has ",
                                                 count, " ", what, count == 1 ? "" : "s"));
}

absl::Status ApplyRenames(const std::map<std::string, std::string>& renames, ir::Graph& graph) {
  if (renames.empty()) return absl::OkStatus();
  absl::flat_hash_set<std::string> defined;
  for (const ir::ValueInfo& v : graph.inputs) defined.insert(v.name);
  for (const ir::Initializer& init : graph.initializers) defined.insert(init.name);
  for (const ir::Node& node : graph.nodes) defined.insert(node.outputs.begin(), node.outputs.end());
  absl::flat_hash_set<std::string> targets;
  for (const auto& [from, to] : renames) {
    if (!targets.insert(to).second) {
      return absl::InvalidArgumentError(absl::StrCat("name '", to, "' is given twice"));
    }
    if (from != to && defined.contains(to) && !renames.count(to)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot rename '", from, "' to '", to, "': the graph already has a value of that "
          "name (a weight or an intermediate result); choose another name"));
    }
  }
  auto rename = [&](std::string& name) {
    auto it = renames.find(name);
    if (it != renames.end()) name = it->second;
  };
  for (ir::ValueInfo& v : graph.inputs) rename(v.name);
  for (ir::ValueInfo& v : graph.outputs) rename(v.name);
  for (ir::Node& node : graph.nodes) {
    for (std::string& in : node.inputs) rename(in);
    for (std::string& out : node.outputs) rename(out);
  }
  std::map<std::string, ir::ValueInfo> value_info;
  for (auto& [name, info] : graph.value_info) {
    std::string key = name;
    rename(key);
    info.name = key;
    value_info[key] = std::move(info);
  }
  graph.value_info = std::move(value_info);
  return absl::OkStatus();
}

}  // namespace pt2onnx::translate
