#include "translate/program_checks.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"

namespace pt2onnx::translate {

absl::Status CheckNodeArguments(const pt2::Node& node, const std::string& key,
                                const aten::OpSchema* schema) {
  absl::flat_hash_set<std::string> seen;
  for (const pt2::NamedArgument& a : node.inputs) {
    // Higher-order ops' positional arguments are all named "".
    if (!a.name.empty() && !seen.insert(a.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node.name, "' (", key, "): argument '", a.name, "' is given twice"));
    }
    if (schema != nullptr && schema->FindArgument(a.name) == nullptr) {
      std::vector<std::string> names;
      for (const aten::SchemaArgument& s : schema->arguments) names.push_back(s.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node.name, "' (", key, "): unknown argument '", a.name,
          "' (the schema has: ", absl::StrJoin(names, ", "), ")"));
    }
  }
  if (schema == nullptr) return absl::OkStatus();
  for (const aten::SchemaArgument& s : schema->arguments) {
    // An omitted optional ("Tensor?") reads as None, as the translations expect.
    const bool optional = !s.type.empty() && s.type.back() == '?';
    if (!s.default_value.has_value() && !optional && !seen.contains(s.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node.name, "' (", key, "): required argument '", s.name, "' is missing"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckWeightAgainstGraph(const pt2::InputSpec& spec, const pt2::Weight& weight,
                                     const pt2::TensorMeta* meta) {
  if (meta == nullptr) return absl::OkStatus();
  bool same = meta->dtype == weight.dtype && meta->sizes.size() == weight.sizes.size();
  for (size_t d = 0; same && d < weight.sizes.size(); ++d) {
    same = meta->sizes[d].is_symbolic || meta->sizes[d].value == weight.sizes[d];
  }
  if (same) return absl::OkStatus();
  std::vector<std::string> graph_sizes;
  for (const pt2::SymInt& s : meta->sizes) {
    graph_sizes.push_back(s.is_symbolic ? s.expr : absl::StrCat(s.value));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "the stored tensor '", spec.target, "' is ", DataTypeName(weight.dtype), " [",
      absl::StrJoin(weight.sizes, ", "), "] but the graph declares '", spec.arg.name, "' as ",
      DataTypeName(meta->dtype), " [", absl::StrJoin(graph_sizes, ", "),
      "]; the .pt2 is inconsistent"));
}

}  // namespace pt2onnx::translate
