// Fuzz target: the ZIP reader (central directory, ZIP64, local headers, every
// entry read or located, CRC-32 checked).
#include <cstddef>
#include <cstdint>

#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<pt2onnx::archive::ZipArchive> zip =
      pt2onnx::archive::ZipArchive::Open(pt2onnx::ByteSpan(data, size));
  if (!zip.ok()) return 0;
  for (const pt2onnx::archive::ZipEntry& entry : zip->entries()) {
    (void)zip->Find(entry.name);
    (void)zip->Locate(entry);
    (void)zip->Read(entry);
    (void)zip->VerifyCrc32(entry);
  }
  return 0;
}
