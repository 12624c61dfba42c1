#include "core/ir/text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace pt2onnx::ir {
namespace {

constexpr int64_t kMaxPrintedElements = 64;

// The shortest text that reads back as the same float (or double).
std::string FloatText(double v, bool single = true) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    double back = std::strtod(buf, nullptr);
    if (single ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // "inf"/"nan" contain 'n'
  return s;
}

std::string TypeText(DataType dtype, const std::optional<std::vector<Dim>>& shape) {
  std::string s(DataTypeName(dtype));
  if (!shape.has_value()) return s;
  std::vector<std::string> dims;
  for (const Dim& d : *shape) {
    dims.push_back(d.is_static() ? absl::StrCat(d.value) : d.param.empty() ? "?" : d.param);
  }
  return absl::StrCat(s, "[", absl::StrJoin(dims, ", "), "]");
}

std::string AttributeText(const Attribute& a) {
  std::vector<std::string> items;
  switch (a.type()) {
    case Attribute::Type::kInt: return absl::StrCat(a.i());
    case Attribute::Type::kFloat: return FloatText(a.f());
    case Attribute::Type::kString: return absl::StrCat("\"", a.s(), "\"");
    case Attribute::Type::kInts: return absl::StrCat("[", absl::StrJoin(a.ints(), ", "), "]");
    case Attribute::Type::kFloats:
      for (float f : a.floats()) items.push_back(FloatText(f));
      return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    case Attribute::Type::kStrings:
      for (const std::string& s : a.strings()) items.push_back(absl::StrCat("\"", s, "\""));
      return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    case Attribute::Type::kTensor: return absl::StrCat("tensor(", TypeText(a.t().dtype(), std::nullopt), ")");
    case Attribute::Type::kGraph: return "graph";
  }
  return "?";
}

std::string TensorValues(const Tensor& t) {
  if (t.numel() > kMaxPrintedElements || t.bytes().size() != t.byte_size()) return "...";
  std::vector<std::string> values;
  for (int64_t i = 0; i < t.numel(); ++i) {
    values.push_back(IsFloatingPoint(t.dtype()) ? FloatText(t.GetDouble(i), t.dtype() != DataType::kDouble) : absl::StrCat(t.GetInt64(i)));
  }
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

absl::StatusOr<DataType> ParseDataType(absl::string_view name) {
  for (int code = 1; code <= 23; ++code) {
    DataType dt = static_cast<DataType>(code);
    if (DataTypeName(dt) == name) return dt;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype '", name, "'"));
}

// "float32[2, s0]" -> dtype and shape.
absl::StatusOr<ValueInfo> ParseTyped(absl::string_view name, absl::string_view type) {
  ValueInfo info;
  info.name = std::string(absl::StripAsciiWhitespace(name));
  type = absl::StripAsciiWhitespace(type);
  size_t bracket = type.find('[');
  absl::StatusOr<DataType> dt = ParseDataType(absl::StripAsciiWhitespace(type.substr(0, bracket)));
  if (!dt.ok()) return dt.status();
  info.dtype = *dt;
  if (bracket == absl::string_view::npos) return info;
  if (type.back() != ']') return absl::InvalidArgumentError(absl::StrCat("bad shape '", type, "'"));
  absl::string_view dims = type.substr(bracket + 1, type.size() - bracket - 2);
  info.shape.emplace();
  if (absl::StripAsciiWhitespace(dims).empty()) return info;
  for (absl::string_view d : absl::StrSplit(dims, ',')) {
    d = absl::StripAsciiWhitespace(d);
    int64_t v = 0;
    if (d == "?") {
      info.shape->push_back(Dim{});
    } else if (absl::SimpleAtoi(d, &v)) {
      info.shape->push_back(Dim::Static(v));
    } else {
      info.shape->push_back(Dim::Symbolic(std::string(d)));
    }
  }
  return info;
}

std::vector<std::string> SplitList(absl::string_view text) {
  std::vector<std::string> items;
  if (absl::StripAsciiWhitespace(text).empty()) return items;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    items.emplace_back(absl::StripAsciiWhitespace(part));
  }
  return items;
}

bool LooksFloat(absl::string_view v) {
  return v.find_first_of(".eE") != absl::string_view::npos || v == "inf" || v == "-inf" || v == "nan";
}

absl::StatusOr<Attribute> ParseAttribute(absl::string_view text) {
  size_t eq = text.find('=');
  if (eq == absl::string_view::npos) return absl::InvalidArgumentError(absl::StrCat("attribute '", text, "'"));
  std::string name(absl::StripAsciiWhitespace(text.substr(0, eq)));
  absl::string_view value = absl::StripAsciiWhitespace(text.substr(eq + 1));
  if (absl::ConsumePrefix(&value, "\"") && absl::ConsumeSuffix(&value, "\"")) {
    return Attribute::String(name, std::string(value));
  }
  if (absl::ConsumePrefix(&value, "[") && absl::ConsumeSuffix(&value, "]")) {
    std::vector<std::string> items = SplitList(value);
    bool floats = false;
    for (const std::string& item : items) floats = floats || LooksFloat(item);
    std::vector<int64_t> ints;
    std::vector<float> fs;
    for (const std::string& item : items) {
      double d = 0;
      int64_t i = 0;
      if (floats ? !absl::SimpleAtod(item, &d) : !absl::SimpleAtoi(item, &i)) {
        return absl::InvalidArgumentError(absl::StrCat("attribute ", name, ": bad value '", item, "'"));
      }
      fs.push_back(static_cast<float>(d));
      ints.push_back(i);
    }
    return floats ? Attribute::Floats(name, fs) : Attribute::Ints(name, ints);
  }
  double d = 0;
  int64_t i = 0;
  if (LooksFloat(value) && absl::SimpleAtod(value, &d)) return Attribute::Float(name, static_cast<float>(d));
  if (absl::SimpleAtoi(value, &i)) return Attribute::Int(name, i);
  return absl::InvalidArgumentError(absl::StrCat("attribute ", name, ": bad value '", value, "'"));
}

// "a, b = Op<k=v>(x, y)"
absl::StatusOr<Node> ParseNode(absl::string_view line) {
  Node node;
  size_t eq = line.find('=');
  size_t open = line.find('(', eq);
  if (eq == absl::string_view::npos || open == absl::string_view::npos || line.back() != ')') {
    return absl::InvalidArgumentError("expected 'outputs = Op(inputs)'");
  }
  node.outputs = SplitList(line.substr(0, eq));
  absl::string_view op = absl::StripAsciiWhitespace(line.substr(eq + 1, open - eq - 1));
  size_t angle = op.find('<');
  if (angle != absl::string_view::npos) {
    if (op.back() != '>') return absl::InvalidArgumentError("unclosed attribute list");
    absl::string_view attrs = op.substr(angle + 1, op.size() - angle - 2);
    // Split on commas outside brackets and quotes.
    int depth = 0;
    bool quoted = false;
    size_t start = 0;
    for (size_t k = 0; k <= attrs.size(); ++k) {
      char c = k < attrs.size() ? attrs[k] : ',';
      if (c == '"') quoted = !quoted;
      if (!quoted && c == '[') ++depth;
      if (!quoted && c == ']') --depth;
      if (!quoted && depth == 0 && c == ',') {
        absl::StatusOr<Attribute> attr = ParseAttribute(attrs.substr(start, k - start));
        if (!attr.ok()) return attr.status();
        node.attributes.push_back(std::move(*attr));
        start = k + 1;
      }
    }
    op = op.substr(0, angle);
  }
  size_t colons = op.rfind("::");
  if (colons != absl::string_view::npos) {
    node.domain = std::string(op.substr(0, colons));
    op = op.substr(colons + 2);
  }
  node.op_type = std::string(op);
  absl::string_view args = line.substr(open + 1, line.size() - open - 2);
  node.inputs = SplitList(args);
  return node;
}

absl::StatusOr<Tensor> ParseTensor(const ValueInfo& info, absl::string_view values) {
  values = absl::StripAsciiWhitespace(values);
  if (!info.shape.has_value()) return absl::InvalidArgumentError("an initializer needs a shape");
  std::vector<int64_t> dims;
  for (const Dim& d : *info.shape) {
    if (!d.is_static()) return absl::InvalidArgumentError("an initializer needs static dims");
    dims.push_back(d.value);
  }
  if (!absl::ConsumePrefix(&values, "[") || !absl::ConsumeSuffix(&values, "]")) {
    return absl::InvalidArgumentError("initializer values go in [ ]");
  }
  std::string bytes;
  std::vector<std::string> items = SplitList(values);
  for (const std::string& item : items) {
    // int64 values stay exact (a trip through double would turn 2^63 - 1
    // into -2^63); narrower types fit a double exactly.
    int64_t i = 0;
    double d = 0;
    Tensor one;
    if (info.dtype == DataType::kInt64 && absl::SimpleAtoi(item, &i)) {
      one = Tensor::Int64Scalar(i);
    } else if (absl::SimpleAtod(item, &d)) {
      one = Tensor::Scalar(info.dtype, d);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("bad value '", item, "'"));
    }
    ByteSpan b = one.bytes();
    bytes.append(reinterpret_cast<const char*>(b.data()), b.size());
  }
  Tensor t = Tensor::Owned(info.dtype, dims, std::move(bytes));
  if (t.numel() != static_cast<int64_t>(items.size())) {
    return absl::InvalidArgumentError(absl::StrCat("initializer ", info.name, " needs ", t.numel(), " values"));
  }
  return t;
}

absl::Status ParseLine(absl::string_view line, Model& model) {
  Graph& g = model.graph;
  auto typed = [&](absl::string_view rest) -> absl::StatusOr<ValueInfo> {
    size_t colon = rest.find(": ");  // names may hold "::"
    if (colon == absl::string_view::npos) return absl::InvalidArgumentError("expected 'name: type'");
    return ParseTyped(rest.substr(0, colon), rest.substr(colon + 1));
  };
  if (absl::ConsumePrefix(&line, "opset ")) {
    std::vector<std::string> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
    int64_t version = 0;
    if (parts.empty() || parts.size() > 2 || !absl::SimpleAtoi(parts.back(), &version)) {
      return absl::InvalidArgumentError("expected 'opset [domain] N'");
    }
    model.opset_imports.push_back({parts.size() == 2 ? parts[0] : "", version});
    return absl::OkStatus();
  }
  for (const char* kind : {"input ", "output ", "info "}) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, kind)) continue;
    absl::StatusOr<ValueInfo> info = typed(rest);
    if (!info.ok()) return info.status();
    const absl::string_view which = kind;
    if (which == "input ") {
      g.inputs.push_back(std::move(*info));
    } else if (which == "output ") {
      g.outputs.push_back(std::move(*info));
    } else {
      g.value_info[info->name] = std::move(*info);
    }
    return absl::OkStatus();
  }
  if (absl::ConsumePrefix(&line, "init ")) {
    size_t eq = line.find('=');
    if (eq == absl::string_view::npos) return absl::InvalidArgumentError("expected 'init name: type = [values]'");
    absl::StatusOr<ValueInfo> info = typed(line.substr(0, eq));
    if (!info.ok()) return info.status();
    absl::StatusOr<Tensor> t = ParseTensor(*info, line.substr(eq + 1));
    if (!t.ok()) return t.status();
    g.initializers.push_back({info->name, std::move(*t), {}});
    return absl::OkStatus();
  }
  absl::StatusOr<Node> node = ParseNode(line);
  if (!node.ok()) return node.status();
  node->name = absl::StrCat("n", g.nodes.size());
  g.nodes.push_back(std::move(*node));
  return absl::OkStatus();
}

}  // namespace

