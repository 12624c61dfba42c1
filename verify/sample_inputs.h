// File: verify/sample_inputs.h
// -----------------------------------------------------------------------------
// The example inputs torch.export.save stores beside the program:
// <root>/data/sample_inputs/<model>.pt in PT2 archives (torch >= 2.8), or
// serialized_example_inputs.pt in the legacy zip (torch 2.6/2.7). Both are
// torch.save files of the (args, kwargs) pytree; its tensors, flattened in
// order, are the user inputs in order.
#ifndef PT2ONNX_VERIFY_SAMPLE_INPUTS_H_
#define PT2ONNX_VERIFY_SAMPLE_INPUTS_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "core/io/input_file.h"
#include "core/pt2/pt2_reader.h"
#include "verify/inputs.h"

namespace pt2onnx::verify {

// nullopt when the archive stores none; an error when they are unreadable
// or do not match the program's inputs.
absl::StatusOr<std::optional<ChosenInputs>> ArchiveSampleInputs(std::shared_ptr<const InputFile> file,
                                                                const pt2::LoadedProgram& loaded);

}  // namespace pt2onnx::verify

#endif  // PT2ONNX_VERIFY_SAMPLE_INPUTS_H_
