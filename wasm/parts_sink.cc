#include "wasm/parts_sink.h"

namespace pt2onnx::wasm {

absl::Status PartsSink::Write(ByteSpan bytes) {
  if (bytes.empty()) return absl::OkStatus();
  if (parts_.empty() || parts_.back().is_slice) parts_.emplace_back();
  parts_.back().bytes.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  size_ += bytes.size();
  return absl::OkStatus();
}

absl::Status PartsSink::WriteSlice(const FileSlice& slice) {
  if (slice.file.get() != input_) return ByteSink::WriteSlice(slice);
  if (slice.empty()) return absl::OkStatus();
  // Tensors stored back to back in the archive become one Blob part.
  if (!parts_.empty() && parts_.back().is_slice && parts_.back().slice.end() == slice.range.offset) {
    parts_.back().slice.length += slice.range.length;
  } else {
    OutputPart part;
    part.is_slice = true;
    part.slice = slice.range;
    parts_.push_back(std::move(part));
  }
  size_ += slice.range.length;
  sliced_bytes_ += slice.range.length;
  return absl::OkStatus();
}

}  // namespace pt2onnx::wasm
