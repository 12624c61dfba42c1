// File: core/io/byte_sink.h
// -----------------------------------------------------------------------------
// ByteSink: where output bytes go, in order — the counterpart of InputFile.
// Implementations: an atomic file (native/), a list of Blob parts (wasm/), a
// growing string (StringSink, for tests and small embeddings).
//
//   StringSink sink;
//   PT2ONNX_RETURN_IF_ERROR(sink.WriteSlice(weight_slice));
#ifndef PT2ONNX_CORE_IO_BYTE_SINK_H_
#define PT2ONNX_CORE_IO_BYTE_SINK_H_

#include <string>

#include "absl/status/status.h"
#include "core/bytes.h"
#include "core/io/input_file.h"

namespace pt2onnx {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual absl::Status Write(ByteSpan bytes) = 0;
  // WriteSlice writes bytes of the input file (weights used as they are).
  // The default writes a view when the file is in memory, else reads it in
  // pieces; a browser sink overrides it to splice a slice of the user's File
  // into the output without reading it at all.
  virtual absl::Status WriteSlice(const FileSlice& slice);
};

class StringSink : public ByteSink {
 public:
  absl::Status Write(ByteSpan bytes) override {
    data_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return absl::OkStatus();
  }
  const std::string& data() const { return data_; }
  std::string& mutable_data() { return data_; }

 private:
  std::string data_;
};

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_IO_BYTE_SINK_H_
