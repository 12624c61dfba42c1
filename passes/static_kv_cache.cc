// The static key/value cache form; see static_kv_cache.h.
#include "passes/static_kv_cache.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/ir/rewrite.h"
#include "core/status_macros.h"
#include "passes/attention_match.h"
#include "passes/pass_manager.h"
#include "passes/pass_util.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace pt2onnx::passes {
namespace {

// A growing cache found in the graph: Concat(input, fresh) -> output.
struct Growth {
  std::string input, fresh, output;
  size_t concat = 0;  // node index
  int64_t axis = 0;
  int64_t rank = 0;
  std::string symbol;      // the input's dim_param on `axis`
  ir::Dim output_dim;      // the output's declared dim on `axis`
  size_t group = 0;
  // Named by the rewrite: the filled part of the buffer (what read the
  // concatenation reads) and its length, past_length + the fresh entries.
  std::string prefix, length;
};

// Names and values one group's rewrite shares.
struct GroupValues {
  std::string past_length;  // scalar input
  std::string length_1d;    // Unsqueeze(past_length): [1]
  std::string batch;        // Shape(first buffer)[0:1]
  std::string write_indices;  // past_length per batch row: [batch]
  std::string capacity_dim;
};

ir::Node MakeNode(const std::string& op, std::string name, std::vector<std::string> inputs,
                  std::vector<std::string> outputs, std::vector<ir::Attribute> attributes = {}) {
  ir::Node node;
  node.op_type = op;
  node.name = std::move(name);
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.attributes = std::move(attributes);
  return node;
}

// Fresh names and int64 constants for the rewrite.
class Builder {
 public:
  explicit Builder(ir::Graph& graph) : graph_(graph) {
    for (const ir::ValueInfo& v : graph.inputs) names_.insert(v.name);
    for (const ir::Initializer& init : graph.initializers) names_.insert(init.name);
    for (const ir::Node& node : graph.nodes) {
      names_.insert(node.name);
      for (const std::string& out : node.outputs) names_.insert(out);
    }
    for (const auto& [name, info] : graph.value_info) names_.insert(name);
  }

  std::string Fresh(const std::string& hint) {
    std::string name = hint;
    for (int i = 1; names_.contains(name); ++i) name = absl::StrCat(hint, "_", i);
    names_.insert(name);
    return name;
  }

  // A 1-D int64 initializer, shared between equal requests.
  std::string Ints(const std::vector<int64_t>& values) {
    auto it = ints_.find(values);
    if (it != ints_.end()) return it->second;
    ir::Initializer init;
    init.name = Fresh("kv_cache_const");
    init.tensor = ir::Tensor::Int64s({static_cast<int64_t>(values.size())}, values);
    graph_.initializers.push_back(init);
    ints_[values] = init.name;
    return init.name;
  }

  std::string Scalar(DataType dtype, double value) {
    ir::Initializer init;
    init.name = Fresh("kv_cache_pad_value");
    init.tensor = ir::Tensor::Scalar(dtype, value);
    graph_.initializers.push_back(std::move(init));
    return graph_.initializers.back().name;
  }

