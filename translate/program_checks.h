// File: translate/program_checks.h
// -----------------------------------------------------------------------------
// Consistency checks of a program the translator runs before it trusts it:
// a node's arguments against its ATen schema, a stored tensor against the
// graph's metadata for it. A hostile or hand-edited file fails here with a
// message naming the node or tensor, never later with a wrong model.
#ifndef PT2ONNX_TRANSLATE_PROGRAM_CHECKS_H_
#define PT2ONNX_TRANSLATE_PROGRAM_CHECKS_H_

#include <string>

#include "absl/status/status.h"
#include "core/aten/op_schema.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"

namespace pt2onnx::translate {

// A node's arguments must be the schema's: each name once, none unknown
// (a renamed or extra argument would otherwise be ignored and the default
// used silently), every argument without a default present. `schema` may
// be null (an op without one): then only duplicates are refused.
absl::Status CheckNodeArguments(const pt2::Node& node, const std::string& key,
                                const aten::OpSchema* schema);

// The payload config (or pickle) and the graph's placeholder metadata
// `meta` (null: nothing declared) must agree on dtype and static sizes: the
// model is typed from the graph and filled from the weights.
absl::Status CheckWeightAgainstGraph(const pt2::InputSpec& spec, const pt2::Weight& weight,
                                     const pt2::TensorMeta* meta);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_PROGRAM_CHECKS_H_
