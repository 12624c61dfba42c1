// File: native/spliced_crc.h
// -----------------------------------------------------------------------------
// The weights' CRC-32 checked in the same pass that splices them: a sink
// wrapper copies each stored zip entry in 8 MiB pieces (copy_file_range, see
// weight_splice.h) and reads each piece back from the page cache, where the
// copy has just put it, into a 1 MiB buffer for the CRC. The input is read
// from disk once instead of twice (a check before converting read it all
// first, from disk again when the page cache could not hold it). Entries not
// spliced whole (weights the optimizer read and folded, unused ones) are
// checked by VerifyRest before the output is committed, so a corrupt .pt2
// still fails the conversion (exit 4, naming the entry) and leaves no file.
//
//   PT2ONNX_ASSIGN_OR_RETURN(auto check, SplicedCrcCheck::Create(input));
//   SplicedCrcCheck::Sink checked(*check, file_sink);   // write through `checked`
//   ... WriteModel(...) ...; PT2ONNX_RETURN_IF_ERROR(check->VerifyRest());
#ifndef PT2ONNX_NATIVE_SPLICED_CRC_H_
#define PT2ONNX_NATIVE_SPLICED_CRC_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/archive/zip_reader.h"
#include "core/io/byte_sink.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {

class SplicedCrcCheck {
 public:
  // Reads the zip directory of `input` (which the conversion already parsed).
  static absl::StatusOr<std::unique_ptr<SplicedCrcCheck>> Create(
      std::shared_ptr<const FdInputFile> input);

  // Forwards to `inner`; a slice that is exactly one stored entry's data is
  // copied with its CRC checked (DataLoss naming the entry on a mismatch).
  class Sink : public ByteSink {
   public:
    Sink(SplicedCrcCheck& check, ByteSink& inner) : check_(check), inner_(inner) {}
    absl::Status Write(ByteSpan bytes) override { return inner_.Write(bytes); }
    absl::Status WriteSlice(const FileSlice& slice) override;

   private:
    SplicedCrcCheck& check_;
    ByteSink& inner_;
  };

  // Checks the stored entries no Sink has checked (reads each once).
  absl::Status VerifyRest();
  // Whether a mismatch was found (the write error is then a corrupt input).
  bool found_corrupt() const { return found_corrupt_; }
  // Bytes checked while they were copied, and read again by VerifyRest.
  uint64_t checked_during_copy() const { return checked_during_copy_; }
  uint64_t checked_after() const { return checked_after_; }

 private:
  struct Pending {
    const archive::ZipEntry* entry;
    uint64_t length;
    bool checked = false;
  };
  SplicedCrcCheck(std::shared_ptr<const FdInputFile> input, archive::ZipArchive zip)
      : input_(std::move(input)), zip_(std::move(zip)) {}
  absl::Status CopyChecked(Pending& pending, const FileSlice& slice, ByteSink& inner);

  std::shared_ptr<const FdInputFile> input_;
  archive::ZipArchive zip_;
  std::map<uint64_t, Pending> by_offset_;  // stored entries by absolute data offset
  std::vector<uint8_t> buffer_;
  bool found_corrupt_ = false;
  uint64_t checked_during_copy_ = 0;
  uint64_t checked_after_ = 0;
};

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_SPLICED_CRC_H_
