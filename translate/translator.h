// File: translate/translator.h
// -----------------------------------------------------------------------------
// TranslateProgram: ExportedProgram + weights -> ONNX-level IR model, the way
// torch.onnx's exporter does it after capture: user inputs become graph
// inputs (in signature order), parameters/buffers/constants become
// initializers named by their state-dict FQN, every FX node is translated by
// its registered function, and only user outputs become graph outputs.
//
// Before translating anything, every node's target is looked up; if any is
// unsupported, one Unimplemented error lists them all (target, count, first
// node), so a user learns the whole gap at once.
#ifndef PT2ONNX_TRANSLATE_TRANSLATOR_H_
#define PT2ONNX_TRANSLATE_TRANSLATOR_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/aten/op_schema.h"
#include "core/ir/function.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "translate/registry.h"

namespace pt2onnx::translate {

// The fixed part of TranslateOptions::max_materialized_bytes.
inline constexpr uint64_t kMaterializeSlackBytes = uint64_t{256} << 20;

struct TranslateOptions {
  int opset = kDefaultOpset;
  // Replace the graph input / output names, in order (empty: keep the
  // program's names, as torch.onnx does). Fewer names than inputs renames a
  // prefix.
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  // Symbolic dimension renames ("s0" -> "batch").
  std::map<std::string, std::string> dim_names;
  std::string producer_version;
  // Called with the fraction of FX nodes translated (about 50 times for a
  // large graph), so front ends can move a progress bar; may be empty.
  std::function<void(double)> on_progress;
  // Most bytes of weights copied out of the file (strided views re-laid out
  // row-major) before the translation refuses with ResourceExhausted.
  // ConvertPt2 sets it to the input's size plus kMaterializeSlackBytes.
  uint64_t max_materialized_bytes = kMaterializeSlackBytes;
  // The ATen schemas that fill omitted arguments; nullptr means
  // aten::SchemaTable::Default(). Must outlive the call.
  const aten::SchemaTable* schema_table = nullptr;
  // Bodies of user translations by registry key (translate/custom_translations.h);
  // must outlive the call. Null: none.
  const std::map<std::string, ir::Function>* custom_functions = nullptr;
  // True: a node translated by a custom function calls it as a model-local
  // ONNX function (one per function used); false: its body is inlined.
  bool custom_functions_as_local = false;
};

// `program` and `weights` (and the bytes the weights view) must outlive the
// returned model: initializers view weight bytes without copying.
absl::StatusOr<ir::Model> TranslateProgram(const pt2::ExportedProgram& program,
                                           const pt2::WeightTable& weights,
                                           const OpRegistry& registry,
                                           const TranslateOptions& options);

// One unsupported target found in a program.
// Payload of the Unimplemented status for unsupported operators: one line
// per operator ("aten::cumprod.default x2 (first at node 'cumprod')"), so
// front ends can list them without parsing the message.
inline constexpr absl::string_view kUnsupportedOpsPayload = "type.pt2onnx/unsupported_ops";

// What to do about unsupported operators, as the conversion error and
// --inspect say it.
// One advice everywhere (CLI, JS API, page), ordered by what usually works.
inline constexpr absl::string_view kUnsupportedOpsAdvice =
    "What to do, in order: (1) re-export with ep = ep.run_decompositions() before "
    "torch.export.save, which lowers high-level ops to core ATen; (2) if some remain, replace "
    "them in the model; (3) or translate them yourself: a library of ONNX functions, one per "
    "operator (--translations; the translations option in JavaScript and on the page).";

struct UnsupportedOp {
  std::string key;         // "aten::linalg_inv.default"
  int count = 0;
  std::string first_node;  // FX name of its first use
};
// Every target of `graph` (subgraphs included) with no translation at
// `opset`, in order of first appearance.
std::vector<UnsupportedOp> FindUnsupportedOps(const pt2::Graph& graph,
                                              const OpRegistry& registry, int opset);
// The overloads deliberately left without a translation, each with the
// reason the error gives ("prims::*" stands for the whole prims namespace).
struct RefusedOp {
  std::string key;
  std::string reason;
};
std::vector<RefusedOp> DeliberatelyRefusedOps();

// The one error (Unimplemented, with kUnsupportedOpsPayload) listing `ops`.
absl::Status UnsupportedOpsError(const std::vector<UnsupportedOp>& ops,
                                 const OpRegistry& registry, int opset);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_TRANSLATOR_H_
