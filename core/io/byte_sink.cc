#include "core/io/byte_sink.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "core/status_macros.h"

namespace pt2onnx {

absl::Status ByteSink::WriteSlice(const FileSlice& slice) {
  if (std::optional<ByteSpan> all = slice.file->InMemory()) {
    PT2ONNX_RETURN_IF_ERROR(slice.file->CheckRange(slice.range, "weight"));
    return Write(all->subspan(slice.range.offset, slice.range.length));
  }
  constexpr uint64_t kPiece = uint64_t{4} << 20;
  std::string buffer(static_cast<size_t>(std::min(kPiece, slice.range.length)), '\0');
  for (uint64_t done = 0; done < slice.range.length;) {
    const uint64_t n = std::min<uint64_t>(buffer.size(), slice.range.length - done);
    auto piece = absl::MakeSpan(reinterpret_cast<uint8_t*>(buffer.data()), static_cast<size_t>(n));
    PT2ONNX_RETURN_IF_ERROR(slice.file->ReadInto(slice.range.offset + done, piece));
    PT2ONNX_RETURN_IF_ERROR(Write(piece));
    done += n;
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx
