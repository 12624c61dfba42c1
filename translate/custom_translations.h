// File: translate/custom_translations.h
// -----------------------------------------------------------------------------
// User-supplied translations without Python: an ONNX function library (a
// ModelProto whose `functions` hold FunctionProtos) maps operator overloads
// to ONNX function bodies. A function's domain and name give the registry
// key: domain `mylib`, name `fused_gelu.default` translates the program's
// `torch.ops.mylib.fused_gelu.default` ("mylib::fused_gelu.default").
//
// Binding: the function's inputs take the node's tensor arguments in the
// order the node lists them (None for an optional tensor becomes an omitted
// input); its outputs are the node's outputs, in order. The body is inlined
// at each use with fresh value names. Functions take no attributes; a node
// passing a non-tensor argument is refused.
//
//   OpRegistry registry = CreateDefaultRegistry();
//   CustomFunctionTable table;
//   PT2ONNX_RETURN_IF_ERROR(AddCustomTranslations(library, /*override_builtins=*/false,
//                                                 registry, table));
//   options.translate.custom_functions = &table;  // and options.registry = &registry
#ifndef PT2ONNX_TRANSLATE_CUSTOM_TRANSLATIONS_H_
#define PT2ONNX_TRANSLATE_CUSTOM_TRANSLATIONS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/function.h"
#include "core/ir/graph.h"
#include "translate/registry.h"

namespace pt2onnx::translate {

// Registry key -> function body.
using CustomFunctionTable = std::map<std::string, ir::Function>;

// Registers every function of `library` in `registry` and `table`.
// InvalidArgument for a function without a domain, a name that is not
// "<op>.<overload>", or a key defined twice; AlreadyExists for a key the
// registry already translates, unless `override_builtins`.
absl::Status AddCustomTranslations(const std::vector<ir::Function>& library, bool override_builtins,
                                   OpRegistry& registry, CustomFunctionTable& table);

// With --translations-as-functions: the functions of `table` the graph
// calls (`called`) become model-local functions of `model`. Each imports
// ai.onnx at the model's `opset` (its body then means what it means
// inlined) and its domain joins `domains` (the model's imports) at version
// 1; InvalidArgument when that domain is already imported at another version.
absl::Status AddLocalFunctions(const CustomFunctionTable& table, const std::set<std::string>& called,
                               int64_t opset, std::map<std::string, int64_t>& domains, ir::Model& model);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_CUSTOM_TRANSLATIONS_H_
