#include "core/onnx/model_reader.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/ir/inline_functions.h"
#include "core/status_macros.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx::onnx_reader {
namespace {

absl::Status Invalid(const std::string& what) { return absl::InvalidArgumentError("ONNX model: " + what); }

// Copies `n` values of a repeated field into little-endian bytes of `size`.
template <typename Repeated, typename Out>
std::string PackAs(const Repeated& values) {
  std::string bytes(values.size() * sizeof(Out), '\0');
  for (int i = 0; i < values.size(); ++i) {
    Out v = static_cast<Out>(values.Get(i));
    std::memcpy(&bytes[i * sizeof(Out)], &v, sizeof(Out));
  }
  return bytes;
}

// Takes raw_data out of `proto` (moved, not copied: a weight is held once).
absl::StatusOr<ir::Tensor> ReadTensor(::onnx::TensorProto& proto) {
  const DataType dtype = static_cast<DataType>(proto.data_type());
  const int size = ElementSize(dtype);
  if (size == 0) return Invalid(absl::StrCat("tensor '", proto.name(), "' has unsupported data_type ", proto.data_type()));
  if (proto.data_location() == ::onnx::TensorProto::EXTERNAL) {
    return absl::UnimplementedError(absl::StrCat("ONNX model: tensor '", proto.name(),
                                                 "' uses external data; save the model without external data"));
  }
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  uint64_t numel = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && numel > (uint64_t{1} << 40) / static_cast<uint64_t>(d))) {
      return Invalid(absl::StrCat("tensor '", proto.name(), "' has bad dims"));
    }
    numel *= static_cast<uint64_t>(d);
  }
  std::string bytes;
  if (proto.has_raw_data()) {
    bytes = std::move(*proto.mutable_raw_data());
  } else {
    switch (dtype) {
      case DataType::kFloat: bytes = PackAs<decltype(proto.float_data()), float>(proto.float_data()); break;
      case DataType::kDouble: bytes = PackAs<decltype(proto.double_data()), double>(proto.double_data()); break;
      case DataType::kInt64: bytes = PackAs<decltype(proto.int64_data()), int64_t>(proto.int64_data()); break;
      case DataType::kUint64: case DataType::kUint32:
        bytes = dtype == DataType::kUint64 ? PackAs<decltype(proto.uint64_data()), uint64_t>(proto.uint64_data())
                                           : PackAs<decltype(proto.uint64_data()), uint32_t>(proto.uint64_data());
        break;
      case DataType::kInt32: bytes = PackAs<decltype(proto.int32_data()), int32_t>(proto.int32_data()); break;
      case DataType::kInt16: bytes = PackAs<decltype(proto.int32_data()), int16_t>(proto.int32_data()); break;
      case DataType::kInt8: bytes = PackAs<decltype(proto.int32_data()), int8_t>(proto.int32_data()); break;
      case DataType::kUint16: case DataType::kFloat16: case DataType::kBFloat16:
        bytes = PackAs<decltype(proto.int32_data()), uint16_t>(proto.int32_data());
        break;
      case DataType::kUint8: bytes = PackAs<decltype(proto.int32_data()), uint8_t>(proto.int32_data()); break;
      case DataType::kBool: bytes = PackAs<decltype(proto.int32_data()), bool>(proto.int32_data()); break;
      default: return Invalid(absl::StrCat("tensor '", proto.name(), "': unsupported typed data"));
    }
  }
  if (bytes.size() != numel * size) {
    return Invalid(absl::StrCat("tensor '", proto.name(), "' holds ", bytes.size(), " bytes, its dims need ", numel * size));
  }
  return ir::Tensor::Owned(dtype, std::move(dims), std::move(bytes));
}

absl::StatusOr<ir::ValueInfo> ReadValueInfo(const ::onnx::ValueInfoProto& proto) {
  ir::ValueInfo info;
  info.name = proto.name();
  if (!proto.type().has_tensor_type()) {
    return absl::UnimplementedError(absl::StrCat("ONNX model: value '", proto.name(), "' is not a tensor"));
  }
  const auto& tt = proto.type().tensor_type();
  info.dtype = static_cast<DataType>(tt.elem_type());
  if (tt.has_shape()) {
    std::vector<ir::Dim> dims;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value()) dims.push_back(ir::Dim::Static(d.dim_value()));
      else if (d.has_dim_param()) dims.push_back(ir::Dim::Symbolic(d.dim_param()));
      else dims.push_back(ir::Dim{});
    }
    info.shape = std::move(dims);
  }
  return info;
}

