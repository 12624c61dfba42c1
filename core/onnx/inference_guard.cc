#include "core/onnx/inference_guard.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::onnx_writer {
namespace {

using ::onnx::AttributeProto;
using ::onnx::GraphProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

// What the guard knows of the values visible in a graph: constant tensors
// (initializers, Constant outputs) and static shapes (-1: unknown dim). A
// subgraph's scope chains to its parent's (ONNX's outer-scope visibility).
struct Scope {
  const Scope* parent = nullptr;
  absl::flat_hash_map<std::string, const TensorProto*> constants;
  absl::flat_hash_map<std::string, std::vector<int64_t>> shapes;

  const TensorProto* FindConstant(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->constants.find(name);
      if (it != s->constants.end()) return it->second;
    }
    return nullptr;
  }
  const std::vector<int64_t>* FindShape(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->shapes.find(name);
      if (it != s->shapes.end()) return &it->second;
    }
    return nullptr;
  }
};

void AddShape(Scope& scope, const ::onnx::ValueInfoProto& info) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
  std::vector<int64_t> dims;
  for (const auto& dim : info.type().tensor_type().shape().dim()) {
    dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  }
  scope.shapes[info.name()] = std::move(dims);
}

void AddGraph(Scope& scope, const GraphProto& graph) {
  for (const auto& info : graph.input()) AddShape(scope, info);
  for (const auto& info : graph.value_info()) AddShape(scope, info);
  for (const auto& info : graph.output()) AddShape(scope, info);
  for (const TensorProto& init : graph.initializer()) {
    scope.constants[init.name()] = &init;
    scope.shapes[init.name()] = {init.dims().begin(), init.dims().end()};
  }
  for (const NodeProto& node : graph.node()) {
    if (node.op_type() != "Constant" || node.output_size() != 1) continue;
    for (const AttributeProto& attr : node.attribute()) {
      if (attr.name() == "value" && attr.has_t()) scope.constants[node.output(0)] = &attr.t();
    }
  }
}

int64_t ElementCount(const TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d != 0 && n > std::numeric_limits<int64_t>::max() / d)) return -1;
    n *= d;
  }
  return n;
}

template <typename T>
std::optional<T> FromRaw(const TensorProto& t, int64_t i) {
  if (t.raw_data().size() != static_cast<size_t>(ElementCount(t)) * sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, t.raw_data().data() + i * sizeof(T), sizeof(T));
  return v;
}

// Element `i` of a constant as the library reads it, widened; nullopt when
// the tensor holds no readable data (weights reduced to shapes).
std::optional<long double> Element(const TensorProto& t, int64_t i) {
  const int64_t n = ElementCount(t);
  if (n < 0 || i >= n) return std::nullopt;
  const bool raw = t.has_raw_data();
  switch (t.data_type()) {
    case TensorProto::INT64:
      if (raw) return FromRaw<int64_t>(t, i);
      if (i < t.int64_data_size()) return t.int64_data(static_cast<int>(i));
      return std::nullopt;
    case TensorProto::INT32:
      if (raw) return FromRaw<int32_t>(t, i);
      if (i < t.int32_data_size()) return t.int32_data(static_cast<int>(i));
      return std::nullopt;
    case TensorProto::INT16:
      if (raw) return FromRaw<int16_t>(t, i);
      if (i < t.int32_data_size()) return t.int32_data(static_cast<int>(i));
      return std::nullopt;
    case TensorProto::FLOAT:
      if (raw) return FromRaw<float>(t, i);
      if (i < t.float_data_size()) return t.float_data(static_cast<int>(i));
      return std::nullopt;
    case TensorProto::DOUBLE:
      if (raw) return FromRaw<double>(t, i);
      if (i < t.double_data_size()) return t.double_data(static_cast<int>(i));
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

absl::Status Refuse(const NodeProto& node, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "node '", node.name(), "' (", node.op_type(), "): ", why,
      "; ONNX shape inference cannot compute with it (the file is corrupt or hostile)"));
}