std::string PrintModel(const Model& model) {
  std::string out;
  for (const OpsetImport& op : model.opset_imports) {
    absl::StrAppend(&out, "opset ", op.domain.empty() ? "" : absl::StrCat(op.domain, " "), op.version, "\n");
  }
  const Graph& g = model.graph;
  for (const ValueInfo& in : g.inputs) absl::StrAppend(&out, "input ", in.name, ": ", TypeText(in.dtype, in.shape), "\n");
  for (const Initializer& init : g.initializers) {
    std::optional<std::vector<Dim>> shape(std::in_place);
    for (int64_t d : init.tensor.dims()) shape->push_back(Dim::Static(d));
    absl::StrAppend(&out, "init ", init.name, ": ", TypeText(init.tensor.dtype(), shape), " = ",
                    TensorValues(init.tensor), "\n");
  }
  for (const Node& node : g.nodes) {
    std::vector<std::string> attrs;
    for (const Attribute& a : node.attributes) attrs.push_back(absl::StrCat(a.name, "=", AttributeText(a)));
    absl::StrAppend(&out, absl::StrJoin(node.outputs, ", "), " = ",
                    node.domain.empty() ? "" : absl::StrCat(node.domain, "::"), node.op_type,
                    attrs.empty() ? "" : absl::StrCat("<", absl::StrJoin(attrs, ", "), ">"), "(",
                    absl::StrJoin(node.inputs, ", "), ")\n");
  }
  for (const auto& [name, info] : g.value_info) {
    absl::StrAppend(&out, "info ", name, ": ", TypeText(info.dtype, info.shape), "\n");
  }
  for (const ValueInfo& o : g.outputs) absl::StrAppend(&out, "output ", o.name, ": ", TypeText(o.dtype, o.shape), "\n");
  return out;
}

absl::StatusOr<Model> ParseModel(absl::string_view text) {
  Model model;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    size_t hash = line.find('#');
    if (hash != absl::string_view::npos) line = line.substr(0, hash);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    absl::Status status = ParseLine(line, model);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("IR text line ", line_number, " '", line, "': ",
                                                     status.message()));
    }
  }
  return model;
}

}  // namespace pt2onnx::ir
