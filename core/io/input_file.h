// File: core/io/input_file.h
// -----------------------------------------------------------------------------
// InputFile: the .pt2 being converted, read by offset. The native CLI reads
// it with pread (native/weight_splice.h's FdInputFile: only what is parsed
// enters the process; the kernel copies the weights into the output); tests
// and tools may wrap bytes already in memory (MemoryFile); in a browser tab it is
// a File of possibly several GB that wasm32 cannot even address, so core/
// reads only what it must interpret (the zip directory, the program JSON,
// pickles) and refers to weights by FileRange. Writers then splice those
// ranges into the output without the bytes ever passing through core/.
//
//   auto file = std::make_shared<MemoryFile>(mapped_bytes);
//   PT2ONNX_ASSIGN_OR_RETURN(ByteSpan json, file->Read({offset, length}));
//
// Lifetimes: spans returned by Read stay valid until the InputFile is
// destroyed. Files are shared (std::shared_ptr<const InputFile>) by every
// weight and IR tensor that refers to them, so they live as long as needed.
// Not thread-safe: core/ is single-threaded.
#ifndef PT2ONNX_CORE_IO_INPUT_FILE_H_
#define PT2ONNX_CORE_IO_INPUT_FILE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/bytes.h"

namespace pt2onnx {

// A byte range of an InputFile, in absolute file offsets.
struct FileRange {
  uint64_t offset = 0;
  uint64_t length = 0;

  uint64_t end() const { return offset + length; }
  friend bool operator==(const FileRange& a, const FileRange& b) {
    return a.offset == b.offset && a.length == b.length;
  }
};

class InputFile;

// A range of a shared InputFile: how weights refer to their bytes.
struct FileSlice {
  std::shared_ptr<const InputFile> file;
  FileRange range;

  uint64_t size() const { return range.length; }
  bool empty() const { return range.length == 0; }
  // The sub-range [offset, offset + length) of this slice; the caller checks
  // that it fits.
  FileSlice Sub(uint64_t offset, uint64_t length) const {
    return FileSlice{file, FileRange{range.offset + offset, length}};
  }
};

class InputFile {
 public:
  InputFile() = default;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  virtual ~InputFile() = default;

  virtual uint64_t size() const = 0;

  // ReadInto copies bytes [offset, offset + dst.size()) into `dst`.
  // OutOfRange past the end; a medium that can fail (a browser File removed
  // while being read) reports Unavailable naming the cause.
  virtual absl::Status ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const = 0;

  // The whole file, when it is in memory (mmap, an ArrayBuffer); nullopt when
  // it is read piece by piece. Lets native code view weights with no copy.
  virtual std::optional<ByteSpan> InMemory() const { return std::nullopt; }

  // Read returns the bytes of `range`: a view when the file is in memory,
  // otherwise a copy kept until this InputFile is destroyed. Use it for what
  // must be parsed (small), never to stream weights (see ReadInto).
  absl::StatusOr<ByteSpan> Read(FileRange range) const;

  // OutOfRange naming `what` unless `range` lies inside the file.
  absl::Status CheckRange(FileRange range, absl::string_view what) const;

 private:
  mutable std::deque<std::string> copies_;  // backs Read on streamed files
};

// An InputFile over bytes already in memory (an mmap, a test buffer), which
// the caller keeps alive for as long as the MemoryFile and its readers.
class MemoryFile : public InputFile {
 public:
  explicit MemoryFile(ByteSpan bytes) : bytes_(bytes) {}
  // Owns a copy, for tests and small in-memory inputs.
  explicit MemoryFile(std::string bytes);

  uint64_t size() const override { return bytes_.size(); }
  absl::Status ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const override;
  std::optional<ByteSpan> InMemory() const override { return bytes_; }

 private:
  std::string owned_;
  ByteSpan bytes_;
};

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_IO_INPUT_FILE_H_