 private:
  ir::Graph& graph_;
  absl::flat_hash_set<std::string> names_;
  std::map<std::vector<int64_t>, std::string> ints_;
};

bool ReadBySubgraph(const ir::Graph& graph, const std::string& value) {
  for (const ir::Node& node : graph.nodes) {
    if (!HasSubgraph(node)) continue;
    for (const ir::Attribute& attr : node.attributes) {
      if (attr.type() == ir::Attribute::Type::kGraph && ir::ReadValues(attr.g()).contains(value)) return true;
    }
  }
  return false;
}

// The graph's growing caches, grouped by the symbol of their past length.
std::vector<Growth> FindGrowth(const ir::Graph& graph, const ir::UseMap& uses, const ValueIndex& index,
                               std::vector<std::string>& symbols) {
  std::vector<Growth> found;
  for (const ir::ValueInfo& input : graph.inputs) {
    if (!input.shape || input.shape->empty() || graph.IsOutput(input.name)) continue;
    auto consumers = uses.consumers.find(input.name);
    if (consumers == uses.consumers.end()) continue;
    std::optional<Growth> growth;
    int concats = 0;
    for (size_t i : consumers->second) {
      const ir::Node& node = graph.nodes[i];
      if (!IsOp(node, "Concat")) continue;
      ++concats;
      if (node.inputs.size() != 2 || node.inputs[0] != input.name || node.inputs[1] == input.name ||
          node.outputs.size() != 1 || !graph.IsOutput(node.outputs[0])) {
        continue;
      }
      const int64_t rank = static_cast<int64_t>(input.shape->size());
      int64_t axis = IntAttribute(node, "axis", 0);
      if (axis < 0) axis += rank;
      if (axis <= 0 || axis >= rank) continue;  // axis 0 is the batch: not a sequence
      const ir::Dim& dim = (*input.shape)[axis];
      if (dim.param.empty()) continue;  // a fixed past length is no cache to grow
      const ir::ValueInfo* out = index.Info(node.outputs[0]);
      Growth g;
      g.input = input.name;
      g.fresh = node.inputs[1];
      g.output = node.outputs[0];
      g.concat = i;
      g.axis = axis;
      g.rank = rank;
      g.symbol = dim.param;
      if (out != nullptr && out->shape && static_cast<int64_t>(out->shape->size()) == rank) {
        g.output_dim = (*out->shape)[axis];
      }
      growth = g;
    }
    if (!growth || concats != 1) continue;
    if (ReadBySubgraph(graph, growth->input) || ReadBySubgraph(graph, growth->output)) continue;
    size_t group = 0;
    while (group < symbols.size() && symbols[group] != growth->symbol) ++group;
    if (group == symbols.size()) symbols.push_back(growth->symbol);
    growth->group = group;
    found.push_back(*std::move(growth));
  }
  return found;
}

// Shape(X, start, end) of a buffer, rewritten to read the filled length on
// `axis`: Concat of the dims before, past_length, the dims after.
void RewriteShape(ir::Node& shape, const Growth& g, const GroupValues& values, Builder& b,
                  std::vector<ir::Node>& before) {
  int64_t start = IntAttribute(shape, "start", 0);
  int64_t end = IntAttribute(shape, "end", g.rank);
  if (start < 0) start += g.rank;
  if (end < 0) end += g.rank;
  start = std::clamp<int64_t>(start, 0, g.rank);
  end = std::clamp<int64_t>(end, 0, g.rank);
  if (g.axis < start || g.axis >= end) return;  // the past length is not read
  std::vector<std::string> pieces;
  auto dims = [&](int64_t from, int64_t to) {
    if (from >= to) return;
    std::string out = b.Fresh(shape.outputs[0] + "_part");
    before.push_back(MakeNode("Shape", b.Fresh(shape.name + "_part"), {g.input}, {out},
                              {ir::Attribute::Int("start", from), ir::Attribute::Int("end", to)}));
    pieces.push_back(out);
  };
  dims(start, g.axis);
  pieces.push_back(values.length_1d);
  dims(g.axis + 1, end);
  shape.op_type = "Concat";
  shape.domain.clear();
  shape.inputs = pieces;
  shape.attributes = {ir::Attribute::Int("axis", 0)};
}

}  // namespace

