#include "wasm/js_input_file.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::wasm {

using emscripten::val;

JsInputFile::JsInputFile(val reader) : reader_(std::move(reader)) {
  size_ = static_cast<uint64_t>(reader_["size"].as<double>());
}

absl::Status JsInputFile::ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const {
  PT2ONNX_RETURN_IF_ERROR(CheckRange({offset, dst.size()}, "read"));
  if (dst.empty()) return absl::OkStatus();
  // Offsets beyond 4 GiB travel as doubles (exact up to 2^53).
  val error = reader_.call<val>("readInto", static_cast<double>(offset),
                                val(emscripten::typed_memory_view(dst.size(), dst.data())));
  ++reads_;
  if (error.isString()) {
    return absl::UnavailableError(absl::StrCat("could not read ", dst.size(), " bytes at offset ",
                                               offset, " of the input file: ",
                                               error.as<std::string>()));
  }
  bytes_read_ += dst.size();
  return absl::OkStatus();
}

}  // namespace pt2onnx::wasm
