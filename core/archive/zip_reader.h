// File: core/archive/zip_reader.h
// -----------------------------------------------------------------------------
// ZipArchive: a read-only view of a ZIP file, the container of every .pt2 and
// torch.save file. It parses the central directory (classic and ZIP64) once;
// entries are then either read (small records that must be parsed) or only
// located (weights, which writers splice into the output by file range), so
// weights are never copied.
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
//                            archive::ZipArchive::Open(file));
//   PT2ONNX_ASSIGN_OR_RETURN(ByteSpan json,
//                            zip.Read("model/models/model.json"));
//   PT2ONNX_ASSIGN_OR_RETURN(FileRange weight, zip.Locate(*entry));
//
// Lifetimes: the archive shares ownership of its InputFile; spans it returns
// live as long as that file (core/input_file.h). The archive itself is a
// small copyable value (entry table + index).
#ifndef PT2ONNX_CORE_ARCHIVE_ZIP_READER_H_
#define PT2ONNX_CORE_ARCHIVE_ZIP_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/bytes.h"
#include "core/io/input_file.h"

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
  // Open parses the end records and the central directory of the zip held in
  // `window` of `file` (all of it by default; a torch.save record nested in
  // a .pt2 otherwise). Offsets in the zip are relative to the window.
  // InvalidArgument for a non-zip, a malformed or truncated file, or duplicate
  // entry names, naming what was wrong and at which offset; Unimplemented for
  // multi-disk archives. Entry data is not touched until Read or Locate.
  static absl::StatusOr<ZipArchive> Open(std::shared_ptr<const InputFile> file);
  static absl::StatusOr<ZipArchive> Open(std::shared_ptr<const InputFile> file,
                                         FileRange window);
  // Over bytes in memory, which must outlive the archive (tests).
  static absl::StatusOr<ZipArchive> Open(ByteSpan bytes);

  // Entries in central-directory order.
  const std::vector<ZipEntry>& entries() const { return entries_; }

  // Find returns the entry named exactly `name`, or nullptr. O(log n).
  const ZipEntry* Find(absl::string_view name) const;

  // Locate returns where the entry's data lies in the file (absolute
  // offsets), without reading it. `entry` must come from this archive.
  // Unimplemented for compressed or encrypted entries; InvalidArgument for a
  // bad local header; OutOfRange if the data runs past the end of the zip.
  absl::StatusOr<FileRange> Locate(const ZipEntry& entry) const;

  // Read returns the entry's bytes (InputFile::Read: a view for in-memory
  // files, a copy otherwise) after checking their CRC-32 (DataLoss on a
  // mismatch). Otherwise the same errors as Locate.
  absl::StatusOr<ByteSpan> Read(const ZipEntry& entry) const;
  // Same, by name; NotFound naming the entry when absent.
  absl::StatusOr<ByteSpan> Read(absl::string_view name) const;

  // DataOffset is the offset of the entry's data from the start of the zip:
  // local_header_offset + 30 + local name length + local extra length.
  // Checks the local header as Read does, but not the method or data range.
  absl::StatusOr<uint64_t> DataOffset(const ZipEntry& entry) const;

  // VerifyCrc32 recomputes the CRC of a STORED entry's data (reads all of
  // it, in 1 MiB pieces when the file is streamed, so callers choose when that
  // cost is worth it: located weights). DataLoss on mismatch.
  absl::Status VerifyCrc32(const ZipEntry& entry) const;

  const std::shared_ptr<const InputFile>& file() const { return file_; }
  FileRange window() const { return window_; }

 private:
  ZipArchive() = default;
  absl::Status CheckCrc(const ZipEntry& entry, uint32_t crc) const;

  std::shared_ptr<const InputFile> file_;
  FileRange window_;
  std::vector<ZipEntry> entries_;
  std::vector<uint32_t> by_name_;  // indices into entries_, sorted by name
};

}  // namespace pt2onnx::archive

#endif  // PT2ONNX_CORE_ARCHIVE_ZIP_READER_H_
