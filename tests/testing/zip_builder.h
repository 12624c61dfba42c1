// File: tests/testing/zip_builder.h
// -----------------------------------------------------------------------------
// ZipBuilder: a tiny in-memory ZIP writer for tests, so archive and torch.save
// readers are exercised without binary fixtures. It reproduces the layouts
// docs/pt2-format.md describes:
//   * PyTorchFileWriter (ZipBuilderOptions::PyTorch()): a root folder, flag
//     0x0808 with data descriptors (local CRC/sizes 0), an "FB" padding block
//     so each entry's data starts on a 64-byte boundary, ZIP64 end records.
//   * Python zipfile (ZipBuilderOptions::PythonZipfile()): no root, flag 0,
//     sizes in the local header, no alignment, classic end record only.
// Entries are STORED; AddWithMethod writes a header claiming another method
// (e.g. 8 = DEFLATE) over the given bytes, to test rejection.
//
//   ZipImage zip = ZipBuilder(ZipBuilderOptions::PyTorch("archive"))
//                      .Add("data.pkl", pickle)
//                      .Add("data/0", weights)
//                      .Build();
//
// ZipImage also records where each part landed so tests can corrupt it.
#ifndef PT2ONNX_TESTS_TESTING_ZIP_BUILDER_H_
#define PT2ONNX_TESTS_TESTING_ZIP_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/bytes.h"

namespace pt2onnx::testutil {

struct ZipBuilderOptions {
  std::string root;               // "archive" → entries "archive/<name>"
  bool data_descriptors = false;  // flag 0x0808, descriptor after the data
  uint32_t alignment = 0;         // 0 none; else "FB" padding to this
  bool zip64_eocd = false;        // ZIP64 EOCD + locator before the EOCD
  // With zip64_eocd: write 0xFFFF/0xFFFFFFFF in the classic EOCD so only
  // the ZIP64 record has the real values.
  bool saturate_classic_eocd = false;
  // Central records carry sizes and offset only in a ZIP64 extra field
  // (what writers do past 4 GiB), 32-bit fields set to 0xFFFFFFFF.
  bool zip64_extras = false;
  std::string comment;  // archive comment after the EOCD

  static ZipBuilderOptions PyTorch(std::string root = "archive");
  static ZipBuilderOptions PythonZipfile();
};

struct ZipImage {
  std::string bytes;
  std::vector<uint64_t> local_header_offsets;  // per entry, in Add order
  std::vector<uint64_t> data_offsets;          // per entry, in Add order
  uint64_t cd_offset = 0;
  uint64_t cd_size = 0;
  uint64_t zip64_eocd_offset = 0;  // 0 when not written
  uint64_t eocd_offset = 0;

  ByteSpan span() const { return AsBytes(bytes); }
};

class ZipBuilder {
 public:
  explicit ZipBuilder(ZipBuilderOptions options);

  // Adds a STORED entry; `name` is relative to the root folder.
  ZipBuilder& Add(absl::string_view name, absl::string_view data);
  // Adds an entry whose headers claim `method`; `data` is written verbatim.
  ZipBuilder& AddWithMethod(absl::string_view name, absl::string_view data,
                            uint16_t method);

  ZipImage Build() const;

 private:
  struct Entry {
    std::string name;  // full name, root included
    std::string data;
    uint16_t method;
  };
  ZipBuilderOptions options_;
  std::vector<Entry> entries_;
};

}  // namespace pt2onnx::testutil

#endif  // PT2ONNX_TESTS_TESTING_ZIP_BUILDER_H_
