"""Quantized programs end to end (tests/fixtures/quantized, tools/fixtures/generate_quantized_models.py): PT2E
static and dynamic quantization (torchao prepare_pt2e / convert_pt2e), QAT fake quantization, and the
quantized_decomposed operators called directly at ties and range ends.

The generic fixture suites pick these folders up like any other: test_fixtures.py converts each at every opset
and compares ONNX Runtime with torch, test_runtime.py the executor, test_reference.py the reference interpreter
and test_verify.py runs --verify on the recorded inputs, each at the tolerance in meta.json (one quantization
step of the output, with its reason). This file checks what is particular to quantization:

* the quantizer's QDQ structure reaches the ONNX model: every int8 weight stays an int8 initializer read by a
  DequantizeLinear (never folded to float), and every quantize of the program is a QuantizeLinear;
* int16 quantization takes torch's formula below opset 21 and QuantizeLinear from 21, both exact;
* the executor reproduces torch's quantized integers bit for bit at the ties of quant_ops_per_tensor.
"""
import json

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from conftest import FIXTURES
from test_runtime import onnxrun  # noqa: F401

QUANTIZED = FIXTURES / "quantized"
NAMES = sorted(p.parent.name for p in QUANTIZED.glob("*/meta.json"))
PT2E = [n for n in NAMES if n.startswith("pt2e_")]


def meta(name):
    return json.loads((QUANTIZED / name / "meta.json").read_text())


def convert(pt2onnx, name, tmp_path, *flags):
    out = tmp_path / f"{name}.onnx"
    pt2onnx(QUANTIZED / name / "model.pt2", "-o", out, "-q", *flags)
    return onnx.load(str(out)), out


def test_fixtures_are_present_with_their_tolerances():
    assert {"pt2e_resnet", "pt2e_bert", "pt2e_dynamic_linear", "qat_fake_quant", "quant_ops_per_tensor",
            "quant_ops_per_channel", "quant_ops_dynamic", "torchao_llama_int8_weight_only",
            "torchao_int8_dynamic_mlp", "torchao_intx_grouped_weights"} <= set(NAMES)
    for name in NAMES:
        m = meta(name)
        # torchao's int8 weight-only programs quantize nothing at run time: their weights are int8.
        assert m["quantized_ops"] or "int8" in m["parameter_dtypes"], name
        if m.get("atol", 1e-4) > 1e-4:
            assert "one quantization step" in m["tolerance_reason"], name


@pytest.mark.parametrize("name", PT2E)
def test_qdq_structure_reaches_the_model(name, pt2onnx, tmp_path):
    model, _ = convert(pt2onnx, name, tmp_path)
    targets = meta(name)["targets"]
    inits = {i.name: i for i in model.graph.initializer}
    int8_weights = [i for i in model.graph.initializer if i.data_type == onnx.TensorProto.INT8 and
                    len(i.dims) >= 2]
    dq_of_weight = [n for n in model.graph.node if n.op_type == "DequantizeLinear" and n.input[0] in inits and
                    inits[n.input[0]].data_type == onnx.TensorProto.INT8 and len(inits[n.input[0]].dims) >= 2]
    assert len(int8_weights) == targets.get("quantized_decomposed.dequantize_per_channel.default", 0)
    assert len(dq_of_weight) == len(int8_weights)
    # No float copy of a weight: no float initializer holds a dequantized weight's values (or their transpose).
    floats = [numpy_helper.to_array(i) for i in model.graph.initializer if i.data_type == onnx.TensorProto.FLOAT]
    for node in dq_of_weight:
        q = numpy_helper.to_array(inits[node.input[0]]).astype(np.float64)
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        shape = [1] * q.ndim
        shape[axis] = -1
        scale = numpy_helper.to_array(inits[node.input[1]]).reshape(shape)
        zero = numpy_helper.to_array(inits[node.input[2]]).reshape(shape) if len(node.input) > 2 else 0
        w = (q - zero) * scale
        for f in floats:
            if f.size == w.size and f.size > 16:
                for candidate in (w, w.T if w.ndim == 2 else w):
                    if f.shape == candidate.shape:
                        assert not np.allclose(f, candidate), f"{node.input[0]} has a float copy"
    quantizes = sum(v for k, v in targets.items() if k.startswith("quantized_decomposed.quantize_per_tensor"))
    assert sum(n.op_type == "QuantizeLinear" for n in model.graph.node) == quantizes


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("torchao_")])
def test_torchao_weights_stay_int8(name, pt2onnx, tmp_path):
    # torchao's quantized weights reach the file as int8 (a Cast or the dequantize formula reads them; grouped
    # ones viewed as (rows, groups, group)): the optimizer does not fold them to float or int32, which would
    # store each four times larger.
    model, _ = convert(pt2onnx, name, tmp_path)
    m = meta(name)
    int8_params = sum(1 for i in model.graph.initializer if i.data_type == onnx.TensorProto.INT8 and len(i.dims) >= 2)
    linear_weights = m["targets"].get("aten.mm.default", 0) + m["targets"].get("aten.linear.default", 0) + \
        m["targets"].get("aten._int_mm.default", 0)
    assert int8_params >= linear_weights > 0  # grouped zero points may be int8 matrices too
    assert not [i.name for i in model.graph.initializer
                if i.data_type == onnx.TensorProto.FLOAT and len(i.dims) == 2 and min(i.dims) >= 16
                and i.name not in ("model.embed_tokens.weight", "lm.model.embed_tokens.weight")]


