// File: core/archive/crc32.h
// -----------------------------------------------------------------------------
// The ZIP (IEEE 802.3, reflected) CRC-32: carry-less multiplication where the
// CPU has it (crc32_clmul.h), eight-table lookups elsewhere and for tails.
#ifndef PT2ONNX_CORE_ARCHIVE_CRC32_H_
#define PT2ONNX_CORE_ARCHIVE_CRC32_H_

#include <cstdint>

#include "core/bytes.h"

namespace pt2onnx::archive {

// The CRC-32 of `data`, continuing from `crc` (0 to start), so large inputs
// can be fed in pieces.
uint32_t Crc32(ByteSpan data, uint32_t crc = 0);

}  // namespace pt2onnx::archive

#endif  // PT2ONNX_CORE_ARCHIVE_CRC32_H_
