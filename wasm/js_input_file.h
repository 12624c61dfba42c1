// File: wasm/js_input_file.h
// -----------------------------------------------------------------------------
// JsInputFile: an InputFile whose bytes stay on the JavaScript side (a File,
// a Blob, a Uint8Array), read synchronously on demand through a reader
// object:
//
//   { size: number,
//     readInto(offset: number, dst: Uint8Array): string | undefined }
//
// readInto fills `dst`, a view of wasm memory valid only during the call,
// and returns an error message instead of throwing (a JS exception would
// unwind C++ frames without running destructors). In a Web Worker the
// pt2onnx JS wrapper implements it with FileReaderSync on File.slice.
#ifndef PT2ONNX_WASM_JS_INPUT_FILE_H_
#define PT2ONNX_WASM_JS_INPUT_FILE_H_

#include <emscripten/val.h>

#include <cstdint>

#include "core/io/input_file.h"

namespace pt2onnx::wasm {

class JsInputFile : public InputFile {
 public:
  explicit JsInputFile(emscripten::val reader);

  uint64_t size() const override { return size_; }
  absl::Status ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const override;

  // Bytes copied into wasm memory so far: the price of conversion in
  // memory, reported so it can be checked against the file size.
  uint64_t bytes_read() const { return bytes_read_; }
  int reads() const { return reads_; }

 private:
  emscripten::val reader_;
  uint64_t size_ = 0;
  mutable uint64_t bytes_read_ = 0;
  mutable int reads_ = 0;
};

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_JS_INPUT_FILE_H_