@pytest.mark.parametrize("opset", [18, 20, 21, 23])
def test_ties_and_ranges_bit_for_bit(opset, pt2onnx, onnxrun, tmp_path):  # noqa: F811
    """quant_ops_per_tensor: x / 0.5 at every k + 0.5 (half to even), a narrow int8 range (clamped), uint8,
    int16 (formula below opset 21, QuantizeLinear from 21) and int32 (always the formula)."""
    model, path = convert(pt2onnx, "quant_ops_per_tensor", tmp_path, "--opset", opset)
    q_outputs = [n for n in model.graph.node if n.op_type == "QuantizeLinear"]
    assert len(q_outputs) == (4 if opset >= 21 else 3), [n.op_type for n in model.graph.node]
    out = tmp_path / "out.npz"
    result = onnxrun(path, "--inputs", QUANTIZED / "quant_ops_per_tensor" / "inputs.npz", "--outputs", out, "-q")
    assert result.returncode == 0, result.stderr
    expected = np.load(QUANTIZED / "quant_ops_per_tensor" / "expected.npz")
    actual = np.load(out)
    for key in expected.files:
        assert actual[key].dtype == expected[key].dtype, key
        np.testing.assert_array_equal(actual[key], expected[key], err_msg=key)
    # The ties really are ties: x / 0.5 = k + 0.5 rounds to the even neighbour.
    x = np.load(QUANTIZED / "quant_ops_per_tensor" / "inputs.npz")["args_0"].reshape(-1)
    q = expected[expected.files[0]].reshape(-1)
    halves = np.abs(x / 0.5 - np.floor(x / 0.5) - 0.5) < 1e-9
    assert halves.sum() >= 20 and np.all(q[halves] % 2 == 0)


# Static quantization: the activations' parameters are constants. Dynamic quantization computes them at run
# time (choose_qparams), which the int8 plan leaves on the float path (docs/executor.md).
PT2E_STATIC = [n for n in PT2E if "dynamic" not in n]


@pytest.mark.parametrize("name", PT2E_STATIC)
def test_executor_runs_qdq_patterns_in_int8(name, pt2onnx, onnxrun, tmp_path):  # noqa: F811
    """The static PT2E models' QDQ convolutions and matrix products run as XNNPACK int8 steps (onnxrun's summary
    counts them), and their outputs stay within the fixture's tolerance (one quantization step of the output)
    of the float path's (--no-int8) and of torch's."""
    _, path = convert(pt2onnx, name, tmp_path)
    inputs = QUANTIZED / name / "inputs.npz"
    int8_out, float_out = tmp_path / "int8.npz", tmp_path / "float.npz"
    ran = onnxrun(path, "--inputs", inputs, "--outputs", int8_out)
    assert ran.returncode == 0, ran.stderr
    steps = int(ran.stdout.split(" of them int8 steps")[0].rsplit("(", 1)[1])
    assert steps >= 1, ran.stdout
    off = onnxrun(path, "--inputs", inputs, "--outputs", float_out, "--no-int8")
    assert off.returncode == 0, off.stderr
    assert "(0 of them int8 steps)" in off.stdout, off.stdout
    m = meta(name)
    expected = np.load(QUANTIZED / name / "expected.npz")
    a, b = np.load(int8_out), np.load(float_out)
    assert a.files == b.files
    for key, want in zip(a.files, expected.files):
        np.testing.assert_allclose(a[key], b[key], atol=m["atol"], rtol=0, err_msg=f"{name}: int8 vs float path")
        np.testing.assert_allclose(a[key], expected[want], atol=m["atol"], rtol=m.get("rtol", 0),
                                   err_msg=f"{name}: int8 vs torch")
