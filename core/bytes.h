// File: core/bytes.h
// -----------------------------------------------------------------------------
// ByteSpan: a view of bytes someone else owns. File contents reach core/,
// ops/ and passes/ as ByteSpans returned by an InputFile (core/input_file.h):
// natively views of the mmapped file, in the browser wasm-heap copies of the
// parts that must be parsed; weights stay FileRanges and are never read.
// A ByteSpan never owns its bytes: its creator keeps them alive.
#ifndef PT2ONNX_CORE_BYTES_H_
#define PT2ONNX_CORE_BYTES_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pt2onnx {

using ByteSpan = absl::Span<const uint8_t>;

inline absl::string_view AsStringView(ByteSpan bytes) {
  return absl::string_view(reinterpret_cast<const char*>(bytes.data()),
                           bytes.size());
}

inline ByteSpan AsBytes(absl::string_view text) {
  return ByteSpan(reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_BYTES_H_
