#include "native/spliced_crc.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/archive/crc32.h"
#include "core/status_macros.h"

namespace pt2onnx::native {
namespace {

// Copied per system call, then read back for the CRC while still cached.
constexpr uint64_t kPieceBytes = uint64_t{8} << 20;
// The read-back buffer: small enough to stay in the CPU's cache.
constexpr size_t kBufferBytes = size_t{1} << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<SplicedCrcCheck>> SplicedCrcCheck::Create(
    std::shared_ptr<const FdInputFile> input) {
  PT2ONNX_ASSIGN_OR_RETURN(archive::ZipArchive zip, archive::ZipArchive::Open(input));
  std::unique_ptr<SplicedCrcCheck> check(new SplicedCrcCheck(std::move(input), std::move(zip)));
  for (const archive::ZipEntry& entry : check->zip_.entries()) {
    if (entry.method != 0 || entry.compressed_size == 0) continue;  // as LoadPt2's check
    PT2ONNX_ASSIGN_OR_RETURN(FileRange range, check->zip_.Locate(entry));
    check->by_offset_.emplace(range.offset, Pending{&entry, range.length});
  }
  return check;
}

absl::Status SplicedCrcCheck::Sink::WriteSlice(const FileSlice& slice) {
  if (slice.file.get() == check_.input_.get()) {
    auto found = check_.by_offset_.find(slice.range.offset);
    if (found != check_.by_offset_.end() && !found->second.checked &&
        found->second.length == slice.range.length) {
      return check_.CopyChecked(found->second, slice, inner_);
    }
  }
  return inner_.WriteSlice(slice);
}

absl::Status SplicedCrcCheck::CopyChecked(Pending& pending, const FileSlice& slice,
                                          ByteSink& inner) {
  if (buffer_.empty()) buffer_.resize(kBufferBytes);
  uint32_t crc = 0;
  const uint64_t length = slice.range.length;
  for (uint64_t done = 0; done < length;) {
    const uint64_t piece = std::min(kPieceBytes, length - done);
    PT2ONNX_RETURN_IF_ERROR(inner.WriteSlice(slice.Sub(done, piece)));
    for (uint64_t read = 0; read < piece;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buffer_.size(), piece - read));
      absl::Span<uint8_t> part(buffer_.data(), n);
      PT2ONNX_RETURN_IF_ERROR(input_->ReadInto(slice.range.offset + done + read, part));
      crc = archive::Crc32(part, crc);
      read += n;
    }
    done += piece;
  }
  pending.checked = true;
  checked_during_copy_ += length;
  if (crc == pending.entry->crc32) return absl::OkStatus();
  found_corrupt_ = true;
  // The archive's own check words the error (and re-reads the entry).
  absl::Status again = zip_.VerifyCrc32(*pending.entry);
  if (!again.ok()) return again;
  return absl::DataLossError(absl::StrCat("zip entry '", pending.entry->name,
                                          "' changed while it was copied"));
}

absl::Status SplicedCrcCheck::VerifyRest() {
  for (auto& [offset, pending] : by_offset_) {
    if (pending.checked) continue;
    if (absl::Status verified = zip_.VerifyCrc32(*pending.entry); !verified.ok()) {
      found_corrupt_ = true;
      return verified;
    }
    pending.checked = true;
    checked_after_ += pending.length;
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::native
