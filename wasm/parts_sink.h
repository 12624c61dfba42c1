// File: wasm/parts_sink.h
// -----------------------------------------------------------------------------
// PartsSink: a ByteSink that records the output as parts for a JavaScript
// Blob: bytes written by the writer (protobuf framing, the graph, converted
// tensors) and slices of the input file (weights used as they are). The
// browser then builds `new Blob([bytes, file.slice(a, b), ...])`, which
// copies no weight bytes; that is what lets a multi-GB model convert in a
// tab whose wasm memory holds only the graph. The written bytes are kept in
// chunks of up to 64 MiB, each copied out of wasm memory in one piece; a
// full chunk can be handed over at once (SetChunkDone), so weights the
// optimizer re-laid out (a transposed weight) are not held twice in wasm
// memory, and no buffer the size of all of them is ever needed.
//
// Plain C++ (no Emscripten), so it is tested natively.
#ifndef PT2ONNX_WASM_PARTS_SINK_H_
#define PT2ONNX_WASM_PARTS_SINK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/io/byte_sink.h"
#include "core/io/input_file.h"

namespace pt2onnx::wasm {

struct OutputPart {
  bool is_slice = false;
  // Written bytes: the index of their chunk (PartsSink::chunks()).
  uint32_t chunk = 0;
  // is_slice: a range of the input file; else a range of the chunk.
  FileRange range;
};

class PartsSink : public ByteSink {
 public:
  // Slices of `input` become slice parts; slices of any other file are
  // copied in (the base behaviour). `input` must outlive the sink.
  explicit PartsSink(const InputFile* input, uint64_t chunk_bytes = kChunkBytes)
      : input_(input), chunk_bytes_(chunk_bytes) {}

  static constexpr uint64_t kChunkBytes = uint64_t{64} << 20;
  // Called with each chunk once it is full (its index and bytes); it may
  // move the bytes out (chunks() then keeps an empty string). The last chunk
  // is never handed over: it stays in chunks().
  void SetChunkDone(std::function<void(size_t, std::string&)> done) { chunk_done_ = std::move(done); }

  absl::Status Write(ByteSpan bytes) override;
  absl::Status WriteSlice(const FileSlice& slice) override;

  const std::vector<OutputPart>& parts() const { return parts_; }
  // The written (not sliced) bytes in order, in chunks; bytes parts are
  // ranges of one chunk.
  const std::vector<std::string>& chunks() const { return chunks_; }
  uint64_t size() const { return size_; }
  // Bytes written as slices of the input (referenced, not copied).
  uint64_t sliced_bytes() const { return sliced_bytes_; }

 private:
  const InputFile* input_;
  uint64_t chunk_bytes_;
  std::function<void(size_t, std::string&)> chunk_done_;
  std::vector<OutputPart> parts_;
  std::vector<std::string> chunks_;
  uint64_t size_ = 0;
  uint64_t sliced_bytes_ = 0;
};

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_PARTS_SINK_H_
