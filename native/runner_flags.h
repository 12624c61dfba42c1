// File: native/runner_flags.h
// -----------------------------------------------------------------------------
// Command-line parsing for the runner tools, onnxrun (the ONNX executor) and
// refrun (the ATen reference interpreter), apart from their main() as the
// pt2onnx CLI's is (cli_flags.h), so tests can check every usage error.
// Parsing stops at -h/--help and --list-kernels, which need nothing else.
#ifndef PT2ONNX_NATIVE_RUNNER_FLAGS_H_
#define PT2ONNX_NATIVE_RUNNER_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pt2onnx::native {

enum class RunnerTool { kOnnxrun, kRefrun };

struct RunnerFlags {
  bool help = false;          // -h, --help: print RunnerUsage and exit 0
  bool list_kernels = false;  // --list-kernels: print what the engine runs and exit 0
  std::string model_path;     // MODEL.onnx / MODEL.pt2
  std::string inputs_path;    // --inputs X.npz
  std::string outputs_path;   // --outputs Y.npz
  bool quiet = false;         // -q, --quiet
  // onnxrun
  int threads = 1;        // --threads N (1..100000)
  int bench = 0;          // --bench N: timed runs after 3 warm-up runs
  bool portable = false;  // --portable: no XNNPACK
  bool no_int8 = false;   // --no-int8: QDQ patterns on the float path
  bool profile = false;   // --profile: time per op type and node
  // refrun
  std::string model_name;  // --model NAME in a multi-model archive
  bool missing = false;    // --missing: list the overloads without a kernel
};

// InvalidArgument with the line the tool prints after "<tool>: error: "
// (exit 2); a message may end with the usage text.
absl::StatusOr<RunnerFlags> ParseRunnerFlags(RunnerTool tool, const std::vector<std::string>& args);

const char* RunnerUsage(RunnerTool tool);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_RUNNER_FLAGS_H_
