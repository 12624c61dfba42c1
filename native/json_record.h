// The one-line JSON record `pt2onnx MODEL.pt2 --json` prints on stdout for a
// conversion, success or failure: the per-model record of a batch run
// (README "Converting a catalogue").
#ifndef PT2ONNX_NATIVE_JSON_RECORD_H_
#define PT2ONNX_NATIVE_JSON_RECORD_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "export/converter.h"

namespace pt2onnx::native {

struct WrittenFiles {
  std::string model;  // as given with -o
  std::string data;   // "" without external data
  uint64_t model_bytes = 0;
  uint64_t data_bytes = 0;
};

// {"input":..., "ok":true, "exitCode":0, "output":..., "data":..., "opset":..., ...}
std::string SuccessRecord(const std::string& input, const WrittenFiles& files, int opset,
                          const ConversionSummary& summary,
                          const std::vector<std::string>& warnings, double seconds);

// {"input":..., "ok":false, "exitCode":5, "code":"unsupported", "message":..., "unsupportedOps":[...]}
std::string FailureRecord(const std::string& input, int exit_code, const absl::Status& status,
                          double seconds);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_JSON_RECORD_H_
