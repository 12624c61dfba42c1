// File: wasm/parts_sink.h
// -----------------------------------------------------------------------------
// PartsSink: a ByteSink that records the output as parts for a JavaScript
// Blob: bytes written by the writer (protobuf framing, the graph, converted
// tensors) and slices of the input file (weights used as they are). The
// browser then builds `new Blob([bytes, file.slice(a, b), ...])`, which
// copies no weight bytes; that is what lets a multi-GB model convert in a
// tab whose wasm memory holds only the graph.
//
// Plain C++ (no Emscripten), so it is tested natively.
#ifndef PT2ONNX_WASM_PARTS_SINK_H_
#define PT2ONNX_WASM_PARTS_SINK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/io/input_file.h"
#include "core/onnx/model_writer.h"

namespace pt2onnx::wasm {

struct OutputPart {
  bool is_slice = false;
  std::string bytes;  // when !is_slice
  FileRange slice;    // when is_slice: a range of `input`
};

class PartsSink : public onnx_writer::ByteSink {
 public:
  // Slices of `input` become slice parts; slices of any other file are
  // copied in (the base behaviour). `input` must outlive the sink.
  explicit PartsSink(const InputFile* input) : input_(input) {}

  absl::Status Write(ByteSpan bytes) override;
  absl::Status WriteSlice(const FileSlice& slice) override;

  const std::vector<OutputPart>& parts() const { return parts_; }
  uint64_t size() const { return size_; }
  // Bytes written as slices of the input (referenced, not copied).
  uint64_t sliced_bytes() const { return sliced_bytes_; }

 private:
  const InputFile* input_;
  std::vector<OutputPart> parts_;
  uint64_t size_ = 0;
  uint64_t sliced_bytes_ = 0;
};

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_PARTS_SINK_H_
