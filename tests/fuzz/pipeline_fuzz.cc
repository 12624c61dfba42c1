// Fuzz target: the whole conversion of a mutated .pt2 (read, translate,
// optimize, verify, serialize), with every CRC checked as the CLI does.
// Seeded from tests/fixtures; the mutator works on whole archives, so seeds
// are small .pt2 files (see tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "export/converter.h"
#include "core/onnx/model_writer.h"
#include "translate/registry.h"

namespace {

class NullSink : public pt2onnx::onnx_writer::ByteSink {
 public:
  absl::Status Write(pt2onnx::ByteSpan) override { return absl::OkStatus(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const pt2onnx::ops::OpRegistry* const registry =
      new pt2onnx::ops::OpRegistry(pt2onnx::ops::CreateDefaultRegistry());
  pt2onnx::ConvertOptions options;
  options.registry = registry;
  options.verify_weight_crc = true;
  absl::StatusOr<pt2onnx::Conversion> conversion =
      pt2onnx::ConvertPt2(pt2onnx::ByteSpan(data, size), options, nullptr);
  if (!conversion.ok()) return 0;
  NullSink model, weights;
  pt2onnx::onnx_writer::WriteOptions write;
  (void)pt2onnx::onnx_writer::WriteModel(conversion->model, write, model, &weights);
  return 0;
}
