// File: translate/fx_values.h
// -----------------------------------------------------------------------------
// What an FX graph defines and reads, and the ONNX value infos its metadata
// gives: shared by the program translator and the unsupported-op scan.
#ifndef PT2ONNX_TRANSLATE_FX_VALUES_H_
#define PT2ONNX_TRANSLATE_FX_VALUES_H_

#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "translate/graph_builder.h"
#include "translate/translator.h"

namespace pt2onnx::translate {

// `size` as an ONNX dim; symbols take their --dim-name rename.
ir::Dim ToDim(const pt2::SymInt& size, const TranslateOptions& options);

// A tensor value's ONNX type from its FX metadata.
ir::ValueInfo ValueInfoFromMeta(std::string name, const pt2::TensorMeta& meta,
                                const TranslateOptions& options);

// metadata_props keys of a complex program output, written as its
// view_as_real (ops/complex_layout.h): on the output value, its torch dtype;
// on the model, the names of all such outputs, comma-separated.
inline constexpr char kComplexOutputKey[] = "pkg.pt2onnx.complex_as_real";
inline constexpr char kComplexOutputsKey[] = "pkg.pt2onnx.complex_outputs";

// `info` of a complex value as the real tensor carrying it: the part dtype
// (complex64 -> float32, complex128 -> float64) with a trailing dim of 2
// (real, imaginary), as torch.view_as_real lays it out. Other dtypes pass.
ir::ValueInfo ComplexAsReal(ir::ValueInfo info);

// The same for a program output, marked so the layout is not silent: the
// kComplexOutputKey entry (the ONNX writer adds a doc_string from it).
ir::ValueInfo ComplexOutputAsReal(ir::ValueInfo info);

// A 0-d value of `dtype` (SymInt / SymFloat / SymBool values).
ir::ValueInfo ScalarInfo(std::string name, DataType dtype);

// The FX names a node defines.
std::vector<std::string> DefinedNames(const pt2::Node& node);

// How often each FX value is read: by node inputs and by graph outputs (user
// outputs and mutations alike). Both the fx_node metadata's num_users and
// TranslateContext::OutputUsed answer from it.
GraphBuilder::UseCounts CountUsers(const pt2::Graph& graph);

// value_info for intermediate FX values of `builder`'s graph, from the
// program's metadata (graph inputs, outputs and values already typed are
// skipped).
void AddIntermediateValueInfo(GraphBuilder& builder, const TranslateOptions& options);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_FX_VALUES_H_
