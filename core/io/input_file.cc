#include "core/io/input_file.h"

#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx {

absl::Status InputFile::CheckRange(FileRange range, absl::string_view what) const {
  const uint64_t total = size();
  if (range.offset > total || range.length > total - range.offset) {
    return absl::OutOfRangeError(absl::StrCat(
        what, ": ", range.length, " bytes at offset ", range.offset, " run past the end of the ",
        total, "-byte file (truncated download?)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ByteSpan> InputFile::Read(FileRange range) const {
  PT2ONNX_RETURN_IF_ERROR(CheckRange(range, "read"));
  if (range.length > std::numeric_limits<size_t>::max()) {
    // wasm32: a span cannot hold it (a multi-GB record that must be parsed).
    return absl::OutOfRangeError(absl::StrCat("read: ", range.length, " bytes at offset ",
                                              range.offset, " do not fit in this build's memory"));
  }
  if (std::optional<ByteSpan> all = InMemory()) {
    return all->subspan(static_cast<size_t>(range.offset), static_cast<size_t>(range.length));
  }
  std::string& copy = copies_.emplace_back(static_cast<size_t>(range.length), '\0');
  absl::Status read = ReadInto(
      range.offset, absl::MakeSpan(reinterpret_cast<uint8_t*>(copy.data()), copy.size()));
  if (!read.ok()) {
    copies_.pop_back();
    return read;
  }
  return AsBytes(copy);
}

MemoryFile::MemoryFile(std::string bytes) : owned_(std::move(bytes)), bytes_(AsBytes(owned_)) {}

absl::Status MemoryFile::ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const {
  PT2ONNX_RETURN_IF_ERROR(CheckRange({offset, dst.size()}, "read"));
  if (!dst.empty()) std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
  return absl::OkStatus();
}

}  // namespace pt2onnx
