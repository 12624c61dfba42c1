// File: translate/unsupported_ops.cc
// -----------------------------------------------------------------------------
// The scan for operators without a translation (subgraphs included) and the
// one error that lists them all, with counts and the first node of each.
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "translate/context_wrappers.h"
#include "translate/fx_values.h"
#include "translate/translator.h"

namespace pt2onnx::translate {
namespace {

using Kind = pt2::Argument::Kind;

void CollectUnsupported(const pt2::Graph& graph, const OpRegistry& registry, int opset,
                        std::vector<UnsupportedOp>& found,
                        absl::flat_hash_map<std::string, size_t>& index) {
  for (const pt2::Node& node : graph.nodes) {
    std::string key = TargetToKey(node.target);
    if (registry.Find(key, opset) == nullptr && !IsContextWrapper(key)) {
      auto [it, inserted] = index.emplace(key, found.size());
      if (inserted) {
        std::vector<std::string> names = DefinedNames(node);
        found.push_back(UnsupportedOp{key, 0, node.name.empty() && !names.empty() ? names[0] : node.name});
      }
      ++found[it->second].count;
    }
    for (const pt2::NamedArgument& arg : node.inputs) {
      if (arg.arg.kind == Kind::kGraph && arg.arg.graph != nullptr) {
        CollectUnsupported(*arg.arg.graph, registry, opset, found, index);
      }
    }
  }
}

}  // namespace

std::vector<UnsupportedOp> FindUnsupportedOps(const pt2::Graph& graph, const OpRegistry& registry,
                                              int opset) {
  std::vector<UnsupportedOp> found;
  absl::flat_hash_map<std::string, size_t> index;
  CollectUnsupported(graph, registry, opset, found, index);
  return found;
}

absl::Status UnsupportedOpsError(const std::vector<UnsupportedOp>& ops, const OpRegistry& registry,
                                 int opset) {
  std::vector<std::string> lines;
  int total = 0;
  for (const UnsupportedOp& op : ops) {
    total += op.count;
    std::string note;
    if (registry.Contains(op.key)) note = absl::StrCat(" [not available at opset ", opset, "]");
    lines.push_back(absl::StrCat("  ", op.key, " x", op.count, " (first at node '",
                                 op.first_node, "')", note));
  }
  absl::Status status = absl::UnimplementedError(absl::StrCat(
      ops.size(), " operator(s) in this program have no ONNX translation (", total,
      " node(s)):\n", absl::StrJoin(lines, "\n"),
      "\nNo ONNX file was written. ", kUnsupportedOpsAdvice));
  std::vector<std::string> listed;
  for (const std::string& line : lines) listed.emplace_back(absl::StripLeadingAsciiWhitespace(line));
  status.SetPayload(kUnsupportedOpsPayload, absl::Cord(absl::StrJoin(listed, "\n")));
  return status;
}

}  // namespace pt2onnx::translate