// ceil((limit - start) / delta) as the library computes it, in exact
// arithmetic: limit - start must fit the element type (int32 and int64 are
// subtracted in their own width) and the count must fit int64.
absl::Status CheckRange(const NodeProto& node, const Scope& scope) {
  if (node.input_size() < 3) return absl::OkStatus();
  const TensorProto* args[3];
  for (int k = 0; k < 3; ++k) {
    args[k] = scope.FindConstant(node.input(k));
    if (args[k] == nullptr) return absl::OkStatus();
  }
  const int type = args[0]->data_type();
  if (args[1]->data_type() != type || args[2]->data_type() != type) return absl::OkStatus();
  std::optional<long double> start = Element(*args[0], 0), limit = Element(*args[1], 0),
                             delta = Element(*args[2], 0);
  if (!start || !limit || !delta) return absl::OkStatus();
  long double span = *limit - *start;
  if (type == TensorProto::FLOAT) span = static_cast<float>(*limit) - static_cast<float>(*start);
  if (type == TensorProto::INT64 &&
      (span > static_cast<long double>(std::numeric_limits<int64_t>::max()) ||
       span < static_cast<long double>(std::numeric_limits<int64_t>::min()))) {
    return Refuse(node, "limit - start overflows int64");
  }
  if (type == TensorProto::INT32 && (span > std::numeric_limits<int32_t>::max() ||
                                     span < std::numeric_limits<int32_t>::min())) {
    return Refuse(node, "limit - start overflows int32");
  }
  if (*delta == 0) return Refuse(node, "delta is 0");
  const long double count = std::ceil(span / *delta);
  if (!std::isfinite(static_cast<double>(count)) || count >= 0x1p62L) {
    return Refuse(node, absl::StrCat("start ", static_cast<double>(*start), ", limit ",
                                     static_cast<double>(*limit), ", delta ",
                                     static_cast<double>(*delta), " give more than 2^62 elements"));
  }
  return absl::OkStatus();
}

absl::Status CheckOperand(const NodeProto& node, const std::string& what, long double v) {
  if (std::fabs(v) <= kMaxInferenceOperand) return absl::OkStatus();
  return Refuse(node, absl::StrCat(what, " holds ", static_cast<double>(v), ", beyond 2^30"));
}

// Dims `first..` of input `input`, when known, must not exceed 2^`log2_bound`.
absl::Status CheckInputDims(const NodeProto& node, const Scope& scope, int input, size_t first,
                            int log2_bound = 30) {
  if (node.input_size() <= input) return absl::OkStatus();
  const std::vector<int64_t>* dims = scope.FindShape(node.input(input));
  if (dims == nullptr) return absl::OkStatus();
  const int64_t bound = int64_t{1} << log2_bound;
  for (size_t i = first; i < dims->size(); ++i) {
    if ((*dims)[i] > bound) {
      return Refuse(node, absl::StrCat("input '", node.input(input), "' has a dimension of ",
                                       (*dims)[i], ", beyond 2^", log2_bound));
    }
  }
  return absl::OkStatus();
}

bool IsConvOrPool(const std::string& op) {
  static const char* const kOps[] = {"Conv",    "ConvTranspose", "ConvInteger", "QLinearConv",
                                     "AveragePool", "MaxPool",   "LpPool",      "MaxUnpool",
                                     "DeformConv", "MaxRoiPool", "Col2Im"};
  for (const char* name : kOps) {
    if (op == name) return true;
  }
  return false;
}

absl::Status CheckConvOrPool(const NodeProto& node, const Scope& scope) {
  for (const AttributeProto& attr : node.attribute()) {
    if (attr.type() == AttributeProto::INT) {  // group multiplies the weight's channels
      PT2ONNX_RETURN_IF_ERROR(CheckOperand(node, absl::StrCat("attribute ", attr.name()), attr.i()));
    }
    for (int64_t v : attr.ints()) {
        PT2ONNX_RETURN_IF_ERROR(CheckOperand(node, absl::StrCat("attribute ", attr.name()), v));
    }
  }
  // The data's spatial dims, and the weight's (or indices') dims.
  PT2ONNX_RETURN_IF_ERROR(CheckInputDims(node, scope, 0, 2));
  return CheckInputDims(node, scope, 1, 0);
}

// The values of a constant input, widened; empty when not constant or not
// readable (weights reduced to their shapes).
std::vector<long double> ConstantValues(const NodeProto& node, const Scope& scope, int input) {
  std::vector<long double> values;
  if (node.input_size() <= input) return values;
  const TensorProto* t = scope.FindConstant(node.input(input));
  if (t == nullptr) return values;
  const int64_t n = ElementCount(*t);
  for (int64_t i = 0; i < n; ++i) {
    std::optional<long double> v = Element(*t, i);
    if (!v) return {};
    values.push_back(*v);
  }
  return values;
}

