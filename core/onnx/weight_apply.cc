#include "core/onnx/weight_apply.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace pt2onnx::onnx_writer {
namespace {

// Field numbers (onnx-ml.proto).
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
// TensorProto fields that hold data (skipped, never read): float/int32/string/
// int64 data, raw_data, double/uint64 data.
bool IsTensorDataField(uint32_t field) {
  return field == 4 || field == 5 || field == 6 || field == 7 || field == 9 || field == 10 ||
         field == 11;
}

absl::Status NotOnnx(absl::string_view why, uint64_t offset) {
  return absl::InvalidArgumentError(
      absl::StrCat("not an ONNX model: ", why, " at byte ", offset, " (a .onnx file is expected)"));
}

// Protobuf wire-format fields read by offset through a small window, so a
// model's weights are skipped without being read.
class WireReader {
 public:
  explicit WireReader(const InputFile& file) : file_(file) {}

  struct Field {
    uint32_t number = 0;
    uint32_t wire_type = 0;
    uint64_t begin = 0;  // of the tag
    uint64_t end = 0;
  };

  // The field at `offset`, which must end at or before `limit`.
  absl::StatusOr<Field> Next(uint64_t offset, uint64_t limit) {
    Field field;
    field.begin = offset;
    PT2ONNX_ASSIGN_OR_RETURN(uint64_t tag, Varint(offset, limit));
    field.number = static_cast<uint32_t>(tag >> 3);
    field.wire_type = static_cast<uint32_t>(tag & 7);
    if (field.number == 0 || (tag >> 3) > 0x1FFFFFFF) return NotOnnx("bad field tag", field.begin);
    switch (field.wire_type) {
      case 0:
        PT2ONNX_RETURN_IF_ERROR(Varint(offset, limit).status());
        break;
      case 1: offset += 8; break;
      case 5: offset += 4; break;
      case 2: {
        PT2ONNX_ASSIGN_OR_RETURN(uint64_t length, Varint(offset, limit));
        if (length > limit - std::min(limit, offset)) {
          return NotOnnx("a field runs past its message", field.begin);
        }
        offset += length;
        break;
      }
      default: return NotOnnx("unsupported wire type", field.begin);
    }
    if (offset > limit) return NotOnnx("a field runs past its message", field.begin);
    field.end = offset;
    return field;
  }

  // Payload start of a length-delimited field: after its tag and length.
  absl::StatusOr<uint64_t> PayloadBegin(const Field& field) {
    uint64_t offset = field.begin;
    PT2ONNX_RETURN_IF_ERROR(Varint(offset, field.end).status());
    PT2ONNX_RETURN_IF_ERROR(Varint(offset, field.end).status());
    return offset;
  }

  absl::Status Append(uint64_t begin, uint64_t end, std::string& out) {
    const size_t old = out.size();
    out.resize(old + static_cast<size_t>(end - begin));
    return file_.ReadInto(begin, absl::MakeSpan(reinterpret_cast<uint8_t*>(out.data()) + old,
                                                static_cast<size_t>(end - begin)));
  }

 private:
  static constexpr uint64_t kWindow = 64 << 10;

  absl::StatusOr<uint8_t> Byte(uint64_t offset) {
    if (offset < window_begin_ || offset >= window_begin_ + window_.size()) {
      const uint64_t n = std::min<uint64_t>(kWindow, file_.size() - std::min(file_.size(), offset));
      if (n == 0) return NotOnnx("the file ends inside a field", offset);
      window_.resize(static_cast<size_t>(n));
      PT2ONNX_RETURN_IF_ERROR(file_.ReadInto(offset, absl::MakeSpan(window_)));
      window_begin_ = offset;
    }
    return window_[static_cast<size_t>(offset - window_begin_)];
  }

  // Reads a varint at `offset` (advanced past it), before `limit`.
  absl::StatusOr<uint64_t> Varint(uint64_t& offset, uint64_t limit) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (offset >= limit) return NotOnnx("a varint runs past its message", offset);
      PT2ONNX_ASSIGN_OR_RETURN(uint8_t byte, Byte(offset));
      ++offset;
      value |= uint64_t{byte & 0x7Fu} << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return NotOnnx("a varint is too long", offset);
  }

