// File: core/bytes.h
// -----------------------------------------------------------------------------
// ByteSpan: the only way file contents enter core/, ops/ and passes/. Natively
// it views an mmapped file, in the browser a wasm-heap copy of the parts that
// are needed. A ByteSpan never owns its bytes: whoever created it (the CLI's
// mmap, the wasm binding) keeps them alive for as long as any span, weight or
// IR tensor that views them.
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
