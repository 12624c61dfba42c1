#include "wasm/parts_sink.h"

#include <algorithm>

namespace pt2onnx::wasm {

absl::Status PartsSink::Write(ByteSpan bytes) {
  size_ += bytes.size();
  while (!bytes.empty()) {
    if (chunks_.empty() || chunks_.back().size() >= chunk_bytes_) {
      if (!chunks_.empty() && chunk_done_) chunk_done_(chunks_.size() - 1, chunks_.back());
      chunks_.emplace_back();
    }
    std::string& chunk = chunks_.back();
    const uint32_t index = static_cast<uint32_t>(chunks_.size() - 1);
    const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes.size(), chunk_bytes_ - chunk.size()));
    if (parts_.empty() || parts_.back().is_slice || parts_.back().chunk != index) {
      parts_.push_back(OutputPart{false, index, FileRange{chunk.size(), 0}});
    }
    chunk.append(reinterpret_cast<const char*>(bytes.data()), n);
    parts_.back().range.length += n;
    bytes = bytes.subspan(n);
  }
  return absl::OkStatus();
}

absl::Status PartsSink::WriteSlice(const FileSlice& slice) {
  if (slice.file.get() != input_) return ByteSink::WriteSlice(slice);
  if (slice.empty()) return absl::OkStatus();
  // Tensors stored back to back in the archive become one Blob part.
  if (!parts_.empty() && parts_.back().is_slice && parts_.back().range.end() == slice.range.offset) {
    parts_.back().range.length += slice.range.length;
  } else {
    parts_.push_back(OutputPart{true, 0, slice.range});
  }
  size_ += slice.range.length;
  sliced_bytes_ += slice.range.length;
  return absl::OkStatus();
}

}  // namespace pt2onnx::wasm
