#include "core/onnx/model_writer.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::onnx_writer {
namespace {

// Protobuf field numbers we frame by hand (onnx-ml.proto).
constexpr uint32_t kModelGraphField = 7;        // ModelProto.graph
constexpr uint32_t kGraphInitializerField = 5;  // GraphProto.initializer
constexpr uint32_t kTensorRawDataField = 9;     // TensorProto.raw_data
constexpr uint64_t kExternalAlignment = 64;     // lets readers mmap tensors
// Buffers for writing a transposed weight: the writer reads the whole source
// once per buffer's worth of output, so 32 MiB (two buffers) writes a Llama
// 1B's largest weights (23 MiB) in one pass over the source instead of three;
// in the browser every pass is read through the File again.
constexpr uint64_t kTransposeBufferBytes = uint64_t{32} << 20;

void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Tag + length of a length-delimited field.
std::string FieldHeader(uint32_t field, uint64_t length) {
  std::string out;
  AppendVarint(out, (uint64_t{field} << 3) | 2);
  AppendVarint(out, length);
  return out;
}

uint64_t VarintSize(uint64_t v) {
  uint64_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// metadata_props key the translator puts on a complex program output written
// as its view_as_real (translate/fx_values.h kComplexOutputKey); such a
// value also gets a doc_string saying so, for readers that show no metadata.
constexpr char kComplexAsRealKey[] = "pkg.pt2onnx.complex_as_real";

void FillValueInfo(const ir::ValueInfo& info, ::onnx::ValueInfoProto& proto) {
  proto.set_name(info.name);
  for (const auto& [key, value] : info.metadata) {
    if (key != kComplexAsRealKey) continue;
    proto.set_doc_string(absl::StrCat("torch ", value,
                                      " output written as torch.view_as_real: the real dtype with a trailing dim "
                                      "of 2 (real, imaginary); torch.view_as_complex restores it"));
  }
  auto* tensor_type = proto.mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(static_cast<int32_t>(info.dtype));
  if (info.shape.has_value()) {
    auto* shape = tensor_type->mutable_shape();
    for (const ir::Dim& dim : *info.shape) {
      auto* d = shape->add_dim();
      if (!dim.param.empty()) {
        d->set_dim_param(dim.param);
      } else if (dim.value >= 0) {
        d->set_dim_value(dim.value);
      }
    }
  }
  for (const auto& [key, value] : info.metadata) {
    auto* entry = proto.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
}

// Everything of a TensorProto except its data.
void FillTensorHeader(const std::string& name, const ir::Tensor& tensor,
                      const ir::Metadata& metadata, ::onnx::TensorProto& proto) {
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t d : tensor.dims()) proto.add_dims(d);
  for (const auto& [key, value] : metadata) {
    auto* entry = proto.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
}

void FillTensor(const std::string& name, const ir::Tensor& tensor, const ir::Metadata& metadata,
                ::onnx::TensorProto& proto) {
  FillTensorHeader(name, tensor, metadata, proto);
  ByteSpan bytes = tensor.bytes();
  // A tensor without elements has no data field (as initializers, below):
  // onnx's shape inference copies a present, empty raw_data with a null
  // memcpy destination (onnx/defs/tensor_proto_util.cc, ParseData).
  if (!bytes.empty()) proto.set_raw_data(bytes.data(), bytes.size());
}

void FillGraph(const ir::Graph& graph, ::onnx::GraphProto& proto, bool with_initializers);

void FillAttribute(const ir::Attribute& attr, ::onnx::AttributeProto& proto) {
  proto.set_name(attr.name);
  switch (attr.type()) {
    case ir::Attribute::Type::kFloat:
      proto.set_type(::onnx::AttributeProto::FLOAT);
      proto.set_f(attr.f());
      break;
    case ir::Attribute::Type::kInt:
      proto.set_type(::onnx::AttributeProto::INT);
      proto.set_i(attr.i());
      break;
    case ir::Attribute::Type::kString:
      proto.set_type(::onnx::AttributeProto::STRING);
      proto.set_s(attr.s());
      break;
    case ir::Attribute::Type::kTensor:
      proto.set_type(::onnx::AttributeProto::TENSOR);
      FillTensor("", attr.t(), {}, *proto.mutable_t());
      break;
    case ir::Attribute::Type::kGraph:
      proto.set_type(::onnx::AttributeProto::GRAPH);
      FillGraph(attr.g(), *proto.mutable_g(), /*with_initializers=*/true);
      break;
    case ir::Attribute::Type::kFloats:
      proto.set_type(::onnx::AttributeProto::FLOATS);
      for (float f : attr.floats()) proto.add_floats(f);
      break;
    case ir::Attribute::Type::kInts:
      proto.set_type(::onnx::AttributeProto::INTS);
      for (int64_t i : attr.ints()) proto.add_ints(i);
      break;
    case ir::Attribute::Type::kStrings:
      proto.set_type(::onnx::AttributeProto::STRINGS);
      for (const auto& s : attr.strings()) proto.add_strings(s);
      break;
  }
}

void FillNode(const ir::Node& node, ::onnx::NodeProto& n) {
  n.set_name(node.name);
  n.set_op_type(node.op_type);
  if (!node.domain.empty()) n.set_domain(node.domain);
  for (const auto& in : node.inputs) n.add_input(in);
  for (const auto& out : node.outputs) n.add_output(out);
  for (const ir::Attribute& attr : node.attributes) FillAttribute(attr, *n.add_attribute());
  for (const auto& [key, value] : node.metadata) {
    auto* entry = n.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
}

void FillFunction(const ir::Function& function, ::onnx::FunctionProto& proto) {
  proto.set_domain(function.domain);
  proto.set_name(function.name);
  for (const auto& in : function.inputs) proto.add_input(in);
  for (const auto& out : function.outputs) proto.add_output(out);
  for (const ir::Node& node : function.nodes) FillNode(node, *proto.add_node());
  for (const ir::OpsetImport& op : function.opset_imports) {
    auto* entry = proto.add_opset_import();
    entry->set_domain(op.domain);
    entry->set_version(op.version);
  }
}

void FillGraph(const ir::Graph& graph, ::onnx::GraphProto& proto, bool with_initializers) {
  proto.set_name(graph.name);
  for (const ir::ValueInfo& in : graph.inputs) FillValueInfo(in, *proto.add_input());
  for (const ir::ValueInfo& out : graph.outputs) FillValueInfo(out, *proto.add_output());
  for (const auto& [name, info] : graph.value_info) FillValueInfo(info, *proto.add_value_info());
  for (const ir::Node& node : graph.nodes) FillNode(node, *proto.add_node());
  for (const auto& [key, value] : graph.metadata) {
    auto* entry = proto.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
  if (with_initializers) {
    for (const ir::Initializer& init : graph.initializers) {
      FillTensor(init.name, init.tensor, init.metadata, *proto.add_initializer());
    }
  }
}

void FillModelHeader(const ir::Model& model, ::onnx::ModelProto& proto) {
  proto.set_ir_version(model.ir_version);
  proto.set_producer_name(model.producer_name);
  proto.set_producer_version(model.producer_version);
  for (const ir::OpsetImport& op : model.opset_imports) {
    auto* entry = proto.add_opset_import();
    entry->set_domain(op.domain);
    entry->set_version(op.version);
  }
  for (const auto& [key, value] : model.metadata) {
    auto* entry = proto.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
  for (const ir::Function& function : model.functions) FillFunction(function, *proto.add_functions());
}

absl::Status WriteString(ByteSink& sink, const std::string& bytes) {
  return sink.Write(AsBytes(bytes));
}

absl::Status WriteTensorData(ByteSink& sink, const ir::Tensor& tensor) {
  if (const FileSlice* slice = tensor.file_slice()) return sink.WriteSlice(*slice);
  const ir::TransposedSlice* transposed = tensor.transposed_slice();
  if (transposed != nullptr && !tensor.transposed_in_memory()) {
    return ir::WriteTransposed(*transposed, sink, kTransposeBufferBytes);
  }
  return sink.Write(tensor.bytes());
}

}  // namespace

uint64_t InitializerBytes(const ir::Model& model) {
  uint64_t total = 0;
  for (const ir::Initializer& init : model.graph.initializers) total += init.tensor.byte_size();
  return total;
}

bool UsesExternalData(uint64_t initializer_bytes, const WriteOptions& options) {
  switch (options.external_data) {
    case WriteOptions::ExternalData::kAlways: return true;
    case WriteOptions::ExternalData::kNever: return false;
    case WriteOptions::ExternalData::kAuto: return initializer_bytes > options.auto_threshold_bytes;
  }
  return false;
}

ModelFraming FrameModel(const ir::Model& model, const WriteOptions& options) {
  ::onnx::ModelProto header;
  FillModelHeader(model, header);
  ::onnx::GraphProto graph;
  FillGraph(model.graph, graph, /*with_initializers=*/false);
  if (options.initializers_as_inputs) {
    for (const ir::Initializer& init : model.graph.initializers) {
      ::onnx::ValueInfoProto* input = graph.add_input();
      input->set_name(init.name);
      auto* tensor_type = input->mutable_type()->mutable_tensor_type();
      tensor_type->set_elem_type(static_cast<int32_t>(init.tensor.dtype()));
      auto* shape = tensor_type->mutable_shape();
      for (int64_t d : init.tensor.dims()) shape->add_dim()->set_dim_value(d);
    }
  }
  return ModelFraming{header.SerializeAsString(), graph.SerializeAsString(), ""};
}

absl::StatusOr<WriteSummary> WriteModel(const ir::Model& model, const WriteOptions& options,
                                        ByteSink& model_sink, ByteSink* data_sink) {
  return WriteFramedModel(FrameModel(model, options), model.graph.initializers, options, model_sink,
                          data_sink);
}

absl::StatusOr<WriteSummary> WriteFramedModel(const ModelFraming& framing,
                                              const std::vector<ir::Initializer>& all_initializers,
                                              const WriteOptions& options, ByteSink& model_sink,
                                              ByteSink* data_sink) {
  static const std::vector<ir::Initializer> kNone;
  const std::vector<ir::Initializer>& initializers =
      options.include_initializers ? all_initializers : kNone;
  WriteSummary summary;
  for (const ir::Initializer& init : initializers) summary.initializer_bytes += init.tensor.byte_size();
  summary.external = options.include_initializers &&
                     UsesExternalData(summary.initializer_bytes, options);
  if (summary.external && (data_sink == nullptr || options.external_data_location.empty())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the model's weights (", summary.initializer_bytes,
        " bytes) must go to an external data file, but no data file was given"));
  }
  const std::string& model_bytes = framing.before_graph;
  const std::string& graph_bytes = framing.graph_fields;

  // 2. Each initializer: its header message, then (inline) its raw bytes as
  //    a raw_data field we frame ourselves, so the bytes are never copied.
  struct Piece {
    std::string header;                 // TensorProto without data
    const ir::Tensor* inline_data = nullptr;  // null if external or empty
  };
  std::vector<Piece> pieces;
  uint64_t graph_length = graph_bytes.size();
  SharedExternalData* shared = options.shared_data;
  uint64_t data_offset = 0;
  std::vector<std::pair<const ir::Tensor*, uint64_t>> external_writes;  // data, padding before
  for (const ir::Initializer& init : initializers) {
    ::onnx::TensorProto tensor;
    FillTensorHeader(init.name, init.tensor, init.metadata, tensor);
    const uint64_t raw_size = init.tensor.byte_size();
    Piece piece;
    if (summary.external && raw_size >= options.min_external_bytes) {
      tensor.set_data_location(::onnx::TensorProto::EXTERNAL);
      auto add = [&](const char* key, std::string value) {
        auto* entry = tensor.add_external_data();
        entry->set_key(key);
        entry->set_value(std::move(value));
      };
      std::optional<SharedExternalData::Match> match;
      if (shared != nullptr) {
        PT2ONNX_ASSIGN_OR_RETURN(match, shared->Find(init.tensor));
      }
      if (match.has_value() && match->place.has_value()) {  // written before, maybe by another model
        add("location", match->place->location);
        add("offset", absl::StrCat(match->place->offset));
        add("length", absl::StrCat(raw_size));
        shared->CountReuse(raw_size);
      } else {
        uint64_t padding = (kExternalAlignment - data_offset % kExternalAlignment) % kExternalAlignment;
        data_offset += padding;
        add("location", options.external_data_location);
        add("offset", absl::StrCat(data_offset));
        add("length", absl::StrCat(raw_size));
        if (match.has_value()) shared->Add(*match, init.tensor, {options.external_data_location, data_offset});
        external_writes.emplace_back(&init.tensor, padding);
        data_offset += raw_size;
        summary.external_bytes = data_offset;
      }
    } else if (raw_size > 0) {
      piece.inline_data = &init.tensor;
    }
    piece.header = tensor.SerializeAsString();
    uint64_t tensor_length = piece.header.size();
    if (piece.inline_data != nullptr) {
      tensor_length += VarintSize((kTensorRawDataField << 3) | 2) + VarintSize(raw_size) + raw_size;
    }
    graph_length += VarintSize((kGraphInitializerField << 3) | 2) + VarintSize(tensor_length) +
                    tensor_length;
    pieces.push_back(std::move(piece));
  }

  // 3. Emit: model fields, graph field header, graph body, initializers.
  PT2ONNX_RETURN_IF_ERROR(WriteString(model_sink, model_bytes));
  PT2ONNX_RETURN_IF_ERROR(WriteString(model_sink, FieldHeader(kModelGraphField, graph_length)));
  PT2ONNX_RETURN_IF_ERROR(WriteString(model_sink, graph_bytes));
  summary.model_bytes = model_bytes.size() + FieldHeader(kModelGraphField, graph_length).size() +
                        graph_length + framing.after_graph.size();
  for (const Piece& piece : pieces) {
    uint64_t tensor_length = piece.header.size();
    std::string raw_header;
    if (piece.inline_data != nullptr) {
      const uint64_t raw_size = piece.inline_data->byte_size();
      raw_header = FieldHeader(kTensorRawDataField, raw_size);
      tensor_length += raw_header.size() + raw_size;
    }
    PT2ONNX_RETURN_IF_ERROR(
        WriteString(model_sink, FieldHeader(kGraphInitializerField, tensor_length)));
    PT2ONNX_RETURN_IF_ERROR(WriteString(model_sink, piece.header));
    if (piece.inline_data != nullptr) {
      PT2ONNX_RETURN_IF_ERROR(WriteString(model_sink, raw_header));
      PT2ONNX_RETURN_IF_ERROR(WriteTensorData(model_sink, *piece.inline_data));
    }
  }
  PT2ONNX_RETURN_IF_ERROR(WriteString(model_sink, framing.after_graph));
  static const std::string kZeros(kExternalAlignment, '\0');
  for (const auto& [tensor, padding] : external_writes) {
    if (padding > 0) PT2ONNX_RETURN_IF_ERROR(data_sink->Write(AsBytes(kZeros).subspan(0, padding)));
    PT2ONNX_RETURN_IF_ERROR(WriteTensorData(*data_sink, *tensor));
  }
  return summary;
}

::onnx::ModelProto ToModelProto(const ir::Model& model) {
  ::onnx::ModelProto proto;
  FillModelHeader(model, proto);
  FillGraph(model.graph, *proto.mutable_graph(), /*with_initializers=*/true);
  return proto;
}

constexpr uint64_t kShapeConstantBytes = 1024;

::onnx::ModelProto ToModelProtoWithoutWeightData(const ir::Model& model) {
  ::onnx::ModelProto proto;
  FillModelHeader(model, proto);
  FillGraph(model.graph, *proto.mutable_graph(), /*with_initializers=*/false);
  for (const ir::Initializer& init : model.graph.initializers) {
    // Small constants keep their values: shape inference reads Reshape
    // shapes, Split sizes and axes from them (folded ones are initializers).
    if (init.tensor.byte_size() <= kShapeConstantBytes && !init.tensor.file_slice()) {
      FillTensor(init.name, init.tensor, {}, *proto.mutable_graph()->add_initializer());
    } else {
      FillTensorHeader(init.name, init.tensor, {}, *proto.mutable_graph()->add_initializer());
    }
  }
  return proto;
}

}  // namespace pt2onnx::onnx_writer
