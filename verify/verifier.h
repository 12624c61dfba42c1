// File: verify/verifier.h
// -----------------------------------------------------------------------------
// --verify without torch: the ATen reference interpreter (reference)
// runs the exported program, pt2onnx's executor (runtime) runs the
// converted model on the same inputs, and every user output (and, with
// intermediates, every FX value that survives under its name in the ONNX
// graph) is compared into torch.onnx's VerificationInfo. Each engine runs
// once: intermediates are kept values of one pass, not one session per node
// as torch does. No OS calls: the front end measures time and writes files.
//
//   PT2ONNX_ASSIGN_OR_RETURN(Verification v, Verify(loaded, conversion.model, inputs, {}));
//   if (!v.passed) ... v.first_divergence ...
#ifndef PT2ONNX_VERIFY_VERIFIER_H_
#define PT2ONNX_VERIFY_VERIFIER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/graph.h"
#include "core/pt2/pt2_reader.h"
#include "reference/registry.h"
#include "runtime/plan/session.h"
#include "verify/verification_info.h"

namespace pt2onnx::verify {

// Exit codes of the CLI (beyond export/exit_codes.h).
inline constexpr int kExitVerificationFailed = 6;  // values differ beyond their dtype's thresholds (thresholds.h)
inline constexpr int kExitVerificationUnavailable = 7;  // an engine cannot run the model

struct VerifyOptions {
  bool intermediates = false;
  const reference::RefRegistry* registry = nullptr;  // null: the default one
  pthreadpool_t threadpool = nullptr;                // executor threads
  // Stage hooks for the front end's clock: called before each stage
  // ("reference", "onnx", "compare") starts.
  std::function<void(const std::string&)> stage;
};

// Where a value comes from in the program, for messages and the report.
struct ValueOrigin {
  std::string fx_name;      // FX value name (== ONNX value name)
  std::string node_name;    // FX node that defines it
  std::string target;       // "aten::conv2d.default"
  std::string stack_trace;  // the node's stack_trace metadata, "" if none
  std::string onnx_node;    // ONNX node producing the value ("" for outputs not produced by a node)
  std::string onnx_op;      // its op_type
};

struct ValueCheck {
  VerificationInfo info;
  ValueOrigin origin;
  bool is_output = false;
};

struct Verification {
  std::vector<ValueCheck> outputs;        // user outputs, signature order
  std::vector<ValueCheck> intermediates;  // FX order; empty without intermediates
  bool passed = true;                     // every output under its dtype's thresholds
  // The first value in FX order (intermediates, then outputs) over its
  // dtype's thresholds: the node whose translation diverges first.
  std::optional<ValueCheck> first_divergence;
};

// The user inputs by placeholder name, renamed to the ONNX graph's input
// names (they match unless --input-names renamed them: then by position).
absl::StatusOr<std::vector<NamedTensor>> OnnxInputs(const pt2::ExportedProgram& program,
                                                             const ir::Model& model,
                                                             const std::vector<NamedTensor>& inputs);

absl::StatusOr<Verification> Verify(const pt2::LoadedProgram& loaded, const ir::Model& model,
                                    const std::vector<NamedTensor>& inputs,
                                    const VerifyOptions& options);

// A value over its thresholds, named for a message: "'conv2d_3'
// (aten::conv2d.default, ONNX Conv node_conv2d_3): max_abs_diff 0.31, ...
// (float32: abs < 0.005, rel < 0.1 (torch.onnx's))".
std::string DescribeDivergence(const ValueCheck& check);

// The thresholds applied, once per expected dtype in `checks`' order:
// "float32: abs < 0.005, rel < 0.1 (torch.onnx's); bfloat16: rel < 0.125 (16 ulp) over ...".
std::string ThresholdsSummary(const std::vector<ValueCheck>& checks);

}  // namespace pt2onnx::verify

#endif  // PT2ONNX_VERIFY_VERIFIER_H_
