// File: core/archive/zip_end_record.cc
// -----------------------------------------------------------------------------
// Finding and checking the end records of a zip: the end-of-central-directory
// record (after an optional comment), the ZIP64 locator and record, and the
// bounds they give the central directory.
#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/archive/zip_records.h"
#include "core/status_macros.h"

namespace pt2onnx::archive {
namespace {

// Position of the EOCD record in `tail`, the last bytes of a `size`-byte zip.
absl::StatusOr<uint64_t> FindEocd(ByteSpan tail, uint64_t size) {
  // The EOCD is followed only by its comment (at most 64 KiB), so scan back
  // from the end; the last record whose comment fits the file wins, which
  // skips a signature that happens to appear inside a comment.
  for (uint64_t pos = tail.size() - kEocdSize + 1; pos-- > 0;) {
    const uint8_t* p = tail.data() + pos;
    if (Le32(p) != kEocdSig) continue;
    if (pos + kEocdSize + Le16(p + 20) <= tail.size()) return pos;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "not a zip archive: no end-of-central-directory record in the last ",
      tail.size(), " bytes of ", size));
}

}  // namespace

absl::StatusOr<EndRecord> ReadEndRecord(const WindowReader& zip) {
  const uint64_t size = zip.size();
  if (size < kEocdSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a zip archive: ", size,
        " bytes is shorter than an end-of-central-directory record"));
  }
  // Archives rarely carry a comment, so look in a short tail first and only
  // then in the longest one a comment allows: every byte read is a copy
  // when the file is streamed.
  uint64_t tail_size = std::min<uint64_t>(size, kShortTail);
  uint64_t tail_base = size - tail_size;
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan tail, zip.Read(tail_base, tail_size));
  absl::StatusOr<uint64_t> found = FindEocd(tail, size);
  if (!found.ok() && tail_size < std::min<uint64_t>(size, kEocdSize + kMaxCommentSize)) {
    tail_size = std::min<uint64_t>(size, kEocdSize + kMaxCommentSize);
    tail_base = size - tail_size;
    PT2ONNX_ASSIGN_OR_RETURN(tail, zip.Read(tail_base, tail_size));
    found = FindEocd(tail, size);
  }
  if (!found.ok()) return found.status();
  EndRecord end;
  const uint64_t eocd_in_tail = *found;
  end.eocd_offset = tail_base + eocd_in_tail;
  const uint8_t* p = tail.data() + eocd_in_tail;
  const uint16_t disk = Le16(p + 4);
  const uint16_t cd_disk = Le16(p + 6);
  end.entry_count = Le16(p + 10);
  end.cd_size = Le32(p + 12);
  end.cd_offset = Le32(p + 16);
  end.cd_limit = end.eocd_offset;
  uint32_t disk32 = disk, cd_disk32 = cd_disk;

  // A ZIP64 locator sits right before the classic EOCD. PyTorchFileWriter
  // always writes one; Python's zipfile only for large archives.
  ByteSpan locator_bytes;
  if (end.eocd_offset >= kZip64LocatorSize) {
    PT2ONNX_ASSIGN_OR_RETURN(locator_bytes,
                             zip.Read(end.eocd_offset - kZip64LocatorSize, kZip64LocatorSize));
  }
  if (!locator_bytes.empty() && Le32(locator_bytes.data()) == kZip64LocatorSig) {
    const uint64_t locator = end.eocd_offset - kZip64LocatorSize;
    const uint64_t z64 = Le64(locator_bytes.data() + 8);
    if (!InRange(z64, kZip64EocdSize, locator)) {
      return Malformed(absl::StrCat("ZIP64 locator points to offset ", z64,
                                    ", past the locator itself"),
                       locator);
    }
    PT2ONNX_ASSIGN_OR_RETURN(ByteSpan record, zip.Read(z64, kZip64EocdSize));
    const uint8_t* q = record.data();
    if (Le32(q) != kZip64EocdSig) {
      return Malformed("missing ZIP64 end-of-central-directory signature", z64);
    }
    disk32 = Le32(q + 16);
    cd_disk32 = Le32(q + 20);
    end.entry_count = Le64(q + 32);
    end.cd_size = Le64(q + 40);
    end.cd_offset = Le64(q + 48);
    end.cd_limit = z64;
  } else if (end.entry_count == 0xFFFF || end.cd_size == 0xFFFFFFFF ||
             end.cd_offset == 0xFFFFFFFF) {
    return Malformed(
        "end-of-central-directory record needs ZIP64 values but there is no "
        "ZIP64 locator",
        end.eocd_offset);
  }
  if (disk32 != 0 || cd_disk32 != 0) {
    return absl::UnimplementedError(
        "multi-disk (split) zip archives are not supported; join the parts "
        "into one file");
  }
  if (!InRange(end.cd_offset, end.cd_size, end.cd_limit)) {
    return Malformed(
        absl::StrCat("central directory (offset ", end.cd_offset, ", size ",
                     end.cd_size, ") runs past the end records at offset ",
                     end.cd_limit),
        end.eocd_offset);
  }
  if (end.entry_count > end.cd_size / kCentralHeaderSize) {
    return Malformed(absl::StrCat("end record claims ", end.entry_count,
                                  " entries in a ", end.cd_size,
                                  "-byte central directory"),
                     end.eocd_offset);
  }
  return end;
}

}  // namespace pt2onnx::archive
