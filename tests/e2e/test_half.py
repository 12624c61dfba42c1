"""Half-precision programs end to end (tests/fixtures/half, tools/fixtures/generate_half_models.py): real models
exported after .to(torch.bfloat16) / .half() and a program with explicit casts.

* Each converts, and pt2onnx's executor (onnxrun) and reference interpreter (refrun) reproduce torch's recorded
  outputs in torch's dtypes, within a few units in the last place (ulps) of the output's dtype, relative to
  max(|expected|, median |expected|). ONNX Runtime checks the fp16 models too; its CPU provider has no bfloat16
  MatMul, which the test asserts (strict: once it loads them, compare them here).
* --verify passes on them, printing the dtype's thresholds, and still fails, naming the corrupted node, on a
  deliberately broken translation (//tests/verify:pt2onnx_broken).
* bfloat16 round-trips through onnxrun's .npz files in the form numpy.save writes for ml_dtypes.bfloat16.

These fixtures are not in test_fixtures.py's positive_fixtures(): ONNX Runtime's Python API cannot return
bfloat16 arrays, and their tolerance is per dtype, here.
"""
import json
import os
import subprocess

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from conftest import FIXTURES
from test_reference import refrun  # noqa: F401
from test_runtime import onnxrun  # noqa: F401
from test_verify import broken_path

HALF = FIXTURES / "half"
NAMES = sorted(p.parent.name for p in HALF.glob("*/meta.json"))

# Units in the last place allowed between torch's eager outputs and ours (both round each op's float32 result
# once; differences come from rounding intermediates differently), of the output dtype's epsilon.
EPSILON = {np.dtype(np.float16): 2.0 ** -10, np.dtype(ml_dtypes.bfloat16): 2.0 ** -7,
           np.dtype(np.float32): 2.0 ** -23}
ULPS = 8
FLOAT32_RTOL = 1e-3  # float32 outputs of the mixed program are computed from half-precision values


def load(path):
    """An .npz as numpy arrays; '<V2' (how numpy.save writes ml_dtypes.bfloat16) viewed as bfloat16."""
    with np.load(path) as z:
        return {k: (z[k].view(ml_dtypes.bfloat16) if z[k].dtype == np.dtype("V2") else z[k]) for k in z.files}


def assert_close_in_ulps(actual, expected, name, coarsest_eps=0.0):
    """coarsest_eps: the epsilon of the coarsest dtype the program computes in (meta.json's rtol / ULPS): a
    float16 output computed from bfloat16 values carries bfloat16's rounding."""
    assert actual.dtype == expected.dtype, f"{name}: dtype {actual.dtype} != torch's {expected.dtype}"
    assert actual.shape == expected.shape, f"{name}: shape {actual.shape} != torch's {expected.shape}"
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    nonzero = np.abs(e[(e != 0) & np.isfinite(e)])
    scale = np.maximum(np.abs(e), np.median(nonzero) if nonzero.size else 0)
    if expected.dtype == np.float32:
        bound = max(FLOAT32_RTOL, ULPS * coarsest_eps) * scale
    else:
        bound = ULPS * max(EPSILON[expected.dtype], coarsest_eps) * scale
    err = np.abs(a - e)
    worst = int(np.argmax(err - bound))
    assert np.all(err <= bound), (f"{name}: |diff| {err.flat[worst]:.3g} at {worst} (expected {e.flat[worst]:.4g}) "
                                  f"over {bound.flat[worst]:.3g}; max |diff| {err.max():.3g}")


def convert(pt2onnx, name, tmp_path, *flags):
    out = tmp_path / f"{name}.onnx"
    pt2onnx(HALF / name / "model.pt2", "-o", out, "-q", *flags)
    return out


def uses_bfloat16(model):
    types = [v.type.tensor_type.elem_type for v in list(model.graph.input) + list(model.graph.output)
             + list(model.graph.value_info)]
    return TensorProto.BFLOAT16 in types or any(t.data_type == TensorProto.BFLOAT16 for t in model.graph.initializer)


def test_fixtures_are_present_and_o1():
    assert {"qwen3_bf16", "qwen3_fp16", "bert_fp16", "resnet_fp16", "mixed_casts"} <= set(NAMES)
    for name in NAMES:
        for key, value in load(HALF / name / "expected.npz").items():
            v = value.astype(np.float64)
            assert 0.2 < np.abs(v).mean() < 20 and v.std() > 0.1, f"{name}:{key} is not O(1) and varying"


@pytest.mark.parametrize("name", NAMES)
def test_executor_reproduces_torch(name, pt2onnx, onnxrun, tmp_path):  # noqa: F811
    model_path = convert(pt2onnx, name, tmp_path)
    model = onnx.load(str(model_path))
    onnx.checker.check_model(model, full_check=True)
    out = tmp_path / "out.npz"
    result = onnxrun(model_path, "--inputs", HALF / name / "inputs.npz", "--outputs", out, "-q")
    assert result.returncode == 0, result.stderr
    expected, actual = load(HALF / name / "expected.npz"), load(out)
    assert list(actual) == [o.name for o in model.graph.output]
    coarsest = json.loads((HALF / name / "meta.json").read_text())["rtol"] / ULPS
    for (key, want), got in zip(expected.items(), actual.values()):
        assert_close_in_ulps(got, want, f"{name}:{key} executor vs torch", coarsest)
    # ONNX Runtime where its CPU provider runs the dtype.
    inputs = load(HALF / name / "inputs.npz")
    if uses_bfloat16(model):
        with pytest.raises(ort.capi.onnxruntime_pybind11_state.NotImplemented):
            ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
        return
    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {i.name: inputs[i.name] for i in session.get_inputs()})
    for (key, want), got in zip(expected.items(), theirs):
        assert_close_in_ulps(got, want, f"{name}:{key} ONNX Runtime vs torch", coarsest)


