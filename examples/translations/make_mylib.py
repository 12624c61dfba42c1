#!/usr/bin/env python3
"""Writes mylib.onnxlib: an ONNX function library translating the custom operator mylib::weird_op
(tests/fixtures/unsupported_op: torch.library.custom_op computing sin(x) * 2 + 1) for
`pt2onnx --translations mylib.onnxlib`.

A library is an ONNX ModelProto whose `functions` hold one FunctionProto per operator overload: the
function's domain is the operator's namespace and its name is "<op>.<overload>", so domain "mylib",
name "weird_op.default" translates torch.ops.mylib.weird_op.default. The function's inputs take the
node's tensor arguments in order; its outputs are the node's outputs. Needs only the onnx package:

    /path/to/venv/bin/python examples/translations/make_mylib.py examples/translations/mylib.onnxlib
"""
import sys

import onnx
from onnx import TensorProto, helper


def weird_op():
    two = helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]))
    one = helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]))
    return helper.make_function(
        "mylib", "weird_op.default", ["x"], ["y"],
        [two, one, helper.make_node("Sin", ["x"], ["s"]), helper.make_node("Mul", ["s", "two"], ["m"]),
         helper.make_node("Add", ["m", "one"], ["y"])],
        [helper.make_opsetid("", 18)])


def library(functions):
    graph = helper.make_graph([], "translations", [], [])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], functions=functions)
    model.ir_version = 10
    return model


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "mylib.onnxlib"
    with open(out, "wb") as f:
        f.write(library([weird_op()]).SerializeToString())