  const InputFile& file_;
  std::vector<uint8_t> window_;
  uint64_t window_begin_ = 0;
};

std::string Describe(int32_t dtype, const std::vector<int64_t>& dims, bool shape_known) {
  return absl::StrCat(::onnx::TensorProto::DataType_Name(dtype), "[",
                      shape_known ? absl::StrJoin(dims, ", ") : "?", "]");
}

struct Declaration {
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  bool shape_known = true;  // false: a dim without a value
  const char* where = "";
};

Declaration FromValueInfo(const ::onnx::ValueInfoProto& info, const char* where) {
  Declaration d;
  d.where = where;
  const auto& tensor = info.type().tensor_type();
  d.dtype = tensor.elem_type();
  d.shape_known = tensor.has_shape();
  for (const auto& dim : tensor.shape().dim()) {
    if (!dim.has_dim_value()) d.shape_known = false;
    d.dims.push_back(dim.dim_value());
  }
  return d;
}

// Names `graph` reads that it does not define itself (outer-scope names for
// a subgraph; weights for a graph written without initializers).
void CollectFreeNames(const ::onnx::GraphProto& graph, std::set<std::string>& free) {
  std::set<std::string> local;
  for (const auto& in : graph.input()) local.insert(in.name());
  for (const auto& init : graph.initializer()) local.insert(init.name());
  for (const auto& node : graph.node()) {
    for (const std::string& out : node.output()) local.insert(out);
  }
  auto use = [&](const std::string& name) {
    if (!name.empty() && local.count(name) == 0) free.insert(name);
  };
  for (const auto& node : graph.node()) {
    for (const std::string& in : node.input()) use(in);
    for (const auto& attr : node.attribute()) {
      std::set<std::string> inner;
      if (attr.has_g()) CollectFreeNames(attr.g(), inner);
      for (const auto& g : attr.graphs()) CollectFreeNames(g, inner);
      for (const std::string& name : inner) use(name);
    }
  }
  for (const auto& out : graph.output()) use(out.name());
}

std::string FirstFew(const std::vector<std::string>& names) {
  std::vector<std::string> shown(names.begin(), names.begin() + std::min<size_t>(names.size(), 5));
  for (std::string& n : shown) n = absl::StrCat("'", n, "'");
  return absl::StrCat(absl::StrJoin(shown, ", "),
                      names.size() > shown.size() ? absl::StrCat(" and ", names.size() - shown.size(), " more") : "");
}

}  // namespace

absl::StatusOr<ModelForWeights> ReadModelForWeights(const InputFile& file) {
  WireReader reader(file);
  ModelForWeights result;
  bool seen_graph = false;
  for (uint64_t offset = 0; offset < file.size();) {
    PT2ONNX_ASSIGN_OR_RETURN(WireReader::Field field, reader.Next(offset, file.size()));
    offset = field.end;
    if (field.number != kModelGraph) {
      std::string& out = seen_graph ? result.framing.after_graph : result.framing.before_graph;
      PT2ONNX_RETURN_IF_ERROR(reader.Append(field.begin, field.end, out));
      continue;
    }
    if (field.wire_type != 2 || seen_graph) return NotOnnx("a second or malformed graph", field.begin);
    seen_graph = true;
    PT2ONNX_ASSIGN_OR_RETURN(uint64_t graph_offset, reader.PayloadBegin(field));
    while (graph_offset < field.end) {
      PT2ONNX_ASSIGN_OR_RETURN(WireReader::Field g, reader.Next(graph_offset, field.end));
      graph_offset = g.end;
      if (g.number != kGraphInitializer || g.wire_type != 2) {
        PT2ONNX_RETURN_IF_ERROR(reader.Append(g.begin, g.end, result.framing.graph_fields));
        continue;
      }
      // An initializer: keep its header fields, never its data.
      std::string header;
      PT2ONNX_ASSIGN_OR_RETURN(uint64_t t, reader.PayloadBegin(g));
      while (t < g.end) {
        PT2ONNX_ASSIGN_OR_RETURN(WireReader::Field tf, reader.Next(t, g.end));
        t = tf.end;
        if (!IsTensorDataField(tf.number)) PT2ONNX_RETURN_IF_ERROR(reader.Append(tf.begin, tf.end, header));
      }
      ::onnx::TensorProto& tensor = result.initializers.emplace_back();
      if (!tensor.ParseFromString(header)) return NotOnnx("an initializer does not parse", g.begin);
    }
  }
  if (!seen_graph) return NotOnnx("no graph", 0);
  ::onnx::ModelProto fields;
  if (!fields.ParseFromString(result.framing.before_graph + result.framing.after_graph)) {
    return NotOnnx("the model's fields do not parse", 0);
  }
  for (const auto& opset : fields.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") result.opset = opset.version();
  }
  return result;
}

