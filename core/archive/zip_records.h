// File: core/archive/zip_records.h
// -----------------------------------------------------------------------------
// The record layouts of a zip (PKWARE APPNOTE) shared by zip_reader.cc and
// zip_end_record.cc: signatures and sizes, little-endian reads, the
// overflow-free range check, and the reader of the archive's window. Internal
// to //core/archive (not in its hdrs).
#ifndef PT2ONNX_CORE_ARCHIVE_ZIP_RECORDS_H_
#define PT2ONNX_CORE_ARCHIVE_ZIP_RECORDS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/archive/zip_reader.h"

namespace pt2onnx::archive {

// Record signatures and fixed sizes (PKWARE APPNOTE 4.3).
inline constexpr uint32_t kLocalHeaderSig = 0x04034b50;
inline constexpr uint32_t kCentralHeaderSig = 0x02014b50;
inline constexpr uint32_t kEocdSig = 0x06054b50;
inline constexpr uint32_t kZip64EocdSig = 0x06064b50;
inline constexpr uint32_t kZip64LocatorSig = 0x07064b50;
inline constexpr uint64_t kLocalHeaderSize = 30;
inline constexpr uint64_t kCentralHeaderSize = 46;
inline constexpr uint64_t kEocdSize = 22;
inline constexpr uint64_t kZip64EocdSize = 56;
inline constexpr uint64_t kZip64LocatorSize = 20;
inline constexpr uint64_t kMaxCommentSize = 0xFFFF;
inline constexpr uint64_t kShortTail = 1024;
inline constexpr uint16_t kZip64ExtraTag = 0x0001;
inline constexpr uint16_t kFlagEncrypted = 0x0001;

inline uint16_t Le16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline uint32_t Le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t Le64(const uint8_t* p) {
  return static_cast<uint64_t>(Le32(p)) |
         (static_cast<uint64_t>(Le32(p + 4)) << 32);
}

// True if [offset, offset + size) lies inside a buffer of `total` bytes,
// written so that no addition can overflow.
inline bool InRange(uint64_t offset, uint64_t size, uint64_t total) {
  return offset <= total && size <= total - offset;
}

inline absl::Status Malformed(absl::string_view what, uint64_t offset) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed zip: ", what, " at offset ", offset));
}

// Reads parts of the zip that lives in `window` of `file`; offsets are
// relative to the window, and ranges are checked against it.
class WindowReader {
 public:
  WindowReader(const InputFile& file, FileRange window) : file_(file), window_(window) {}
  uint64_t size() const { return window_.length; }
  absl::StatusOr<ByteSpan> Read(uint64_t offset, uint64_t length) const {
    if (!InRange(offset, length, window_.length)) {
      return absl::OutOfRangeError(absl::StrCat("zip: ", length, " bytes at offset ", offset,
                                                " run past the end of the ", window_.length,
                                                "-byte archive (truncated download?)"));
    }
    return file_.Read({window_.offset + offset, length});
  }

 private:
  const InputFile& file_;
  FileRange window_;
};

// Values from the end records, ZIP64 ones already substituted.
struct EndRecord {
  uint64_t eocd_offset = 0;
  uint64_t entry_count = 0;
  uint64_t cd_size = 0;
  uint64_t cd_offset = 0;
  uint64_t cd_limit = 0;  // the central directory must end before this
};

// Reads and checks the end records (classic and ZIP64) at the end of `zip`.
absl::StatusOr<EndRecord> ReadEndRecord(const WindowReader& zip);

}  // namespace pt2onnx::archive

#endif  // PT2ONNX_CORE_ARCHIVE_ZIP_RECORDS_H_