absl::StatusOr<StaticKvCacheLayout> MakeKvCacheStatic(ir::Model& model) {
  if (model.OnnxOpset() < kStaticKvCacheMinOpset) {
    return absl::InvalidArgumentError(absl::StrCat("--kv-cache static needs opset ", kStaticKvCacheMinOpset,
                                                   " or higher (TensorScatter); the model is at opset ",
                                                   model.OnnxOpset()));
  }
  ir::Graph& graph = model.graph;
  StaticKvCacheLayout layout;
  std::vector<Growth> growth;
  std::vector<std::string> symbols;
  {
    const ir::UseMap uses = ir::BuildUseMap(graph);
    const ValueIndex index(graph);
    growth = FindGrowth(graph, uses, index, symbols);
  }
  if (growth.empty()) return layout;

  Builder b(graph);
  std::vector<ir::Node> prelude;
  std::vector<GroupValues> groups(symbols.size());
  for (size_t k = 0; k < groups.size(); ++k) {
    GroupValues& v = groups[k];
    const std::string suffix = k == 0 ? "" : absl::StrCat("_", k);
    v.past_length = b.Fresh("past_length" + suffix);
    v.capacity_dim = "cache_capacity" + suffix;
    v.length_1d = b.Fresh(v.past_length + "_1d");
    prelude.push_back(MakeNode("Unsqueeze", b.Fresh("kv_cache_past_length" + suffix), {v.past_length, b.Ints({0})},
                               {v.length_1d}));
    const Growth* first = nullptr;
    for (const Growth& g : growth) {
      if (g.group == k && first == nullptr) first = &g;
    }
    v.batch = b.Fresh("kv_cache_batch" + suffix);
    prelude.push_back(MakeNode("Shape", b.Fresh("kv_cache_batch_size" + suffix), {first->input}, {v.batch},
                               {ir::Attribute::Int("start", 0), ir::Attribute::Int("end", 1)}));
    v.write_indices = b.Fresh("kv_cache_write_indices" + suffix);
    prelude.push_back(
        MakeNode("Expand", b.Fresh("kv_cache_write_rows" + suffix), {v.length_1d, v.batch}, {v.write_indices}));
  }

  // Readers of a concatenation read the filled prefix of its buffer.
  absl::flat_hash_map<std::string, const Growth*> by_input, by_prefix;
  std::map<size_t, const Growth*> by_concat;
  for (Growth& g : growth) {
    g.prefix = b.Fresh(g.output + "_filled");
    g.length = b.Fresh(g.output + "_length");
    by_input[g.input] = &g;
    by_concat[g.concat] = &g;
    by_prefix[g.prefix] = &g;
    ir::ReplaceAllUses(graph, g.output, g.prefix);
  }

  std::map<size_t, std::vector<ir::Node>> before;  // node index -> nodes placed before it
  // Attention over two buffers of one group reads the whole buffers, with
  // nonpad_kv_seqlen, when its options allow it.
  {
    const ValueIndex index(graph);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      ir::Node& node = graph.nodes[i];
      if (!IsOp(node, "Attention") || node.inputs.size() < 3 || node.outputs.size() != 1) continue;
      auto k = by_prefix.find(node.inputs[1]);
      auto v = by_prefix.find(node.inputs[2]);
      if (k == by_prefix.end() || v == by_prefix.end()) continue;
      const Growth& gk = *k->second;
      const Growth& gv = *v->second;
      const bool seq_axis = (gk.rank == 4 && gk.axis == 2) || (gk.rank == 3 && gk.axis == 1);
      if (gk.group != gv.group || gk.rank != gv.rank || gk.axis != gv.axis || !seq_axis ||
          IntAttribute(node, "is_causal", 0) != 0) {
        continue;
      }
      bool extra = false;
      for (size_t j = 4; j < node.inputs.size(); ++j) extra |= !node.inputs[j].empty();
      if (extra) continue;
      std::string mask = node.inputs.size() > 3 ? node.inputs[3] : "";
      std::vector<ir::Node> added;
      if (!mask.empty()) {
        // The mask's keys must be the concatenation's, not a broadcast 1.
        const ir::ValueInfo* info = index.Info(mask);
        const DataType dtype = index.DType(mask);
        if (info == nullptr || !info->shape || info->shape->empty() || gk.output_dim.param.empty() ||
            !SameDim(info->shape->back(), gk.output_dim) ||
            (dtype != DataType::kBool && dtype != index.DType(node.inputs[0]))) {
          continue;
        }
        // Padded to the capacity: ONNX Runtime wants a full-length mask;
        // nonpad_kv_seqlen hides the padded keys whatever their value.
        const std::string capacity = b.Fresh(mask + "_capacity");
        added.push_back(MakeNode("Shape", b.Fresh(node.name + "_capacity"), {gk.input}, {capacity},
                                 {ir::Attribute::Int("start", gk.axis), ir::Attribute::Int("end", gk.axis + 1)}));
        const std::string missing = b.Fresh(mask + "_missing");
        added.push_back(
            MakeNode("Sub", b.Fresh(node.name + "_missing"), {capacity, gk.length}, {missing}));
        const std::string pads = b.Fresh(mask + "_pads");
        added.push_back(MakeNode("Concat", b.Fresh(node.name + "_pads"), {b.Ints({0}), missing}, {pads},
                                 {ir::Attribute::Int("axis", 0)}));
        const std::string padded = b.Fresh(mask + "_to_capacity");
        added.push_back(MakeNode("Pad", b.Fresh(node.name + "_mask_pad"),
                                 {mask, pads, b.Scalar(dtype, 0), b.Ints({-1})}, {padded}));
        mask = padded;
      }
      const std::string nonpad = b.Fresh(node.name + "_nonpad_kv_seqlen");
      added.push_back(MakeNode("Expand", b.Fresh(node.name + "_nonpad"),
                               {gk.length, groups[gk.group].batch}, {nonpad}));
      node.inputs.resize(7);
      node.inputs[1] = gk.output;
      node.inputs[2] = gv.output;
      node.inputs[3] = mask;
      node.inputs[6] = nonpad;
      ++layout.attentions_on_buffers;
      for (ir::Node& n : added) ir::CopyMissingMetadata(node.metadata, n.metadata);
      std::vector<ir::Node>& slot = before[i];
      for (ir::Node& n : added) slot.push_back(std::move(n));
    }
  }

  // The new node list: the prelude, then every node, the concatenations
  // replaced, readers of a buffer's past length or contents redirected.
  std::vector<ir::Node> nodes = std::move(prelude);
  nodes.reserve(graph.nodes.size() + 8 * growth.size());
  absl::flat_hash_map<std::string, std::string> past_view;  // buffer -> its filled prefix
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    ir::Node node = std::move(graph.nodes[i]);
    if (auto it = before.find(i); it != before.end()) {
      for (ir::Node& n : it->second) nodes.push_back(std::move(n));
    }
    if (auto it = by_concat.find(i); it != by_concat.end()) {
      const Growth& g = *it->second;
      const GroupValues& v = groups[g.group];
      const std::string fresh_length = b.Fresh(g.fresh + "_length");
      std::vector<ir::Node> step;
      step.push_back(MakeNode("Shape", b.Fresh(node.name + "_fresh_length"), {g.fresh}, {fresh_length},
                              {ir::Attribute::Int("start", g.axis), ir::Attribute::Int("end", g.axis + 1)}));
      step.push_back(MakeNode("Add", b.Fresh(node.name + "_length"), {v.length_1d, fresh_length},
                              {g.length}));
      step.push_back(MakeNode("TensorScatter", b.Fresh(node.name + "_scatter"), {g.input, g.fresh, v.write_indices},
                              {g.output}, {ir::Attribute::Int("axis", g.axis)}));
      step.push_back(MakeNode("Slice", b.Fresh(node.name + "_filled"),
                              {g.output, b.Ints({0}), g.length, b.Ints({g.axis})},
                              {g.prefix}));
      for (ir::Node& n : step) {
        ir::CopyMissingMetadata(node.metadata, n.metadata);
        nodes.push_back(std::move(n));
      }
      continue;
    }
    std::vector<ir::Node> pieces;
    if (IsOp(node, "Shape") && node.inputs.size() == 1) {
      if (auto it = by_input.find(node.inputs[0]); it != by_input.end()) {
        RewriteShape(node, *it->second, groups[it->second->group], b, pieces);
      }
    }
    for (std::string& in : node.inputs) {
      auto it = by_input.find(in);
      if (it == by_input.end() || IsOp(node, "Shape")) continue;
      std::string& view = past_view[in];
      if (view.empty()) {
        // Another reader of the past itself: its filled part.
        const Growth& g = *it->second;
        view = b.Fresh(in + "_past");
        pieces.push_back(MakeNode("Slice", b.Fresh(in + "_past_slice"),
                                  {in, b.Ints({0}), groups[g.group].length_1d, b.Ints({g.axis})}, {view}));
      }
      in = view;
    }
    for (ir::Node& n : pieces) {
      ir::CopyMissingMetadata(node.metadata, n.metadata);
      nodes.push_back(std::move(n));
    }
    nodes.push_back(std::move(node));
  }
  graph.nodes = std::move(nodes);

  // The interface: buffers of the capacity, one past_length per group.
  for (GroupValues& v : groups) {
    ir::ValueInfo length;
    length.name = v.past_length;
    length.dtype = DataType::kInt64;
    length.shape = std::vector<ir::Dim>{};
    graph.inputs.push_back(std::move(length));
    layout.groups.push_back({v.past_length, v.capacity_dim, {}});
  }
  for (ir::ValueInfo& input : graph.inputs) {
    auto it = by_input.find(input.name);
    if (it == by_input.end()) continue;
    const Growth& g = *it->second;
    (*input.shape)[g.axis] = ir::Dim::Symbolic(groups[g.group].capacity_dim);
    for (ir::ValueInfo& output : graph.outputs) {
      if (output.name == g.output) output.shape = input.shape;
    }
    graph.value_info.erase(g.output);
    layout.groups[g.group].caches.push_back({g.input, g.output, g.axis});
  }
  model.metadata.emplace_back(kKvCacheMetadataKey, KvCacheLayoutJson(layout));
  // The prefixes and shapes that whole-buffer Attention nodes left unread.
  PT2ONNX_ASSIGN_OR_RETURN(std::unique_ptr<Pass> dce, CreatePass("dead_code_elimination", PipelineOptions{}));
  PT2ONNX_RETURN_IF_ERROR(dce->Run(model).status());
  return layout;
}

std::string KvCacheLayoutJson(const StaticKvCacheLayout& layout) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("form");
  w.String("static");
  w.Key("groups");
  w.StartArray();
  for (const StaticKvCacheGroup& group : layout.groups) {
    w.StartObject();
    w.Key("past_length");
    w.String(group.past_length.c_str());
    w.Key("capacity_dim");
    w.String(group.capacity_dim.c_str());
    w.Key("caches");
    w.StartArray();
    for (const StaticKvCache& cache : group.caches) {
      w.StartObject();
      w.Key("input");
      w.String(cache.input.c_str());
      w.Key("output");
      w.String(cache.output.c_str());
      w.Key("axis");
      w.Int64(cache.axis);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

}  // namespace pt2onnx::passes
