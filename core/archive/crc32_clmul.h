// File: core/archive/crc32_clmul.h
// -----------------------------------------------------------------------------
// CRC-32 (ZIP's reflected polynomial 0xEDB88320) by carry-less multiplication
// (x86-64 PCLMULQDQ): 16 bytes folded per instruction pair, ~5x the table
// version, so checking multi-GB weights costs little next to copying them.
// Elsewhere (wasm, other CPUs) Crc32ClmulAvailable() is false and Crc32 in
// zip_reader.h uses its tables.
#ifndef PT2ONNX_CORE_ARCHIVE_CRC32_CLMUL_H_
#define PT2ONNX_CORE_ARCHIVE_CRC32_CLMUL_H_

#include <cstddef>
#include <cstdint>

namespace pt2onnx::archive {

// Whether this build and CPU have the instructions (checked once).
bool Crc32ClmulAvailable();

// Continues the raw CRC register `crc` (already inverted, as in the table
// loop) over `length` bytes; `length` is a multiple of 16 and at least 64.
// Only call when Crc32ClmulAvailable().
uint32_t Crc32ClmulFold(uint32_t crc, const uint8_t* data, size_t length);

}  // namespace pt2onnx::archive

#endif  // PT2ONNX_CORE_ARCHIVE_CRC32_CLMUL_H_
