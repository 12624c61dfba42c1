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
  bool output_given = false;  // -o given (a folder's output must be)
  int opset = 20;
  // --kv-cache static: decode programs' caches as fixed-size buffers
  // written by TensorScatter (opset >= 24; passes/static_kv_cache.h).
  bool kv_cache_static = false;
  enum class External { kAuto, kAlways, kNever } external = External::kAuto;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::map<std::string, std::string> dim_names;
  std::string model_name;
  bool optimize = true;
  std::vector<std::string> passes;  // --passes=a,b: only these, in this order
  bool print_pass_stats = false;
  int64_t fold_max_input_elements = 8192;
  int64_t fold_max_output_elements = 262144;
  bool verify_crc = true;  // of the weights too (--no-crc: program and pickles only)
  bool check = false;
  bool quiet = false;
  bool help = false;
  bool version = false;
  bool list_ops = false;
  bool list_refused = false;
  bool inspect = false;  // describe the program instead of converting it
  bool json = false;     // JSON on stdout: the inspection, or a conversion's record
  // Verification without torch (native/verify_command.h).
  bool verify = false;                // --verify (implied by the two below)
  bool verify_intermediates = false;  // --verify-intermediates
  std::string verify_inputs;          // --inputs X.npz ("" = sample inputs or seeded)
  std::string verify_node_data;       // --verify-node-data PREFIX (implies intermediates)
  bool report = false;                // --report[=PATH]
  std::string report_path;            // default: the output with .report.md
  std::vector<std::string> translations;  // ONNX function libraries (--translations)
  bool override_builtins = false;         // library functions replace built-ins (--override)
  bool translations_as_functions = false;  // local functions, not inlined (--translations-as-functions)
  bool no_weights = false;         // the graph without initializers
  bool weights_as_inputs = false;  // initializers also listed as graph inputs
  // `pt2onnx apply-weights MODEL.onnx --from OTHER.pt2 -o OUT.onnx`: `input`
  // is the ONNX model, `weights_from` the .pt2 whose weights it gets.
  bool apply_weights = false;
  std::string weights_from;
  bool opset_given = false;  // apply-weights: else the model's own opset
  // `pt2onnx verify-generation OUTDIR --tokens N [--prompt IDS] [--expect IDS]`:
  // greedy generation through a converted export folder (`input`).
  bool verify_generation = false;
  int generation_tokens = 8;
  std::vector<int64_t> prompt = {1, 2, 3, 4};
  std::vector<int64_t> expect;  // empty: print the tokens only
  std::string save_logits;      // --save-logits PATH.npz: the last step's logits ("" = none)
};

// InvalidArgument with a message naming the bad flag and what is expected.
absl::StatusOr<CliFlags> ParseCliFlags(const std::vector<std::string>& args);

std::string UsageText();

// Process exit codes: core/export/exit_codes.h (shared with the wasm API).

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_CLI_FLAGS_H_
