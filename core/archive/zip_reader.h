// File: core/archive/zip_reader.h
// -----------------------------------------------------------------------------
// ZipArchive: a read-only view of a ZIP file held in memory, the container of
// every .pt2 and torch.save file. It parses the central directory (classic and
// ZIP64) once and hands out entry contents as spans into the input, so weights
// are never copied.
//
// Two writers matter (docs/pt2-format.md 1.1, 2): PyTorchFileWriter (one root
// folder, flag 0x0808 with data descriptors, "FB" padding so data starts on a
// 64-byte boundary, ZIP64 end records) and Python's zipfile (no root, flag 0,
// no alignment). Both store entries uncompressed. Because data descriptors
// leave the local header's sizes at 0, sizes always come from the central
// directory; the data offset comes from the local header (its extra field
// length differs from the central one when padding is present).
//
//   PT2ONNX_ASSIGN_OR_RETURN(archive::ZipArchive zip,
//                            archive::ZipArchive::Open(bytes));
//   PT2ONNX_ASSIGN_OR_RETURN(ByteSpan json,
//                            zip.Read("model/models/model.json"));
//
// Lifetimes: the archive and every span it returns view `bytes`; the caller
// keeps those bytes alive (see core/bytes.h). The archive itself is a small
// copyable value (entry table + index).
#ifndef PT2ONNX_CORE_ARCHIVE_ZIP_READER_H_
#define PT2ONNX_CORE_ARCHIVE_ZIP_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/bytes.h"

namespace pt2onnx::archive {

// One central-directory record, with ZIP64 extras already applied.
struct ZipEntry {
  std::string name;  // raw name bytes, '/' separated (UTF-8 when flag bit 11)
  uint16_t method = 0;  // 0 STORED, 8 DEFLATE
  uint16_t flags = 0;   // general-purpose bits (0x0008 data descriptor, ...)
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;
  uint64_t central_header_offset = 0;  // where this record was read (errors)
};

class ZipArchive {
 public:
  // Open parses the end records and the central directory of `bytes`.
  // InvalidArgument for a non-zip, a malformed or truncated file, or duplicate
  // entry names, naming what was wrong and at which offset; Unimplemented for
  // multi-disk archives. Entry data is not touched until Read.
  static absl::StatusOr<ZipArchive> Open(ByteSpan bytes);

  // Entries in central-directory order.
  const std::vector<ZipEntry>& entries() const { return entries_; }

  // Find returns the entry named exactly `name`, or nullptr. O(log n).
  const ZipEntry* Find(absl::string_view name) const;

  // Read returns the entry's bytes as a view into the archive (no copy).
  // `entry` must come from this archive. Unimplemented for compressed or
  // encrypted entries; InvalidArgument for a bad local header; OutOfRange if
  // the data runs past the end of the file.
  absl::StatusOr<ByteSpan> Read(const ZipEntry& entry) const;
  // Same, by name; NotFound naming the entry when absent.
  absl::StatusOr<ByteSpan> Read(absl::string_view name) const;

  // DataOffset is the absolute offset of the entry's data in bytes():
  // local_header_offset + 30 + local name length + local extra length.
  // Checks the local header as Read does, but not the method or data range.
  absl::StatusOr<uint64_t> DataOffset(const ZipEntry& entry) const;

  // VerifyCrc32 recomputes the CRC of a STORED entry's data (reads all of
  // it, so callers choose when that cost is worth it). DataLoss on mismatch.
  absl::Status VerifyCrc32(const ZipEntry& entry) const;

  ByteSpan bytes() const { return bytes_; }

 private:
  ZipArchive() = default;

  ByteSpan bytes_;
  std::vector<ZipEntry> entries_;
  std::vector<uint32_t> by_name_;  // indices into entries_, sorted by name
};

// Crc32 is the ZIP (IEEE 802.3, reflected) CRC-32 of `data`, continuing from
// `crc` (0 to start), so large inputs can be fed in pieces.
uint32_t Crc32(ByteSpan data, uint32_t crc = 0);

}  // namespace pt2onnx::archive

#endif  // PT2ONNX_CORE_ARCHIVE_ZIP_READER_H_
