// File: core/onnx/model_writer.h
// -----------------------------------------------------------------------------
// Serializes an ir::Model as an ONNX ModelProto without copying weights: the
// message is emitted as a sequence of byte pieces (protobuf framing we encode
// ourselves + the initializers' own byte spans), handed to a ByteSink in
// order. Large initializers can go to a separate external-data file (ONNX's
// "external_data" convention), chosen per WriteOptions like torch.onnx:
// on request, or automatically when the weights exceed 1.5 GiB (a single
// protobuf cannot exceed 2 GiB).
//
//   StringSink model;
//   PT2ONNX_ASSIGN_OR_RETURN(WriteSummary summary, WriteModel(ir_model, {}, model, nullptr));
#ifndef PT2ONNX_CORE_ONNX_MODEL_WRITER_H_
#define PT2ONNX_CORE_ONNX_MODEL_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/bytes.h"
#include "core/io/byte_sink.h"
#include "core/io/input_file.h"
#include "core/onnx/shared_external_data.h"
#include "core/ir/graph.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx::onnx_writer {

// The sinks moved to core/io/byte_sink.h; these names keep writer code short.
using ::pt2onnx::ByteSink;
using ::pt2onnx::StringSink;

struct WriteOptions {
  enum class ExternalData { kAuto, kAlways, kNever };
  ExternalData external_data = ExternalData::kAuto;
  // kAuto switches to external data above this many initializer bytes
  // (torch.onnx: 1.5 GiB).
  uint64_t auto_threshold_bytes = uint64_t{1536} << 20;
  // Initializers smaller than this stay inside the model (onnx's default).
  uint64_t min_external_bytes = 1024;
  // File name recorded in the model for external tensors ("model.onnx.data"),
  // relative to the model file.
  std::string external_data_location;
  // Weights written before by other models (shared_external_data.h): a
  // tensor already written is referenced where it is (maybe another model's
  // data file), not written again. Null: every weight is written.
  SharedExternalData* shared_data = nullptr;
  // false: the graph without its initializers (torch.onnx's
  // save(include_initializers=False)); pt2onnx apply-weights puts them back.
  bool include_initializers = true;
  // Initializers also listed as graph inputs, after the user inputs
  // (torch.onnx's keep_initializers_as_inputs).
  bool initializers_as_inputs = false;
};

struct WriteSummary {
  bool external = false;
  uint64_t model_bytes = 0;
  uint64_t external_bytes = 0;
  uint64_t initializer_bytes = 0;
};

// Writes `model` to `model_sink` and, when external data is used, the tensor
// bytes to `data_sink` (FailedPrecondition if that is needed but null or no
// location was given). Tensors are written with the bytes the IR holds.
absl::StatusOr<WriteSummary> WriteModel(const ir::Model& model, const WriteOptions& options,
                                        ByteSink& model_sink, ByteSink* data_sink);

// A ModelProto cut where the writer inserts initializers: the serialized
// model fields before and after the graph, and the graph's fields without
// initializers (they go last in the graph).
struct ModelFraming {
  std::string before_graph;
  std::string graph_fields;
  std::string after_graph;
};

// The framing WriteModel uses for `model` (initializers as inputs if asked).
ModelFraming FrameModel(const ir::Model& model, const WriteOptions& options);

// Writes `framing` with `initializers` appended to its graph (none when
// !options.include_initializers), inline or external as WriteModel does.
absl::StatusOr<WriteSummary> WriteFramedModel(const ModelFraming& framing,
                                              const std::vector<ir::Initializer>& initializers,
                                              const WriteOptions& options, ByteSink& model_sink,
                                              ByteSink* data_sink);

// Total bytes of all initializers (to decide on external data up front).
uint64_t InitializerBytes(const ir::Model& model);

// Whether WriteModel will put weights in an external data file, so callers
// can open that file before writing.
bool UsesExternalData(uint64_t initializer_bytes, const WriteOptions& options);

// The whole model as one ModelProto, weights copied in (for the checker,
// tests and small models).
::onnx::ModelProto ToModelProto(const ir::Model& model);
// The same with initializers reduced to name, dtype and dims (no bytes, but
// constants of at most 1 KiB not from the input file keep theirs): for
// shape inference of models of any size.
::onnx::ModelProto ToModelProtoWithoutWeightData(const ir::Model& model);

}  // namespace pt2onnx::onnx_writer

#endif  // PT2ONNX_CORE_ONNX_MODEL_WRITER_H_
