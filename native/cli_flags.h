// File: native/cli_flags.h
// -----------------------------------------------------------------------------
// Command-line parsing for the pt2onnx CLI, separate from main() so that
// tests can check every usage error's message.
#ifndef PT2ONNX_NATIVE_CLI_FLAGS_H_
#define PT2ONNX_NATIVE_CLI_FLAGS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "export/exit_codes.h"

namespace pt2onnx::native {

struct CliFlags {
  std::string input;
  std::string output;  // default: input with .onnx instead of .pt2
  int opset = 20;
  enum class External { kAuto, kAlways, kNever } external = External::kAuto;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::map<std::string, std::string> dim_names;
  std::string model_name;
  bool optimize = true;
  bool verify_crc = true;  // of the weights too (--no-crc: program and pickles only)
  bool check = false;
  bool quiet = false;
  bool help = false;
  bool version = false;
  bool list_ops = false;
  bool inspect = false;  // describe the program instead of converting it
  bool json = false;     // JSON on stdout: the inspection, or a conversion's record
};

// InvalidArgument with a message naming the bad flag and what is expected.
absl::StatusOr<CliFlags> ParseCliFlags(const std::vector<std::string>& args);

std::string UsageText();

// Process exit codes: core/export/exit_codes.h (shared with the wasm API).

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_CLI_FLAGS_H_