// Pad adds pads[i] + pads[rank + i] to each dim.
absl::Status CheckPad(const NodeProto& node, const Scope& scope) {
  for (long double v : ConstantValues(node, scope, 1)) {
    PT2ONNX_RETURN_IF_ERROR(CheckOperand(node, absl::StrCat("input '", node.input(1), "'"), v));
  }
  return CheckInputDims(node, scope, 0, 0, /*log2_bound=*/62);
}

// Tile multiplies each dim by its repeat.
absl::Status CheckTile(const NodeProto& node, const Scope& scope) {
  const std::vector<long double> repeats = ConstantValues(node, scope, 1);
  const std::vector<int64_t>* dims = node.input_size() > 0 ? scope.FindShape(node.input(0)) : nullptr;
  for (size_t i = 0; i < repeats.size(); ++i) {
    const long double dim = dims != nullptr && i < dims->size() && (*dims)[i] > 0 ? (*dims)[i] : 1;
    if (std::fabs(repeats[i]) * dim > 0x1p62L) {
      return Refuse(node, absl::StrCat("repeat ", static_cast<double>(repeats[i]), " of a dimension of ",
                                       static_cast<double>(dim), " exceeds 2^62 elements"));
    }
  }
  return absl::OkStatus();
}

// Reshape multiplies the constant shape's entries (0 and -1 aside).
absl::Status CheckReshape(const NodeProto& node, const Scope& scope) {
  long double product = 1;
  for (long double v : ConstantValues(node, scope, 1)) {
    if (v == 0 || v == -1) continue;
    product *= std::fabs(v);
    if (product > 0x1p62L) return Refuse(node, "its target shape has more than 2^62 elements");
  }
  return absl::OkStatus();
}

// Resize (and the older Upsample) multiply each known dim by its constant
// scale and cast the floor to int64.
absl::Status CheckResizeScales(const NodeProto& node, const Scope& scope, int scales_input) {
  const std::vector<long double> scales = ConstantValues(node, scope, scales_input);
  const std::vector<int64_t>* dims = node.input_size() > 0 ? scope.FindShape(node.input(0)) : nullptr;
  for (size_t i = 0; i < scales.size(); ++i) {
    const long double dim = dims != nullptr && i < dims->size() && (*dims)[i] > 0 ? (*dims)[i] : 1;
    if (!std::isfinite(static_cast<double>(scales[i])) || std::fabs(scales[i] * dim) > 0x1p62L) {
      return Refuse(node, absl::StrCat("scale ", static_cast<double>(scales[i]), " of a dimension of ",
                                       static_cast<double>(dim), " is not a finite size below 2^62"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckGraph(const GraphProto& graph, const Scope* parent) {
  Scope scope;
  scope.parent = parent;
  AddGraph(scope, graph);
  for (const NodeProto& node : graph.node()) {
    absl::Status status;
    if (node.domain().empty() || node.domain() == "ai.onnx") {
      if (node.op_type() == "Range") status = CheckRange(node, scope);
      if (IsConvOrPool(node.op_type())) status = CheckConvOrPool(node, scope);
      if (node.op_type() == "Pad") status = CheckPad(node, scope);
      if (node.op_type() == "Tile") status = CheckTile(node, scope);
      if (node.op_type() == "Reshape") status = CheckReshape(node, scope);
      if (node.op_type() == "Resize") status = CheckResizeScales(node, scope, 2);
      if (node.op_type() == "Upsample") status = CheckResizeScales(node, scope, 1);
    }
    if (!status.ok()) return status;
    // Nesting depth is bounded when the program is read (64 levels).
    for (const AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) PT2ONNX_RETURN_IF_ERROR(CheckGraph(attr.g(), &scope));
      for (const GraphProto& g : attr.graphs()) {
        PT2ONNX_RETURN_IF_ERROR(CheckGraph(g, &scope));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckInferenceArithmetic(const GraphProto& graph) {
  return CheckGraph(graph, nullptr);
}

}  // namespace pt2onnx::onnx_writer
