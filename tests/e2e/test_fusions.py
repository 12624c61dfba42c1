"""End-to-end: the norm and GELU fusions (passes/layer_norm_fusion.cc, rms_norm_fusion.cc,
gelu_fusion.cc) on fixtures that hold their patterns after translation. Each fixture converts twice,
with the default optimizer and with every pass but the fusions; ONNX Runtime must give the same outputs
on the fixture's inputs (and torch's, recorded in expected.npz), the fused model must hold the expected
fused nodes, and the other none of them."""
import collections
import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES

FUSIONS = ("layer_norm_fusion", "rms_norm_fusion", "gelu_fusion")
FUSED_OPS = ("LayerNormalization", "RMSNormalization", "Gelu")

# (fixture, opset, {fused op: count added by the fusions}).
CASES = [
    ("ops/layer_norm_by_hand", 18, {"LayerNormalization": 2}),
    ("ops/layer_norm_by_hand", 23, {"LayerNormalization": 2}),
    ("ops/rms_norm_by_hand", 22, {}),
    ("ops/rms_norm_by_hand", 23, {"RMSNormalization": 1}),
    ("ops/gelu_by_hand", 19, {}),
    ("ops/gelu_by_hand", 20, {"Gelu": 2}),
    ("models/hf_llama", 23, {"RMSNormalization": 5}),
    ("models/hf_t5", 23, {"RMSNormalization": 12}),
    ("models/hf_gemma", 23, {"RMSNormalization": 5}),
    ("models/hf_gpt2", 20, {"Gelu": 2}),
    ("models/hf_phi", 23, {"Gelu": 2}),
]


def other_passes(pt2onnx):
    """Every pass name but the fusions, from the CLI's list of known passes."""
    result = pt2onnx(FIXTURES / "ops" / "gelu_by_hand" / "model.pt2", "--passes", "none", check=False)
    known = re.search(r"known: (\S+)", result.stderr).group(1).split(",")
    assert set(FUSIONS) <= set(known), known
    return [name for name in known if name not in FUSIONS]


def run(path, inputs):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: inputs[i.name] for i in session.get_inputs()})


@pytest.mark.parametrize("fixture,opset,fused", CASES, ids=lambda c: str(c))
def test_fusion_keeps_outputs(fixture, opset, fused, pt2onnx, tmp_path):
    folder = FIXTURES / fixture
    before, after = tmp_path / "before.onnx", tmp_path / "after.onnx"
    pt2onnx(folder / "model.pt2", "-o", before, "-q", "--opset", opset, "--passes", ",".join(other_passes(pt2onnx)))
    pt2onnx(folder / "model.pt2", "-o", after, "-q", "--opset", opset)
    count = {}
    for path in (before, after):
        model = onnx.load(str(path))
        onnx.checker.check_model(model, full_check=True)
        count[path] = collections.Counter(n.op_type for n in model.graph.node)
    for op in FUSED_OPS:
        assert count[after][op] - count[before][op] == fused.get(op, 0), (op, count[before][op], count[after][op])
    inputs = dict(np.load(folder / "inputs.npz"))
    expected = np.load(folder / "expected.npz")
    got_before, got_after = run(before, inputs), run(after, inputs)
    assert len(got_before) == len(got_after) == len(expected.files)
    for b, a, name in zip(got_before, got_after, expected.files):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(a, expected[name], rtol=1e-4, atol=1e-4, err_msg=name)
