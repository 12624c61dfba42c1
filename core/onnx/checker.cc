#include "core/onnx/checker.h"

#include <exception>

#include "absl/strings/str_cat.h"
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
    ::onnx::ShapeInferenceOptions options{/*check_type=*/true, /*error_mode=*/1,
                                          /*enable_data_propagation=*/true};
    ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("ONNX checker: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::onnx_writer
