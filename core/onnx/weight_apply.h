// File: core/onnx/weight_apply.h
// -----------------------------------------------------------------------------
// apply-weights: an ONNX model (typically written with --no-weights) gets the
// weights of another .pt2 of the same program (a fine-tuned checkpoint). The
// model is scanned at the protobuf wire level without reading its weights'
// data: its fields other than the graph and the graph's fields other than
// initializers are kept byte for byte, its initializers' headers (name,
// dtype, dims) are kept for the checks, and WriteFramedModel appends the new
// initializers, so --no-weights + apply-weights gives the bytes of a direct
// conversion.
//
//   PT2ONNX_ASSIGN_OR_RETURN(ModelForWeights target, ReadModelForWeights(onnx_file));
//   PT2ONNX_RETURN_IF_ERROR(CheckWeightsFit(target, converted.model, FrameModel(...).graph_fields));
//   WriteFramedModel(target.framing, converted.model.graph.initializers, ...);
#ifndef PT2ONNX_CORE_ONNX_WEIGHT_APPLY_H_
#define PT2ONNX_CORE_ONNX_WEIGHT_APPLY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/io/input_file.h"
#include "core/ir/graph.h"
#include "core/onnx/model_writer.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx::onnx_writer {

struct ModelForWeights {
  ModelFraming framing;  // graph_fields: the graph without its initializers
  std::vector<::onnx::TensorProto> initializers;  // headers only: name, data_type, dims
  int64_t opset = 0;  // the default-domain opset it imports, 0 if none
};

// InvalidArgument when `file` is not an ONNX model (bad protobuf framing,
// no graph). Reads everything but the initializers' data.
absl::StatusOr<ModelForWeights> ReadModelForWeights(const InputFile& file);

// Checks that the initializers of `source` (the other .pt2, converted) fit
// `target`: every weight `target` uses is provided, every provided weight is
// used, and dtypes and shapes agree with what `target` declares (its
// initializers, graph inputs, value_info). A weight `target` declares nothing
// about (written with --no-weights) is accepted only when the graph
// `source` converts to (`source_graph_fields`, framed like `target`) equals
// `target`'s. InvalidArgument naming the first weights that do not fit.
absl::Status CheckWeightsFit(const ModelForWeights& target, const ir::Model& source,
                             const std::string& source_graph_fields);

}  // namespace pt2onnx::onnx_writer

#endif  // PT2ONNX_CORE_ONNX_WEIGHT_APPLY_H_
