// File: native/verify_command.h
// -----------------------------------------------------------------------------
// --verify / --verify-intermediates / --verify-node-data in the CLI: picks the
// inputs (--inputs X.npz, else the example inputs the archive stores, else
// seeded from the input specs), runs
// verify, prints the comparison, writes the node-data files and fills
// the report. Returns the exit code: 0, 6 (values beyond torch's
// thresholds), 7 (an engine cannot run the model), 3/4 for the inputs file.
#ifndef PT2ONNX_NATIVE_VERIFY_COMMAND_H_
#define PT2ONNX_NATIVE_VERIFY_COMMAND_H_

#include <functional>
#include <string>

#include "core/ir/graph.h"
#include "core/pt2/pt2_reader.h"
#include "verify/report.h"
#include "native/cli_flags.h"

namespace pt2onnx::native {

// `file`: the .pt2 bytes (for the example inputs it may store).
int RunVerify(const CliFlags& flags, ByteSpan file, const pt2::LoadedProgram& loaded, const ir::Model& model,
              const std::function<void(const std::string&)>& log, verify::ReportData& report);

// Writes `text` to `path` atomically; errors name the path.
absl::Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_VERIFY_COMMAND_H_
