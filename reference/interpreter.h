// File: reference/interpreter.h
// -----------------------------------------------------------------------------
// The ATen reference interpreter: runs an ExportedProgram's graph node by
// node on concrete tensors with ATen semantics (one kernel per overload,
// registry.h), independently of the ATen -> ONNX translations, so that a
// converted model can be checked against it without torch.
//
//   RefRegistry registry = CreateReferenceRegistry();
//   PT2ONNX_ASSIGN_OR_RETURN(Interpretation run,
//                            Interpret(loaded.program, loaded.weights, inputs, {&registry}));
//   for (const NamedTensor& out : run.outputs) ...
#ifndef PT2ONNX_REFERENCE_INTERPRETER_H_
#define PT2ONNX_REFERENCE_INTERPRETER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "reference/ref_call.h"
#include "reference/registry.h"
#include "core/loop_limits.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::reference {

struct InterpretOptions {
  const RefRegistry* registry = nullptr;  // null: CreateReferenceRegistry() per call
  // Keep every FX value (for comparing intermediates); otherwise values are
  // dropped after their last use.
  bool keep_values = false;
  // Most iterations of one while_loop (torch has no bound; a file from a
  // stranger must not run forever). The executor's Loop stops at the same.
  int64_t max_loop_iterations = kMaxLoopIterations;
  // Called after each node of the main graph with its index and the node count.
  std::function<void(size_t, size_t)> progress;
};

struct Interpretation {
  // User outputs in signature order, named by their FX value names.
  std::vector<NamedTensor> outputs;
  // With keep_values: every tensor value by FX name, as its node produced it
  // (copied before later in-place ops).
  ValueMap values;
  // Tensor values in the order the graph defines them (nodes, then outputs).
  std::vector<std::string> defined;
  // Values derived from random numbers (rand, randn, ...), by FX name, with
  // the reason: they are not comparable with another engine's.
  std::map<std::string, std::string> not_comparable;
};

// `inputs`: the user inputs by placeholder name (copied: in-place ops never
// write into them). Errors name the node, its FX name and the overload.
absl::StatusOr<Interpretation> Interpret(const pt2::ExportedProgram& program,
                                         const pt2::WeightTable& weights,
                                         const std::vector<NamedTensor>& inputs,
                                         const InterpretOptions& options = {});

// The overloads `program` calls (in nested graphs too) that `registry` has
// no kernel for, sorted.
std::vector<std::string> MissingKernels(const pt2::ExportedProgram& program,
                                        const RefRegistry& registry);

// The FX name of the node defining each output value ("" when the file
// predates node names: the first output's name is used then).
std::string NodeName(const pt2::Node& node);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_INTERPRETER_H_
