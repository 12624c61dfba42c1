// Text and JSON renderings of an Inspection (core/export/inspect.h), apart
// from the reading so each file stays short.
#include "export/inspect.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "export/output_plan.h"
#include "export/report.h"
#include "core/version.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace pt2onnx {
namespace {

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

// ---- JSON -------------------------------------------------------------------

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void String(Writer& w, absl::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Key(Writer& w, absl::string_view s) { w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

void OptionalBound(Writer& w, const std::optional<int64_t>& bound) {
  if (bound) {
    w.Int64(*bound);
  } else {
    w.Null();
  }
}

void Range(Writer& w, const std::optional<pt2::RangeConstraint>& range) {
  if (!range) {
    w.Null();
    return;
  }
  w.StartObject();
  Key(w, "min");
  OptionalBound(w, range->min_val);
  Key(w, "max");
  OptionalBound(w, range->max_val);
  w.EndObject();
}

void Values(Writer& w, const std::vector<InspectedValue>& values) {
  w.StartArray();
  for (const InspectedValue& v : values) {
    w.StartObject();
    Key(w, "name");
    String(w, v.name);
    Key(w, "kind");
    String(w, v.kind);
    Key(w, "dtype");
    String(w, v.dtype);
    Key(w, "shape");
    w.StartArray();
    for (const InspectedDim& d : v.shape) {
      if (d.symbolic) {
        String(w, d.name);
      } else {
        w.Int64(d.size);
      }
    }
    w.EndArray();
    Key(w, "dims");  // the symbolic ones, at their axis, with their range
    w.StartArray();
    for (size_t axis = 0; axis < v.shape.size(); ++axis) {
      const InspectedDim& d = v.shape[axis];
      if (!d.symbolic) continue;
      w.StartObject();
      Key(w, "axis");
      w.Uint64(axis);
      Key(w, "name");
      String(w, d.name);
      Key(w, "range");
      Range(w, d.range);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

std::string ShapeText(const InspectedValue& v) {
  if (v.kind != "tensor") return "scalar";
  std::vector<std::string> dims;
  for (const InspectedDim& d : v.shape) dims.push_back(d.symbolic ? d.name : absl::StrCat(d.size));
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

size_t Widest(const std::vector<std::string>& items) {
  size_t width = 0;
  for (const std::string& s : items) width = std::max(width, s.size());
  return width;
}

std::string Pad(absl::string_view s, size_t width) {
  std::string out(s);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

void AppendValues(std::string& out, absl::string_view title, const std::vector<InspectedValue>& values) {
  absl::StrAppend(&out, title, " (", values.size(), "):\n");
  std::vector<std::string> names, dtypes, shapes;
  for (const InspectedValue& v : values) {
    names.push_back(v.name);
    dtypes.push_back(v.dtype);
    shapes.push_back(ShapeText(v));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<std::string> ranges;
    for (const InspectedDim& d : values[i].shape) {
      if (d.symbolic && d.range) ranges.push_back(absl::StrCat(d.name, " in ", RangeText(*d.range)));
    }
    absl::StrAppend(&out, "  ", Pad(names[i], Widest(names)), "  ", Pad(dtypes[i], Widest(dtypes)), "  ",
                    ranges.empty() ? shapes[i]
                                   : absl::StrCat(Pad(shapes[i], Widest(shapes)), "  ",
                                                  absl::StrJoin(ranges, ", ")),
                    "\n");
  }
}

}  // namespace

std::string InspectionJson(const Inspection& info) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 1);
  w.StartObject();
  Key(w, "pt2onnx");
  String(w, kPt2OnnxVersion);
  Key(w, "layout");
  String(w, info.layout);
  Key(w, "archiveRoot");
  String(w, info.archive_root);
  Key(w, "model");
  String(w, info.model_name);
  Key(w, "schemaVersion");
  String(w, info.schema_version);
  Key(w, "torchVersion");
  if (info.torch_version.empty()) {
    w.Null();
  } else {
    String(w, info.torch_version);
  }
  Key(w, "opset");
  w.Int(info.opset);
  Key(w, "inputs");
  Values(w, info.inputs);
  Key(w, "outputs");
  Values(w, info.outputs);
  Key(w, "symbols");
  w.StartArray();
  for (const InspectedSymbol& s : info.symbols) {
    w.StartObject();
    Key(w, "name");
    String(w, s.name);
    Key(w, "range");
    Range(w, s.range);
    Key(w, "uses");
    w.StartArray();
    for (const std::string& use : s.uses) String(w, use);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  Key(w, "fxNodes");
  w.Int64(info.fx_nodes);
  Key(w, "ops");
  w.StartArray();
  for (const InspectedOp& op : info.ops) {
    w.StartObject();
    Key(w, "target");
    String(w, op.target);
    Key(w, "key");
    String(w, op.key);
    Key(w, "count");
    w.Int64(op.count);
    Key(w, "supported");
    w.Bool(op.supported);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "unsupported");
  w.StartArray();
  for (const ops::UnsupportedOp& op : info.unsupported) {
    w.StartObject();
    Key(w, "key");
    String(w, op.key);
    Key(w, "count");
    w.Int(op.count);
    Key(w, "firstNode");
    String(w, op.first_node);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "advice");
  if (info.unsupported.empty()) {
    w.Null();
  } else {
    String(w, ops::kUnsupportedOpsAdvice);
  }
  Key(w, "weights");
  w.StartArray();
  for (const WeightGroup& g : info.weights) {
    w.StartObject();
    Key(w, "dtype");
    String(w, g.dtype);
    Key(w, "count");
    w.Int64(g.count);
    Key(w, "elements");
    w.Uint64(g.elements);
    Key(w, "bytes");
    w.Uint64(g.bytes);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "warnings");
  w.StartArray();
  for (const std::string& warning : info.warnings) String(w, warning);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::string InspectionText(const Inspection& info, absl::string_view file_name) {
  std::string out = absl::StrCat(
      file_name, ": ", info.layout,
      info.archive_root.empty() ? "" : absl::StrCat(", root '", info.archive_root, "'"),
      ", program '", info.model_name, "', schema ", info.schema_version, ", torch ",
      info.torch_version.empty() ? "version not recorded" : info.torch_version, "\n");
  for (const std::string& warning : info.warnings) absl::StrAppend(&out, "warning: ", warning, "\n");
  AppendValues(out, "inputs", info.inputs);
  AppendValues(out, "outputs", info.outputs);

  if (info.symbols.empty()) {
    absl::StrAppend(&out, "symbols: none (static shapes)\n");
  } else {
    absl::StrAppend(&out, "symbols (", info.symbols.size(),
                    ", in input order; rename with --dim-name SYMBOL=NAME):\n");
    std::vector<std::string> names, ranges;
    for (const InspectedSymbol& s : info.symbols) {
      names.push_back(s.name);
      ranges.push_back(s.range ? RangeText(*s.range) : "no range");
    }
    for (size_t i = 0; i < info.symbols.size(); ++i) {
      const InspectedSymbol& s = info.symbols[i];
      absl::StrAppend(&out, "  ", Pad(names[i], Widest(names)), "  ", Pad(ranges[i], Widest(ranges)),
                      s.uses.empty() ? "" : absl::StrCat("  ", absl::StrJoin(s.uses, ", ")), "\n");
    }
  }

  absl::StrAppend(&out, "operators (", info.fx_nodes, " FX nodes, ", info.ops.size(),
                  " targets, checked at opset ", info.opset, "):\n");
  std::vector<std::string> keys;
  for (const InspectedOp& op : info.ops) keys.push_back(op.key);
  for (const InspectedOp& op : info.ops) {
    absl::StrAppend(&out, "  ", Pad(op.key, Widest(keys)), "  ", op.count,
                    op.supported ? "" : "  UNSUPPORTED", "\n");
  }
  if (info.unsupported.empty()) {
    absl::StrAppend(&out, "all operators are supported\n");
  } else {
    absl::StrAppend(&out, info.unsupported.size(), " operator(s) have no ONNX translation:\n");
    for (const ops::UnsupportedOp& op : info.unsupported) {
      absl::StrAppend(&out, "  ", op.key, " x", op.count, " (first at node '", op.first_node, "')\n");
    }
    absl::StrAppend(&out, ops::kUnsupportedOpsAdvice, "\n");
  }

  int64_t count = 0;
  uint64_t bytes = 0;
  std::vector<std::string> groups;
  for (const WeightGroup& g : info.weights) {
    count += g.count;
    bytes = SaturatingAdd(bytes, g.bytes);
    groups.push_back(absl::StrCat(g.dtype, " ", g.count, " (", HumanBytes(g.bytes), ")"));
  }
  absl::StrAppend(&out, "weights: ", count, " tensors, ", HumanBytes(bytes),
                  groups.empty() ? "" : absl::StrCat(": ", absl::StrJoin(groups, ", ")), "\n");
  return out;
}

}  // namespace pt2onnx