absl::Status CheckWeightsFit(const ModelForWeights& target, const ir::Model& source,
                             const std::string& source_graph_fields) {
  ::onnx::GraphProto graph;
  if (!graph.ParseFromString(target.framing.graph_fields)) {
    return absl::InvalidArgumentError("not an ONNX model: its graph does not parse");
  }
  std::map<std::string, Declaration> declared;
  for (const auto& info : graph.value_info()) declared[info.name()] = FromValueInfo(info, "value_info");
  for (const auto& input : graph.input()) declared[input.name()] = FromValueInfo(input, "graph input");
  std::set<std::string> used;
  for (const auto& init : target.initializers) {
    Declaration d;
    d.dtype = init.data_type();
    d.dims.assign(init.dims().begin(), init.dims().end());
    d.where = "initializer";
    declared[init.name()] = d;
    used.insert(init.name());
  }
  std::set<std::string> free;
  CollectFreeNames(graph, free);
  used.insert(free.begin(), free.end());
  std::set<std::string> inputs;
  for (const auto& input : graph.input()) inputs.insert(input.name());

  std::set<std::string> provided;
  std::vector<std::string> unused, undeclared;
  std::vector<std::string> mismatches;
  for (const ir::Initializer& init : source.graph.initializers) {
    provided.insert(init.name);
    if (used.count(init.name) == 0 && inputs.count(init.name) == 0) {
      unused.push_back(init.name);
      continue;
    }
    auto it = declared.find(init.name);
    if (it == declared.end()) {
      undeclared.push_back(init.name);
      continue;
    }
    const Declaration& want = it->second;
    const int32_t dtype = static_cast<int32_t>(init.tensor.dtype());
    if (want.dtype != dtype || !want.shape_known || want.dims != init.tensor.dims()) {
      mismatches.push_back(absl::StrCat("'", init.name, "': the model's ", want.where, " is ",
                                        Describe(want.dtype, want.dims, want.shape_known),
                                        ", the new weight is ",
                                        Describe(dtype, init.tensor.dims(), true)));
    }
  }
  std::vector<std::string> missing;
  for (const std::string& name : used) {
    if (provided.count(name) == 0) missing.push_back(name);
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model uses ", missing.size(), " weight(s) the .pt2 does not have: ", FirstFew(missing),
        " (is it the same program? convert it with the same options)"));
  }
  if (!unused.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the .pt2 has ", unused.size(), " weight(s) the model does not use: ", FirstFew(unused),
        " (is it the same program? convert it with the same options)"));
  }
  if (!mismatches.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        mismatches.size(), " weight(s) differ in dtype or shape: ", mismatches.front(),
        mismatches.size() > 1 ? absl::StrCat(" (and ", mismatches.size() - 1, " more)") : ""));
  }
  if (!undeclared.empty() && source_graph_fields != target.framing.graph_fields) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model declares no dtype or shape for ", undeclared.size(), " weight(s) (",
        FirstFew(undeclared), "; written with --no-weights) and its graph differs from the one the "
        ".pt2 converts to, so the new weights cannot be checked: convert the .pt2 with the options "
        "used for the model, or write the model with --no-weights --weights-as-inputs"));
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::onnx_writer