@pytest.mark.parametrize("name", NAMES)
def test_interpreter_reproduces_torch(name, refrun, tmp_path):  # noqa: F811
    out = tmp_path / "ref.npz"
    result = refrun(HALF / name / "model.pt2", "--inputs", HALF / name / "inputs.npz", "--outputs", out, "-q")
    assert result.returncode == 0, result.stderr
    expected, actual = load(HALF / name / "expected.npz"), load(out)
    assert sorted(actual) == sorted(expected)
    coarsest = json.loads((HALF / name / "meta.json").read_text())["rtol"] / ULPS
    for key, want in expected.items():
        assert_close_in_ulps(actual[key], want, f"{name}:{key} interpreter vs torch", coarsest)


@pytest.mark.parametrize("name", NAMES)
def test_verify_passes_with_the_dtypes_thresholds(name, pt2onnx, tmp_path):
    report = tmp_path / "r.md"
    result = pt2onnx(HALF / name / "model.pt2", "-o", tmp_path / "m.onnx", "--verify-intermediates",
                     "--inputs", HALF / name / "inputs.npz", f"--report={report}", check=False)
    assert result.returncode == 0, result.stderr
    assert "verify: passed" in result.stderr
    dtypes = {o["dtype"] for o in json.loads((HALF / name / "meta.json").read_text())["outputs"]}
    if "bfloat16" in dtypes:
        assert "bfloat16: rel < 0.125 (16 ulp) over max(|expected|, median)" in result.stderr, result.stderr
    if "float16" in dtypes:
        assert "float16: rel < 0.015625 (16 ulp) over max(|expected|, median)" in result.stderr, result.stderr
    assert "Thresholds per expected dtype: " in report.read_text()


# A broken translation of each half model still fails --verify, at the corrupted node.
BREAKS = [
    ("epsilon", "bert_fp16"),         # LayerNormalization epsilon 0.5
    ("drop_bias", "resnet_fp16"),     # the classifier Gemm's bias
    ("drop_bias", "mixed_casts"),     # the float16 Conv's bias
    ("transpose_perm", "qwen3_bf16"),  # a Transpose of the attention, two equal axes swapped
    ("transpose_perm", "qwen3_fp16"),
]


@pytest.mark.parametrize("mode,name", BREAKS, ids=[f"{m}-{n}" for m, n in BREAKS])
def test_broken_half_translation_fails(mode, name, tmp_path):
    binary = broken_path()
    if not binary.exists():
        pytest.fail(f"{binary} not built; run bazel build //tests/verify:pt2onnx_broken")
    result = subprocess.run([str(binary), HALF / name / "model.pt2", "-o", tmp_path / "m.onnx", "--verify",
                             "--no-optimize", "--inputs", HALF / name / "inputs.npz"],
                            capture_output=True, text=True, env={**os.environ, "PT2ONNX_BREAK": mode})
    broken = [line for line in result.stderr.splitlines() if line.startswith("PT2ONNX_BREAK:")]
    assert broken and "->" in broken[0], result.stderr
    value = broken[0].split("-> ")[1].strip("'")
    assert result.returncode == 6, result.stderr
    assert f"first diverging node: '{value}'" in result.stderr, result.stderr


def test_bfloat16_round_trips_through_onnxrun(onnxrun, tmp_path):  # noqa: F811
    """A bfloat16 input written by numpy.save (ml_dtypes) in, the executor's bfloat16 output out, bit for bit,
    readable by np.load + ml_dtypes."""
    graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2, 3])])
    model_path = tmp_path / "neg.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=10), model_path)
    x = np.array([[1.0, -2.5, 3.140625], [0.0078125, 65280.0, -1e-3]], dtype=ml_dtypes.bfloat16)
    np.savez(tmp_path / "in.npz", x=x)
    result = onnxrun(model_path, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz")
    assert result.returncode == 0, result.stderr
    assert "bfloat16" in result.stdout + result.stderr
    with np.load(tmp_path / "out.npz") as z:
        assert z["y"].dtype == np.dtype("V2")  # as np.load returns a saved ml_dtypes.bfloat16 array
        y = z["y"].view(ml_dtypes.bfloat16)
    assert y.shape == (2, 3)
    np.testing.assert_array_equal(y.view(np.uint16), (-x).view(np.uint16))
    # The .npz np.load gave back (dtype |V2) saved again reads as bfloat16 too.
    np.savez(tmp_path / "again.npz", x=np.load(tmp_path / "in.npz")["x"])
    result = onnxrun(model_path, "--inputs", tmp_path / "again.npz", "--outputs", tmp_path / "out2.npz", "-q")
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "out2.npz")["y"].view(np.uint16).tolist() == (-x).view(np.uint16).tolist()