absl::StatusOr<ir::Graph> ReadGraph(::onnx::GraphProto& proto, int depth);

absl::StatusOr<ir::Attribute> ReadAttribute(::onnx::AttributeProto& proto, int depth) {
  using A = ::onnx::AttributeProto;
  switch (proto.type()) {
    case A::FLOAT: return ir::Attribute::Float(proto.name(), proto.f());
    case A::INT: return ir::Attribute::Int(proto.name(), proto.i());
    case A::STRING: return ir::Attribute::String(proto.name(), proto.s());
    case A::FLOATS: return ir::Attribute::Floats(proto.name(), {proto.floats().begin(), proto.floats().end()});
    case A::INTS: return ir::Attribute::Ints(proto.name(), {proto.ints().begin(), proto.ints().end()});
    case A::STRINGS: return ir::Attribute::Strings(proto.name(), {proto.strings().begin(), proto.strings().end()});
    case A::TENSOR: {
      PT2ONNX_ASSIGN_OR_RETURN(ir::Tensor t, ReadTensor(*proto.mutable_t()));
      return ir::Attribute::TensorValue(proto.name(), std::move(t));
    }
    case A::GRAPH: {
      PT2ONNX_ASSIGN_OR_RETURN(ir::Graph g, ReadGraph(*proto.mutable_g(), depth + 1));
      return ir::Attribute::GraphValue(proto.name(), std::move(g));
    }
    default:
      return absl::UnimplementedError(absl::StrCat("ONNX model: attribute '", proto.name(), "' has unsupported type ",
                                                   static_cast<int>(proto.type())));
  }
}

// One node of a graph or function; `refs_refused` is the error for an
// attribute that refers to a function parameter (not supported).
absl::StatusOr<ir::Node> ReadNode(::onnx::NodeProto& n, int depth, const std::string& refs_refused) {
  ir::Node node;
  node.name = n.name();
  node.op_type = n.op_type();
  node.domain = n.domain();
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  for (auto& a : *n.mutable_attribute()) {
    if (!a.ref_attr_name().empty()) return absl::UnimplementedError(refs_refused);
    PT2ONNX_ASSIGN_OR_RETURN(ir::Attribute attr, ReadAttribute(a, depth));
    node.attributes.push_back(std::move(attr));
  }
  return node;
}

absl::StatusOr<ir::Graph> ReadGraph(::onnx::GraphProto& proto, int depth) {
  if (depth > 64) return Invalid("subgraphs nested too deeply");
  ir::Graph g;
  g.name = proto.name();
  if (proto.sparse_initializer_size() > 0) return absl::UnimplementedError("ONNX model: sparse initializers");
  for (auto& t : *proto.mutable_initializer()) {
    PT2ONNX_ASSIGN_OR_RETURN(ir::Tensor tensor, ReadTensor(t));
    g.initializers.push_back({t.name(), std::move(tensor), {}});
  }
  for (const auto& v : proto.input()) {
    PT2ONNX_ASSIGN_OR_RETURN(ir::ValueInfo info, ReadValueInfo(v));
    g.inputs.push_back(std::move(info));
  }
  for (const auto& v : proto.output()) {
    PT2ONNX_ASSIGN_OR_RETURN(ir::ValueInfo info, ReadValueInfo(v));
    g.outputs.push_back(std::move(info));
  }
  const std::string refs_refused = "ONNX model: attribute references (functions)";
  for (auto& n : *proto.mutable_node()) {
    PT2ONNX_ASSIGN_OR_RETURN(ir::Node node, ReadNode(n, depth, refs_refused));
    g.nodes.push_back(std::move(node));
  }
  return g;
}

// A FunctionProto without attribute parameters (refused: Unimplemented).
absl::StatusOr<ir::Function> ReadFunction(::onnx::FunctionProto& f) {
  if (f.attribute_size() > 0 || f.attribute_proto_size() > 0) {
    return absl::UnimplementedError(absl::StrCat("ONNX function ", f.domain(), "::", f.name(),
                                                 ": attribute parameters are not supported"));
  }
  ir::Function def;
  def.domain = f.domain();
  def.name = f.name();
  def.inputs.assign(f.input().begin(), f.input().end());
  def.outputs.assign(f.output().begin(), f.output().end());
  for (const auto& o : f.opset_import()) def.opset_imports.push_back({o.domain(), o.version()});
  const std::string refs_refused =
      absl::StrCat("ONNX function ", f.domain(), "::", f.name(), ": attribute references are not supported");
  for (auto& n : *f.mutable_node()) {
    PT2ONNX_ASSIGN_OR_RETURN(ir::Node node, ReadNode(n, 0, refs_refused));
    def.nodes.push_back(std::move(node));
  }
  return def;
}

