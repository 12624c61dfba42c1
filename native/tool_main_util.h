// File: native/tool_main_util.h
// -----------------------------------------------------------------------------
// What the runner tools (onnxrun, refrun) share around their own work: the
// error line and exit codes, the --inputs .npz read, the one line printed per
// output, and the --outputs .npz written atomically. Their flags:
// runner_flags.h.
//
// Exit codes: 0 ok, 1 internal error, 2 bad command line, 3 cannot read or
// write a file, 4 invalid model, program or inputs, 5 unsupported (an op,
// overload or dtype the tool cannot run or write).
//
//   ToolMessages tool("onnxrun");
//   std::vector<NamedTensor> inputs;
//   if (int code = tool.ReadNpzFile(inputs_path, inputs)) return code;
#ifndef PT2ONNX_NATIVE_TOOL_MAIN_UTIL_H_
#define PT2ONNX_NATIVE_TOOL_MAIN_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "export/engines.h"

namespace pt2onnx::native {

// The exit code for a failed load or run: 5 unsupported, 4 invalid model or
// inputs (malformed, out of range, corrupt, too large), else 1.
int ExitCodeFor(const absl::Status& status);

// Each method that can fail prints "<tool>: error: <message>" on stderr and
// returns the exit code, or returns 0 on success, so that a Main reads
// `if (int code = ...) return code;`.
class ToolMessages {
 public:
  // `tool` must outlive this object (a string literal).
  explicit ToolMessages(const char* tool) : tool_(tool) {}

  // Prints the error line and returns `code`.
  int Fail(int code, absl::string_view message) const;

  // Reads the .npz at `path` (as the user wrote it) into `tensors`: 3 when the
  // file cannot be read, 4 when it is not a valid .npz.
  int ReadNpzFile(const std::string& path, std::vector<NamedTensor>& tensors) const;

  // Writes `tensors` to an .npz at `path`, atomically: ExitCodeFor an array it
  // cannot encode, 3 when the file cannot be written.
  int WriteNpzFile(const std::string& path, const std::vector<NamedTensor>& tensors) const;

 private:
  const char* tool_;
};

// Prints "NAME DTYPE [DIMS]" for each tensor on stdout.
void PrintTensorSummaries(const std::vector<NamedTensor>& tensors);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_TOOL_MAIN_UTIL_H_
