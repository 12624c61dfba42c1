#include "core/onnx/checker.h"

#include <algorithm>
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
    ::onnx::ShapeInferenceOptions options{/*check_type=*/true, /*error_mode=*/1,
                                          /*enable_data_propagation=*/true};
    ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
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
