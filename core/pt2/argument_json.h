// File: core/pt2/argument_json.h
// -----------------------------------------------------------------------------
// Internal to //core/pt2:program (listed in its srcs, not hdrs): decoders for
// the value types of torch.export's schema.py — symbolic ints/bools/floats,
// TensorMeta, and the Argument union a node's inputs and outputs hold
// (docs/pt2-format.md 3.5-3.7). Built on json_decode.h; errors carry the JSON
// path, and inside a node the node's name and target.
//
//   Argument arg;
//   PT2ONNX_RETURN_IF_ERROR(ReadArgument(v, path.Field("arg"), depth, &arg));
//
// Arguments and graphs are mutually recursive: an `as_graph` argument holds a
// subgraph (ReadGraph, graph_json.h) whose nodes hold arguments again.
#ifndef PT2ONNX_CORE_PT2_ARGUMENT_JSON_H_
#define PT2ONNX_CORE_PT2_ARGUMENT_JSON_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pt2/json_decode.h"
#include "core/pt2/schema.h"

namespace pt2onnx::pt2::internal {

// SymInt / SymBool / SymFloat: {"as_int": n} (as_bool / as_float) or
// {"as_expr": {"expr_str": s, "hint": SymExprHint|null}}. Very old files
// write sizes as bare numbers. Bools are stored as 0/1 in `value`.
absl::StatusOr<SymInt> ReadSymInt(const Value& v, const Path& path);
absl::StatusOr<SymInt> ReadSymBool(const Value& v, const Path& path);
absl::StatusOr<SymInt> ReadSymFloat(const Value& v, const Path& path);

// TensorMeta; sparse/mkldnn layouts are Unimplemented, unknown dtypes as
// FromTorchScalarType reports them. (tensor_meta_json.cc)
absl::StatusOr<TensorMeta> ReadTensorMeta(const Value& v, const Path& path);

// Device {"type", "index"?}. (tensor_meta_json.cc)
absl::StatusOr<Device> ReadDevice(const Value& v, const Path& path);

// TensorArgument / TokenArgument: {"name": value_name}.
absl::StatusOr<std::string> ReadTensorName(const Value& v, const Path& path);

// CustomObjArgument {"name", "class_fqn"} into `out` (kind kCustomObj).
absl::Status ReadCustomObj(const Value& v, const Path& path, Argument* out);

// Decodes an Argument union (or a ConstantValue, whose tags are a subset;
// `union_name` only changes messages). `depth` counts enclosing subgraphs and
// string_to_argument maps; beyond a fixed cap the input is rejected, which
// bounds the recursion on crafted files.
absl::Status ReadArgument(const Value& v, const Path& path, int depth,
                          Argument* out,
                          absl::string_view union_name = "Argument");

// A JSON array of Arguments (graph inputs/outputs, node outputs).
absl::Status ReadArgumentList(const Value& v, const Path& path, int depth,
                              std::vector<Argument>* out);

}  // namespace pt2onnx::pt2::internal

#endif  // PT2ONNX_CORE_PT2_ARGUMENT_JSON_H_
