#include "core/onnx/checker.h"

#include <algorithm>
#include <cstdint>
#include <exception>

#include "absl/strings/str_cat.h"
#include "core/onnx/inference_guard.h"
#include "core/onnx/model_writer.h"
#include "core/status_macros.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace pt2onnx::onnx_writer {

int CheckerMaxOpset() {
  return ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(::onnx::ONNX_DOMAIN).second;
}

namespace {

// Longest 1-D value data propagation may represent (one dimension per element).
constexpr int64_t kMaxPropagatedLength = int64_t{1} << 16;

bool HasLongVector(const ::onnx::GraphProto& graph) {
  auto long_vector = [](const ::onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return false;
    const ::onnx::TensorShapeProto& shape = v.type().tensor_type().shape();
    return shape.dim_size() == 1 && shape.dim(0).has_dim_value() &&
           shape.dim(0).dim_value() > kMaxPropagatedLength;
  };
  for (const auto* values : {&graph.input(), &graph.output(), &graph.value_info()}) {
    for (const ::onnx::ValueInfoProto& v : *values) {
      if (long_vector(v)) return true;
    }
  }
  return false;
}

// Whether data propagation is safe: no 1-D value, declared or inferred
// without propagation, is longer than kMaxPropagatedLength. Inferred on a
// copy whose large initializers are graph inputs (types only, no bytes).
bool DataPropagationIsSafe(const ::onnx::ModelProto& model) {
  if (HasLongVector(model.graph())) return false;
  ::onnx::ModelProto probe;
  probe.set_ir_version(model.ir_version());
  *probe.mutable_opset_import() = model.opset_import();
  *probe.mutable_functions() = model.functions();
  const ::onnx::GraphProto& src = model.graph();
  ::onnx::GraphProto& graph = *probe.mutable_graph();
  *graph.mutable_node() = src.node();
  *graph.mutable_input() = src.input();
  *graph.mutable_output() = src.output();
  *graph.mutable_value_info() = src.value_info();
  for (const ::onnx::TensorProto& t : src.initializer()) {
    if (t.ByteSizeLong() <= 4096) {
      *graph.add_initializer() = t;
      continue;
    }
    ::onnx::ValueInfoProto& in = *graph.add_input();
    in.set_name(t.name());
    ::onnx::TypeProto_Tensor& type = *in.mutable_type()->mutable_tensor_type();
    type.set_elem_type(t.data_type());
    for (int64_t d : t.dims()) type.mutable_shape()->add_dim()->set_dim_value(d);
  }
  ::onnx::ShapeInferenceOptions options{/*check_type=*/false, /*error_mode=*/0,
                                        /*enable_data_propagation=*/false};
  ::onnx::shape_inference::InferShapes(probe, ::onnx::OpSchemaRegistry::Instance(), options);
  return !HasLongVector(probe.graph());
}

}  // namespace

absl::Status CheckModel(::onnx::ModelProto& model) {
  int64_t opset = 0;
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") opset = op.version();
  }
  if (opset > CheckerMaxOpset()) {
    return absl::UnimplementedError(absl::StrCat("the bundled ONNX checker knows opsets up to ",
                                                 CheckerMaxOpset(), "; model uses ", opset));
  }
  try {
    ::onnx::checker::check_model(model, /*full_check=*/false, /*skip_opset_compatibility_check=*/false,
                                 /*check_custom_domain=*/false);
    PT2ONNX_RETURN_IF_ERROR(CheckInferenceArithmetic(model.graph()));
    // Data propagation where it is safe, and kept only where it succeeds:
    // from onnx 1.21 it treats every 1-D operand of known length as a shape
    // (DataPropagationContextImpl::getInputData in
    // shape_inference/implementation.h), so a Range of 2^40 values would
    // allocate terabytes, and Mul of a [3] and a [5] vector (torch's outer)
    // fails as a broadcast of shapes of ranks 3 and 5.
    ::onnx::ShapeInferenceOptions options{/*check_type=*/true, /*error_mode=*/1,
                                          /*enable_data_propagation=*/false};
    bool inferred = false;
    if (DataPropagationIsSafe(model)) {
      options.enable_data_propagation = true;
      try {
        ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
        inferred = true;
      } catch (const std::exception&) {
        options.enable_data_propagation = false;
      }
    }
    if (!inferred) {
      ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
    }
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("ONNX checker: ", e.what()));
  }
  return absl::OkStatus();
}

absl::Status CheckInferredShapes(const ir::Model& model) {
  for (const ir::OpsetImport& op : model.opset_imports) {
    if ((op.domain.empty() || op.domain == "ai.onnx") && op.version > CheckerMaxOpset()) {
      return absl::OkStatus();
    }
  }
  ::onnx::ModelProto proto = ToModelProtoWithoutWeightData(model);
  PT2ONNX_RETURN_IF_ERROR(CheckInferenceArithmetic(proto.graph()));
  try {
    ::onnx::ShapeInferenceOptions options{/*check_type=*/true, /*error_mode=*/1,
                                          /*enable_data_propagation=*/false};
    ::onnx::shape_inference::InferShapes(proto, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program's metadata contradicts its operators (ONNX shape inference: ", e.what(),
        ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckArity(const ir::Model& model) {
  int64_t opset = 0;
  for (const ir::OpsetImport& op : model.opset_imports) {
    if (op.domain.empty() || op.domain == "ai.onnx") opset = op.version;
  }
  // Above the onnx library's newest opset, operators it does not know yet
  // (RMSNormalization-23) cannot be checked; the ones it knows still are.
  const bool newer_than_library = opset > CheckerMaxOpset();
  opset = std::min<int64_t>(opset, CheckerMaxOpset());
  for (const ir::Node& node : model.graph.nodes) {
    if (!node.domain.empty() && node.domain != "ai.onnx") continue;
    const ::onnx::OpSchema* schema =
        ::onnx::OpSchemaRegistry::Schema(node.op_type, static_cast<int>(opset), "");
    if (schema == nullptr && newer_than_library) continue;
    if (schema == nullptr) {
      return absl::InternalError(absl::StrCat("node '", node.name, "': ONNX has no operator ",
                                              node.op_type, " at opset ", opset));
    }
    // Trailing omitted optional inputs ("") do not count.
    size_t inputs = node.inputs.size();
    while (inputs > 0 && node.inputs[inputs - 1].empty()) --inputs;
    const int n_in = static_cast<int>(inputs), n_out = static_cast<int>(node.outputs.size());
    if (n_in < schema->min_input() || n_in > schema->max_input() ||
        n_out < schema->min_output() || n_out > schema->max_output()) {
      return absl::InternalError(absl::StrCat(
          "node '", node.name, "' (", node.op_type, ") has ", n_in, " inputs and ", n_out,
          " outputs; its ONNX schema allows ", schema->min_input(), "..", schema->max_input(),
          " inputs and ", schema->min_output(), "..", schema->max_output(), " outputs"));
    }
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::onnx_writer
