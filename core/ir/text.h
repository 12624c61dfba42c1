// File: core/ir/text.h
// -----------------------------------------------------------------------------
// A small text form of the IR, for golden pass tests and debugging. One
// statement per line, '#' starts a comment:
//
//   opset 20                          (or: opset com.microsoft 1)
//   input x: float32[2, s0]           (dims: number, symbol, ? unknown;
//                                      no brackets: rank unknown)
//   init w: float32[2] = [1.5, -2]    (values row-major; at most 64)
//   t = Transpose<perm=[1, 0]>(x)
//   a, b = Split<axis=0>(t, w)        (an empty input: "Clip(x, , m)")
//   y = com.microsoft::Gelu(a)
//   info t: float32[s0, 2]            (value_info of an intermediate)
//   output y: float32[s0, 2]
//
// Attribute values: 3 (int), 1.0 / 1e-05 (float: has '.', 'e', inf or nan),
// "text" (string), [1, 2] (ints), [1.0, 2.5] (floats). Node names and
// metadata are not part of the text: a printed graph compares equal however
// its nodes were named. Tensor and graph attributes print but do not parse.
#ifndef PT2ONNX_CORE_IR_TEXT_H_
#define PT2ONNX_CORE_IR_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/graph.h"

namespace pt2onnx::ir {

// The model in the form above (inputs, initializers, nodes, value_info,
// outputs; initializers of more than 64 elements print "= ...").
std::string PrintModel(const Model& model);
// Parses the form above; InvalidArgument naming the line on errors. Nodes
// get names n0, n1, ... in order.
absl::StatusOr<Model> ParseModel(absl::string_view text);

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_TEXT_H_
