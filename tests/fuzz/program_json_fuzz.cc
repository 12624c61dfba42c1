// Fuzz target: the program JSON decoder (RapidJSON DOM -> schema structs),
// and the schema-version scanner and payload-config decoder on the same text.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/pt2/program_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  (void)pt2onnx::pt2::ParseSchemaVersion(text);
  (void)pt2onnx::pt2::ParseExportedProgramJson(text);
  (void)pt2onnx::pt2::ParsePayloadConfig(text);
  return 0;
}
