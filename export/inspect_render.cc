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

// One "key": value member each; distinct names, as a string literal would
// convert to bool before absl::string_view.
void StringField(Writer& w, absl::string_view key, absl::string_view value) {
  Key(w, key);
  String(w, value);
}

void Int64Field(Writer& w, absl::string_view key, int64_t value) {
  Key(w, key);
  w.Int64(value);
}

void Uint64Field(Writer& w, absl::string_view key, uint64_t value) {
  Key(w, key);
  w.Uint64(value);
}

// The string, or null when `present` is false.
void StringOrNullField(Writer& w, absl::string_view key, bool present, absl::string_view value) {
  Key(w, key);
  if (present) {
    String(w, value);
  } else {
    w.Null();
  }
}

// "key": [ write_item(item)... ].
template <typename T, typename WriteItem>
void ArrayField(Writer& w, absl::string_view key, const std::vector<T>& items, WriteItem write_item) {
  Key(w, key);
  w.StartArray();
  for (const T& item : items) write_item(item);
  w.EndArray();
}

// "key": [ {write_members(item)}... ].
template <typename T, typename WriteMembers>
void ObjectArrayField(Writer& w, absl::string_view key, const std::vector<T>& items, WriteMembers write_members) {
  ArrayField(w, key, items, [&](const T& item) {
    w.StartObject();
    write_members(item);
    w.EndObject();
  });
}

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

void ValueMembers(Writer& w, const InspectedValue& v) {
  StringField(w, "name", v.name);
  StringField(w, "kind", v.kind);
  StringField(w, "dtype", v.dtype);
  ArrayField(w, "shape", v.shape, [&](const InspectedDim& d) {
    if (d.symbolic) {
      String(w, d.name);
    } else {
      w.Int64(d.size);
    }
  });
  Key(w, "dims");  // the symbolic ones, at their axis, with their range
  w.StartArray();
  for (size_t axis = 0; axis < v.shape.size(); ++axis) {
    const InspectedDim& d = v.shape[axis];
    if (!d.symbolic) continue;
    w.StartObject();
    Uint64Field(w, "axis", axis);
    StringField(w, "name", d.name);
    Key(w, "range");
    Range(w, d.range);
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
  StringField(w, "pt2onnx", kPt2OnnxVersion);
  StringField(w, "layout", info.layout);
  StringField(w, "archiveRoot", info.archive_root);
  StringField(w, "model", info.model_name);
  StringField(w, "schemaVersion", info.schema_version);
  StringOrNullField(w, "torchVersion", !info.torch_version.empty(), info.torch_version);
  Int64Field(w, "opset", info.opset);
  ObjectArrayField(w, "inputs", info.inputs, [&](const InspectedValue& v) { ValueMembers(w, v); });
  ObjectArrayField(w, "outputs", info.outputs, [&](const InspectedValue& v) { ValueMembers(w, v); });
  ObjectArrayField(w, "symbols", info.symbols, [&](const InspectedSymbol& s) {
    StringField(w, "name", s.name);
    Key(w, "range");
    Range(w, s.range);
    ArrayField(w, "uses", s.uses, [&](const std::string& use) { String(w, use); });
  });
  Int64Field(w, "fxNodes", info.fx_nodes);
  ObjectArrayField(w, "ops", info.ops, [&](const InspectedOp& op) {
    StringField(w, "target", op.target);
    StringField(w, "key", op.key);
    Int64Field(w, "count", op.count);
    Key(w, "supported");
    w.Bool(op.supported);
  });
  ObjectArrayField(w, "unsupported", info.unsupported, [&](const translate::UnsupportedOp& op) {
    StringField(w, "key", op.key);
    Int64Field(w, "count", op.count);
    StringField(w, "firstNode", op.first_node);
  });
  StringOrNullField(w, "advice", !info.unsupported.empty(), translate::kUnsupportedOpsAdvice);
  ObjectArrayField(w, "weights", info.weights, [&](const WeightGroup& g) {
    StringField(w, "dtype", g.dtype);
    Int64Field(w, "count", g.count);
    Uint64Field(w, "elements", g.elements);
    Uint64Field(w, "bytes", g.bytes);
  });
  ArrayField(w, "warnings", info.warnings, [&](const std::string& warning) { String(w, warning); });
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
    for (const translate::UnsupportedOp& op : info.unsupported) {
      absl::StrAppend(&out, "  ", op.key, " x", op.count, " (first at node '", op.first_node, "')\n");
    }
    absl::StrAppend(&out, translate::kUnsupportedOpsAdvice, "\n");
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
