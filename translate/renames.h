// File: translate/renames.h
// -----------------------------------------------------------------------------
// The user's renames of a translated graph (--input-names, --output-names,
// --dim-name): each is checked against what the program has, since a rename
// that matches nothing or clashes with another value is a mistake the user
// should hear about, never a silent no-op.
#ifndef PT2ONNX_TRANSLATE_RENAMES_H_
#define PT2ONNX_TRANSLATE_RENAMES_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"

namespace pt2onnx::translate {

// InvalidArgument naming the symbols the program has when a --dim-name
// source is not one of them (e.g. s0=batch when the symbol is s54).
absl::Status CheckDimNames(const pt2::ExportedProgram& program,
                           const std::map<std::string, std::string>& dim_names);

// InvalidArgument when more names than the graph's `count` inputs/outputs
// (`what`: "input" / "output") were given.
absl::Status CheckNameCount(const std::vector<std::string>& names, size_t count,
                            absl::string_view what);

// Renames values (old -> new) everywhere in `graph`: inputs, outputs, node
// inputs and outputs, value_info. Every new name is checked before anything
// changes: given once, and not the name of another value (ONNX graphs are
// SSA). On error the graph is unchanged.
absl::Status ApplyRenames(const std::map<std::string, std::string>& renames, ir::Graph& graph);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_RENAMES_H_
