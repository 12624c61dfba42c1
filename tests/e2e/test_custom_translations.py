"""--translations: an ONNX function library translates a custom operator (tests/fixtures/unsupported_op's
mylib::weird_op, a torch.library.custom_op) so the program converts and matches torch in ONNX Runtime; a
conflict with a built-in needs --override; a missing function, a wrong arity and a bad name are refused
with clear messages and exit codes."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from conftest import FIXTURES, ROOT

LIBRARY = ROOT / "examples" / "translations" / "mylib.onnxlib"
CUSTOM_OP = FIXTURES / "unsupported_op"


def write_library(path, functions):
    model = helper.make_model(helper.make_graph([], "translations", [], []),
                              opset_imports=[helper.make_opsetid("", 18)], functions=functions)
    model.ir_version = 10
    path.write_bytes(model.SerializeToString())
    return path


def unary(domain, name, op, inputs=("x",)):
    return helper.make_function(domain, name, list(inputs), ["y"], [helper.make_node(op, [inputs[0]], ["y"])],
                                [helper.make_opsetid("", 18)])


@pytest.mark.parametrize("opset", [18, 20, 23, 26])
def test_library_translates_the_custom_op_and_matches_torch(pt2onnx, tmp_path, opset):
    out = tmp_path / "m.onnx"
    pt2onnx(CUSTOM_OP / "model.pt2", "-o", out, "-q", "--opset", opset, "--translations", LIBRARY)
    model = onnx.load(str(out))
    onnx.checker.check_model(model, full_check=True)
    assert "Sin" in {n.op_type for n in model.graph.node}
    inputs = dict(np.load(CUSTOM_OP / "inputs.npz"))
    expected = np.load(CUSTOM_OP / "expected.npz")
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    got = sess.run(None, inputs)
    for value, key in zip(got, expected.files):
        np.testing.assert_allclose(value, expected[key], atol=1e-5, rtol=1e-4)


def test_without_the_library_the_custom_op_is_unsupported(pt2onnx, tmp_path):
    result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "-q", check=False)
    assert result.returncode == 5
    assert "mylib::weird_op.default" in result.stderr


def test_missing_function_leaves_the_op_unsupported(pt2onnx, tmp_path):
    lib = write_library(tmp_path / "other.onnxlib", [unary("mylib", "other_op.default", "Relu")])
    result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "-q", "--translations", lib, check=False)
    assert result.returncode == 5
    assert "mylib::weird_op.default" in result.stderr
    assert not (tmp_path / "m.onnx").exists()


def test_wrong_arity_is_refused(pt2onnx, tmp_path):
    two = helper.make_function("mylib", "weird_op.default", ["x", "z"], ["y"],
                               [helper.make_node("Add", ["x", "z"], ["y"])], [helper.make_opsetid("", 18)])
    lib = write_library(tmp_path / "arity.onnxlib", [two])
    result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "-q", "--translations", lib, check=False)
    assert result.returncode != 0
    assert "takes 2 inputs but the node passes 1" in result.stderr
    assert not (tmp_path / "m.onnx").exists()


def test_conflict_with_a_builtin_needs_override(pt2onnx, tmp_path):
    # aten::relu.default as Neg: refused without --override; with it, the library's version is used.
    lib = write_library(tmp_path / "relu.onnxlib", [unary("aten", "relu.default", "Neg", ("self",))])
    fixture = FIXTURES / "ops" / "relu" / "model.pt2"
    result = pt2onnx(fixture, "-o", tmp_path / "m.onnx", "-q", "--translations", lib, check=False)
    assert result.returncode == 2
    assert "conflicts with pt2onnx's own translation" in result.stderr and "--override" in result.stderr
    pt2onnx(fixture, "-o", tmp_path / "m.onnx", "-q", "--translations", lib, "--override")
    ops = {n.op_type for n in onnx.load(str(tmp_path / "m.onnx")).graph.node}
    assert "Neg" in ops and "Relu" not in ops


def test_bad_library_files_are_usage_errors(pt2onnx, tmp_path):
    nameless = write_library(tmp_path / "nameless.onnxlib", [unary("mylib", "weird_op", "Relu")])
    result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "--translations", nameless, check=False)
    assert result.returncode == 2 and "'<op>.<overload>'" in result.stderr
    junk = tmp_path / "junk.onnxlib"
    junk.write_bytes(b"\xff\xff not a model")
    result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "--translations", junk, check=False)
    assert result.returncode == 2 and "translation library" in result.stderr
    result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "--translations", tmp_path / "nope", check=False)
    assert result.returncode == 3


def run_ort(path, inputs):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(None, inputs)


@pytest.mark.parametrize("opset", [18, 20, 22])
def test_library_functions_kept_as_local_functions_match_the_inlined_form(pt2onnx, tmp_path, opset):
    inlined, local = tmp_path / "inlined.onnx", tmp_path / "local.onnx"
    pt2onnx(CUSTOM_OP / "model.pt2", "-o", inlined, "-q", "--opset", opset, "--translations", LIBRARY)
    pt2onnx(CUSTOM_OP / "model.pt2", "-o", local, "-q", "--opset", opset, "--translations", LIBRARY,
            "--translations-as-functions")
    model = onnx.load(str(local))
    onnx.checker.check_model(model, full_check=True)
    assert [(f.domain, f.name) for f in model.functions] == [("mylib", "weird_op.default")]
    function = model.functions[0]
    assert {(o.domain, o.version) for o in function.opset_import} == {("", opset)}
    calls = [n for n in model.graph.node if n.domain == "mylib"]
    assert [n.op_type for n in calls] == ["weird_op.default"]
    assert "Sin" not in {n.op_type for n in model.graph.node}
    assert ("mylib", 1) in {(o.domain, o.version) for o in model.opset_import}
    inputs = dict(np.load(CUSTOM_OP / "inputs.npz"))
    expected = np.load(CUSTOM_OP / "expected.npz")
    for a, b, key in zip(run_ort(local, inputs), run_ort(inlined, inputs), expected.files):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, expected[key], atol=1e-5, rtol=1e-4)


def test_one_local_function_per_library_entry_used(pt2onnx, tmp_path):
    # Two functions in the library, one used: only that one is written.
    lib = write_library(tmp_path / "two.onnxlib", [
        helper.make_function("mylib", "weird_op.default", ["x"], ["y"], [helper.make_node("Sin", ["x"], ["y"])],
                             [helper.make_opsetid("", 18)]),
        unary("mylib", "unused_op.default", "Relu")])
    out = tmp_path / "m.onnx"
    pt2onnx(CUSTOM_OP / "model.pt2", "-o", out, "-q", "--translations", lib, "--translations-as-functions")
    model = onnx.load(str(out))
    onnx.checker.check_model(model, full_check=True)
    assert [f.name for f in model.functions] == ["weird_op.default"]


def test_functions_with_attributes_are_refused(pt2onnx, tmp_path):
    scaled = helper.make_function(
        "mylib", "weird_op.default", ["x"], ["y"],
        [helper.make_node("Constant", [], ["k"], value_float=1.0),
         helper.make_node("Mul", ["x", "k"], ["y"])],
        [helper.make_opsetid("", 18)], attributes=["scale"])
    lib = write_library(tmp_path / "attr.onnxlib", [scaled])
    for extra in ([], ["--translations-as-functions"]):
        result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "--translations", lib, *extra,
                         check=False)
        assert result.returncode == 2
        assert "attribute parameters are not supported" in result.stderr
        assert not (tmp_path / "m.onnx").exists()


def test_as_functions_needs_a_library(pt2onnx, tmp_path):
    result = pt2onnx(CUSTOM_OP / "model.pt2", "-o", tmp_path / "m.onnx", "--translations-as-functions",
                     check=False)
    assert result.returncode == 2
    assert "--translations-as-functions needs a library" in result.stderr
