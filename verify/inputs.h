// File: verify/inputs.h
// -----------------------------------------------------------------------------
// Inputs for --verify when none are given: deterministic, seeded values from
// the program's input specs. Symbolic dims take their example value (hint)
// or, without one, a size inside the symbol's range; floats are uniform in
// [-1, 1), integers in [0, 8) (safe as indices of any table of 8 or more
// rows), bools all true (masks that keep every position).
#ifndef PT2ONNX_VERIFY_INPUTS_H_
#define PT2ONNX_VERIFY_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/pt2/schema.h"
#include "runtime/plan/session.h"

namespace pt2onnx::verify {

struct ChosenInputs {
  std::vector<NamedTensor> tensors;  // by placeholder name
  std::string source;                         // "seeded (seed 0)", "x.npz", ...
  std::vector<std::string> lines;             // one per input: name dtype shape how
};

absl::StatusOr<ChosenInputs> SeededInputs(const pt2::ExportedProgram& program, uint64_t seed = 0);

// Checks given inputs (an npz) against the program: every user input
// present, dtypes and ranks as recorded, static dims equal. Describes them.
absl::StatusOr<ChosenInputs> GivenInputs(const pt2::ExportedProgram& program,
                                         std::vector<NamedTensor> tensors, std::string source);

}  // namespace pt2onnx::verify

#endif  // PT2ONNX_VERIFY_INPUTS_H_
