#include "core/archive/crc32.h"

#include <array>
#include <cstddef>

#include "core/archive/crc32_clmul.h"

namespace pt2onnx::archive {

uint32_t Crc32(ByteSpan data, uint32_t crc) {
  // Table for the reflected polynomial 0xEDB88320, built on first use
  // (a function-local constant, so no static initialization order issue).
  // Eight tables: t[k][b] is the CRC of byte b followed by k zero bytes, so
  // eight input bytes take eight lookups and no loop-carried byte chain
  // (weights are checked at several GB/s instead of a few hundred MB/s).
  static const std::array<std::array<uint32_t, 256>, 8> kTables = [] {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (int k = 1; k < 8; ++k) t[k][i] = t[0][t[k - 1][i] & 0xFF] ^ (t[k - 1][i] >> 8);
    }
    return t;
  }();
  crc = ~crc;
  const uint8_t* p = data.data();
  size_t n = data.size();
  if (n >= 64 && Crc32ClmulAvailable()) {
    const size_t blocks = n & ~size_t{15};
    crc = Crc32ClmulFold(crc, p, blocks);
    p += blocks;
    n -= blocks;
  }
  for (; n >= 8; p += 8, n -= 8) {
    // Little-endian assembly by shifts: no alignment or byte-order assumption.
    const uint32_t lo = crc ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
                               uint32_t{p[3]} << 24);
    crc = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
          kTables[4][lo >> 24] ^ kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^
          kTables[0][p[7]];
  }
  for (; n > 0; ++p, --n) crc = kTables[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

}  // namespace pt2onnx::archive
