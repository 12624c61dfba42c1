// The loop that runs stages of passes, with statistics and verification.
#include "passes/pass_manager.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_util.h"

namespace pt2onnx::passes {
namespace {

// Nodes keyed by op type and outputs (unique in a valid graph), so a node
// whose inputs a pass rewired still counts as the same node.
using NodeCensus = absl::flat_hash_map<std::string, int64_t>;

void CountNodes(const ir::Graph& graph, NodeCensus& census) {
  for (const ir::Node& node : graph.nodes) {
    ++census[absl::StrCat(node.domain, "::", node.op_type, "|", absl::StrJoin(node.outputs, ","))];
    for (const ir::Attribute& attr : node.attributes) {
      if (attr.type() == ir::Attribute::Type::kGraph) CountNodes(attr.g(), census);
    }
  }
}

// Main-graph initializers by name and byte size: what the page tells apart from the weights of the .pt2.
using InitializerCensus = absl::flat_hash_map<std::string, uint64_t>;

InitializerCensus CountInitializers(const ir::Graph& graph) {
  InitializerCensus census;
  for (const ir::Initializer& init : graph.initializers) census[init.name] = init.tensor.byte_size();
  return census;
}

void Difference(const InitializerCensus& before, const InitializerCensus& after, uint64_t& removed,
                uint64_t& added) {
  for (const auto& [name, bytes] : before) {
    auto it = after.find(name);
    if (it == after.end() || it->second != bytes) removed += bytes;
  }
  for (const auto& [name, bytes] : after) {
    auto it = before.find(name);
    if (it == before.end() || it->second != bytes) added += bytes;
  }
}

void Difference(const NodeCensus& before, const NodeCensus& after, int64_t& removed, int64_t& added) {
  for (const auto& [key, count] : before) {
    auto it = after.find(key);
    int64_t kept = it == after.end() ? 0 : it->second;
    if (count > kept) removed += count - kept;
  }
  for (const auto& [key, count] : after) {
    auto it = before.find(key);
    int64_t had = it == before.end() ? 0 : it->second;
    if (count > had) added += count - had;
  }
}

}  // namespace

absl::Status RunPipeline(const Pipeline& pipeline, ir::Model& model, const PipelineOptions& options,
                         std::vector<PassStats>* stats) {
  std::vector<std::string> ran;
  absl::flat_hash_map<std::string, size_t> stat_index;
  auto stat_for = [&](const std::string& name) -> PassStats* {
    if (stats == nullptr) return nullptr;
    auto [it, inserted] = stat_index.try_emplace(name, stats->size());
    if (inserted) stats->push_back(PassStats{name});
    return &(*stats)[it->second];
  };
  // The census of the graph as it is now, taken again only after a pass reports a change (most runs
  // change nothing): taking it before every pass run was ~6 % of a conversion in wasm.
  NodeCensus census;
  InitializerCensus initializers;
  if (stats != nullptr) {
    CountNodes(model.graph, census);
    initializers = CountInitializers(model.graph);
  }
  for (const Stage& stage : pipeline) {
    for (int round = 0; round < stage.max_rounds; ++round) {
      bool changed = false;
      for (const std::unique_ptr<Pass>& pass : stage.passes) {
        PassStats* stat = stat_for(pass->Name());
        double start = options.clock ? options.clock() : 0;
        absl::StatusOr<bool> result = pass->Run(model);
        double end = options.clock ? options.clock() : 0;
        absl::Status status = result.status();
        if (status.ok() && options.verify) status = ir::Verify(model.graph);
        if (!status.ok()) {
          return AnnotateStatus(status, absl::StrCat("pass '", pass->Name(), "' (after ",
                                                     ran.empty() ? "none" : absl::StrJoin(ran, ", "), ")"));
        }
        if (std::find(ran.begin(), ran.end(), pass->Name()) == ran.end()) ran.push_back(pass->Name());
        changed = changed || *result;
        if (stat != nullptr) {
          ++stat->runs;
          if (*result) {
            ++stat->changed_runs;
            NodeCensus after;
            CountNodes(model.graph, after);
            Difference(census, after, stat->nodes_removed, stat->nodes_added);
            census = std::move(after);
            InitializerCensus initializers_after = CountInitializers(model.graph);
            Difference(initializers, initializers_after, stat->initializer_bytes_removed,
                       stat->initializer_bytes_added);
            initializers = std::move(initializers_after);
          }
          stat->seconds += end - start;
        }
      }
      if (!changed) break;
    }
  }
  return absl::OkStatus();
}

std::string FormatPassStats(const std::vector<PassStats>& stats) {
  std::string out = absl::StrFormat("%-34s %5s %8s %8s %9s\n", "pass", "runs", "removed", "added", "ms");
  int64_t removed = 0, added = 0;
  double seconds = 0;
  for (const PassStats& s : stats) {
    absl::StrAppendFormat(&out, "%-34s %5d %8d %8d %9.2f\n", s.name, s.runs, s.nodes_removed, s.nodes_added,
                          s.seconds * 1e3);
    removed += s.nodes_removed;
    added += s.nodes_added;
    seconds += s.seconds;
  }
  absl::StrAppendFormat(&out, "%-34s %5s %8d %8d %9.2f\n", "total", "", removed, added, seconds * 1e3);
  return out;
}

}  // namespace pt2onnx::passes
