// ZipArchive's CRC-32 checks: every entry read whole is checked as it is
// read; STORED weights can be checked on demand without holding them.
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"
#include "core/status_macros.h"

namespace pt2onnx::archive {

absl::Status ZipArchive::CheckCrc(const ZipEntry& entry, uint32_t crc) const {
  if (crc == entry.crc32) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      "zip entry '", entry.name, "' is corrupt: its CRC-32 is ", absl::Hex(crc),
      ", the central directory says ", absl::Hex(entry.crc32)));
}

absl::Status ZipArchive::VerifyCrc32(const ZipEntry& entry) const {
  PT2ONNX_ASSIGN_OR_RETURN(FileRange range, Locate(entry));
  uint32_t crc = 0;
  if (std::optional<ByteSpan> all = file_->InMemory()) {
    crc = Crc32(all->subspan(range.offset, range.length));
  } else {
    // Streamed files: a fixed buffer, never the whole entry in memory.
    std::vector<uint8_t> buffer(std::min<uint64_t>(range.length, uint64_t{1} << 20));
    for (uint64_t done = 0; done < range.length;) {
      const uint64_t n = std::min<uint64_t>(buffer.size(), range.length - done);
      absl::Span<uint8_t> piece(buffer.data(), n);
      PT2ONNX_RETURN_IF_ERROR(file_->ReadInto(range.offset + done, piece));
      crc = Crc32(piece, crc);
      done += n;
    }
  }
  return CheckCrc(entry, crc);
}

}  // namespace pt2onnx::archive
