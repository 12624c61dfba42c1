// File: native/verify_command.h
// -----------------------------------------------------------------------------
// --verify / --verify-intermediates / --verify-node-data / --inputs in the
// CLI: the flags as export/verify_pt2.h options (the --inputs file is read
// when the verification chooses its inputs), and the outcome printed: the
// comparison per output, the node-data files, the passing summary or the
// error. The verification itself, and the report, are export/'s.
#ifndef PT2ONNX_NATIVE_VERIFY_COMMAND_H_
#define PT2ONNX_NATIVE_VERIFY_COMMAND_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "export/verify_pt2.h"
#include "native/cli_flags.h"

namespace pt2onnx::native {

// The inputs and intermediates of flags; `log` gets the progress lines.
VerifyRunOptions VerifyRunOptionsFor(const CliFlags& flags, std::function<void(const std::string&)> log);

// Prints the verification of `run` (which ran with --verify) and writes the
// node-data files; an error writing them joins the report's errors. Returns
// the exit code: 0, 3 (a file), 4 (the inputs), 6 (values beyond torch's
// thresholds), 7 (an engine cannot run the model).
int PrintVerification(const CliFlags& flags, VerifyPt2Result& run,
                      const std::function<void(const std::string&)>& log);

// Writes `text` to `path` atomically; errors name the path.
absl::Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_VERIFY_COMMAND_H_
