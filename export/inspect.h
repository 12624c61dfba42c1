// File: export/inspect.h
// -----------------------------------------------------------------------------
// What a .pt2 holds, read without converting it: inputs and outputs with each
// symbolic dim at its position and its range, the symbols in input order,
// the FX operator histogram with what this build cannot translate, the
// weights per dtype, the archive layout. Behind `pt2onnx --inspect` and the
// JS `inspect()`, which print the same JSON (InspectionJson).
//
//   PT2ONNX_ASSIGN_OR_RETURN(Inspection info, InspectPt2(file, {}));
//   std::puts(InspectionJson(info).c_str());
#ifndef PT2ONNX_EXPORT_INSPECT_H_
#define PT2ONNX_EXPORT_INSPECT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "export/report.h"  // RangeText
#include "core/io/input_file.h"
#include "core/pt2/pt2_reader.h"
#include "core/pt2/schema.h"
#include "translate/registry.h"
#include "translate/translator.h"

namespace pt2onnx {

struct InspectOptions {
  int opset = translate::kDefaultOpset;  // support is checked at this opset
  std::string model_name;          // program in a multi-model archive ("" = default)
  const translate::OpRegistry* registry = nullptr;  // null: ops::CreateDefaultRegistry()
};

struct InspectedDim {
  bool symbolic = false;
  int64_t size = 0;                          // static dims
  std::string name;                          // symbolic: the dim_param ("s27", "2*s27")
  std::optional<pt2::RangeConstraint> range; // when `name` is one constrained symbol
};

struct InspectedValue {
  std::string name;
  std::string kind;   // "tensor", "SymInt", "SymFloat", "SymBool"
  std::string dtype;  // ONNX element type name ("float32")
  std::vector<InspectedDim> shape;
};

struct InspectedSymbol {
  std::string name;
  std::optional<pt2::RangeConstraint> range;
  std::vector<std::string> uses;  // "x[0]": user inputs, then user outputs
};

struct InspectedOp {
  std::string target;  // as in the file: "torch.ops.aten.mul.Tensor"
  std::string key;     // as pt2onnx names it: "aten::mul.Tensor"
  int64_t count = 0;
  bool supported = false;
};

struct WeightGroup {
  std::string dtype;
  int64_t count = 0;
  uint64_t elements = 0;  // saturating sums: a hostile file cannot overflow them
  uint64_t bytes = 0;
};

struct Inspection {
  std::string layout;         // "PT2 archive" / "legacy zip (torch 2.6/2.7)"
  std::string archive_root;   // "model/" ("" for the legacy zip)
  std::string model_name;
  std::string schema_version; // "8.20"
  std::string torch_version;  // "" when the file does not record it
  int opset = 0;
  std::vector<InspectedValue> inputs;
  std::vector<InspectedValue> outputs;
  std::vector<InspectedSymbol> symbols;  // pt2::SymbolsInInputOrder
  int64_t fx_nodes = 0;                  // subgraphs included
  std::vector<InspectedOp> ops;          // by first appearance
  std::vector<translate::UnsupportedOp> unsupported;
  std::vector<WeightGroup> weights;      // by dtype name
  std::vector<std::string> warnings;
};

absl::StatusOr<Inspection> InspectPt2(std::shared_ptr<const InputFile> file,
                                      const InspectOptions& options);
// The part after reading, for programs built in memory.
Inspection InspectProgram(const pt2::LoadedProgram& loaded, const InspectOptions& options);

// The machine-readable form (`--inspect --json`, JS inspect()).
std::string InspectionJson(const Inspection& inspection);
// The text `--inspect` prints; `file_name` heads it.
std::string InspectionText(const Inspection& inspection, absl::string_view file_name);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_INSPECT_H_