// Replaces the external data of the main graph's initializers by the bytes
// `external` reads (raw_data), so ReadTensor sees ordinary tensors.
absl::Status InlineExternalData(::onnx::GraphProto& graph, const ExternalDataReader& external) {
  for (::onnx::TensorProto& tensor : *graph.mutable_initializer()) {
    if (tensor.data_location() != ::onnx::TensorProto::EXTERNAL) continue;
    std::string location;
    uint64_t offset = 0;
    int64_t length = -1;
    for (const auto& entry : tensor.external_data()) {
      bool parsed = true;
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") parsed = absl::SimpleAtoi(entry.value(), &offset);
      if (entry.key() == "length") parsed = absl::SimpleAtoi(entry.value(), &length);
      if (!parsed) return Invalid(absl::StrCat("tensor '", tensor.name(), "' has a bad external ", entry.key()));
    }
    if (location.empty() || length < 0) {
      return Invalid(absl::StrCat("tensor '", tensor.name(), "' has external data without location or length"));
    }
    absl::StatusOr<std::string> bytes = external(location, offset, static_cast<uint64_t>(length));
    if (!bytes.ok()) {
      return absl::Status(bytes.status().code(), absl::StrCat("ONNX model: tensor '", tensor.name(),
                                                              "': ", bytes.status().message()));
    }
    tensor.clear_external_data();
    tensor.set_data_location(::onnx::TensorProto::DEFAULT);
    *tensor.mutable_raw_data() = *std::move(bytes);
  }
  return absl::OkStatus();
}

// The parsed proto's weights move into the model (see ReadTensor).
absl::StatusOr<ir::Model> ModelFromProto(::onnx::ModelProto& proto, const ExternalDataReader* external = nullptr) {
  if (external != nullptr) PT2ONNX_RETURN_IF_ERROR(InlineExternalData(*proto.mutable_graph(), *external));
  ir::Model model;
  model.ir_version = proto.ir_version();
  model.producer_name = proto.producer_name();
  model.producer_version = proto.producer_version();
  for (const auto& o : proto.opset_import()) model.opset_imports.push_back({o.domain(), o.version()});
  for (const auto& p : proto.metadata_props()) model.metadata.emplace_back(p.key(), p.value());
  PT2ONNX_ASSIGN_OR_RETURN(model.graph, ReadGraph(*proto.mutable_graph(), 0));
  for (auto& f : *proto.mutable_functions()) {
    PT2ONNX_ASSIGN_OR_RETURN(ir::Function function, ReadFunction(f));
    model.functions.push_back(std::move(function));
  }
  PT2ONNX_RETURN_IF_ERROR(ir::InlineLocalFunctions(model));  // the executor runs plain graphs
  return model;
}

constexpr const char kNotAModel[] = "cannot parse the bytes as a ModelProto (not an ONNX file, truncated, or over 2 GiB)";

}  // namespace

absl::StatusOr<ir::Model> ReadModel(ByteSpan bytes) {
  ::onnx::ModelProto proto;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Invalid(kNotAModel);
  }
  return ModelFromProto(proto);
}

absl::StatusOr<ir::Model> ReadModel(google::protobuf::io::ZeroCopyInputStream& input) {
  ::onnx::ModelProto proto;
  if (!proto.ParseFromZeroCopyStream(&input)) return Invalid(kNotAModel);
  return ModelFromProto(proto);
}

absl::StatusOr<ir::Model> ReadModel(google::protobuf::io::ZeroCopyInputStream& input,
                                    const ExternalDataReader& external) {
  ::onnx::ModelProto proto;
  if (!proto.ParseFromZeroCopyStream(&input)) return Invalid(kNotAModel);
  return ModelFromProto(proto, &external);
}

absl::StatusOr<std::vector<ir::Function>> ReadFunctionLibrary(ByteSpan bytes) {
  ::onnx::ModelProto proto;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Invalid("cannot parse the translation library as a ModelProto (not an ONNX file, or truncated)");
  }
  std::vector<ir::Function> functions;
  for (auto& f : *proto.mutable_functions()) {
    PT2ONNX_ASSIGN_OR_RETURN(ir::Function function, ReadFunction(f));
    functions.push_back(std::move(function));
  }
  return functions;
}

}  // namespace pt2onnx::onnx_reader
