"""Weights apart from the graph: --no-weights, --weights-as-inputs and
`pt2onnx apply-weights MODEL.onnx --from OTHER.pt2 -o OUT.onnx` (round trips
byte-identical to a direct conversion; names, dtypes and shapes checked)."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES

SWAP = FIXTURES / "weight_swap"
ROUND_TRIP = [FIXTURES / "gpt_block" / "model.pt2", FIXTURES / "models" / "hf_llama" / "model.pt2",
              FIXTURES / "dtypes" / "model.pt2", SWAP / "finetuned.pt2"]


def files(path):
    data = path.with_name(path.name + ".data")
    return path.read_bytes(), data.read_bytes() if data.exists() else None


@pytest.mark.parametrize("pt2", ROUND_TRIP, ids=lambda p: p.parent.name + "/" + p.name)
@pytest.mark.parametrize("extra", [[], ["--external-data"], ["--weights-as-inputs"]], ids=["inline", "external", "as_inputs"])
def test_no_weights_then_apply_weights_is_a_direct_conversion(pt2onnx, tmp_path, pt2, extra):
    (tmp_path / "direct").mkdir()
    (tmp_path / "applied").mkdir()
    direct, graph, applied = tmp_path / "direct" / "m.onnx", tmp_path / "graph.onnx", tmp_path / "applied" / "m.onnx"
    pt2onnx("-q", pt2, "-o", direct, *extra)
    as_inputs = ["--weights-as-inputs"] if "--weights-as-inputs" in extra else []
    pt2onnx("-q", "--no-weights", pt2, "-o", graph, *as_inputs)
    assert not graph.with_name("graph.onnx.data").exists()
    external = ["--external-data"] if "--external-data" in extra else []
    pt2onnx("apply-weights", "-q", graph, "--from", pt2, "-o", applied, *external)
    assert files(direct) == files(applied)


def test_no_weights_leaves_initializers_out(pt2onnx, tmp_path):
    out = tmp_path / "graph.onnx"
    pt2onnx("-q", "--no-weights", "--external-data", SWAP / "base.pt2", "-o", out)
    model = onnx.load(str(out))
    assert len(model.graph.initializer) == 0
    assert {i.name for i in model.graph.input} == {"x"}
    assert not (tmp_path / "graph.onnx.data").exists()
    used = {name for node in model.graph.node for name in node.input}
    assert {"fc1.weight", "fc2.bias"} <= used


def test_weights_as_inputs_runs_and_can_be_overridden(pt2onnx, tmp_path):
    out = tmp_path / "m.onnx"
    pt2onnx("-q", "--weights-as-inputs", SWAP / "finetuned.pt2", "-o", out)
    model = onnx.load(str(out))
    inputs = [i.name for i in model.graph.input]
    assert inputs[0] == "x" and set(inputs[1:]) == {i.name for i in model.graph.initializer}
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    assert shapes["fc1.weight"] == [16, 8]
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    x = np.load(SWAP / "finetuned_inputs.npz")["x"]
    want = np.load(SWAP / "finetuned_expected.npz")["out"]
    got = session.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    zero_bias = session.run(None, {"x": x, "fc2.bias": np.zeros(4, np.float32)})[0]
    assert not np.allclose(zero_bias, got)


def test_apply_weights_gives_the_other_checkpoints_numbers(pt2onnx, tmp_path):
    graph, out = tmp_path / "graph.onnx", tmp_path / "m.onnx"
    pt2onnx("-q", "--no-weights", SWAP / "base.pt2", "-o", graph)
    pt2onnx("apply-weights", "-q", graph, "--from", SWAP / "finetuned.pt2", "-o", out)
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    got = session.run(None, {"x": np.load(SWAP / "finetuned_inputs.npz")["x"]})[0]
    np.testing.assert_allclose(got, np.load(SWAP / "finetuned_expected.npz")["out"], rtol=1e-4, atol=1e-5)


def test_apply_weights_replaces_the_weights_of_a_full_model(pt2onnx, tmp_path):
    full, out, direct = tmp_path / "base.onnx", tmp_path / "m.onnx", tmp_path / "d" / "m.onnx"
    direct.parent.mkdir()
    pt2onnx("-q", SWAP / "base.pt2", "-o", full)
    pt2onnx("apply-weights", "-q", full, "--from", SWAP / "finetuned.pt2", "-o", out)
    pt2onnx("-q", SWAP / "finetuned.pt2", "-o", direct)
    assert out.read_bytes() == direct.read_bytes()


@pytest.mark.parametrize("other, as_inputs, needles", [
    ("wider", True, ["differ in dtype or shape", "'fc1.weight'", "FLOAT[16, 8]", "FLOAT[32, 8]"]),
    ("half", True, ["differ in dtype or shape", "FLOAT16[16, 8]"]),
    ("wider", False, ["declares no dtype or shape", "--weights-as-inputs"]),
    ("half", False, ["declares no dtype or shape"]),
    ("renamed", False, ["uses 4 weight(s) the .pt2 does not have", "'fc1.weight'"]),
    ("renamed", True, ["the .pt2 has 4 weight(s) the model does not use", "'first.weight'"]),
])
def test_apply_weights_refuses_weights_that_do_not_fit(pt2onnx, tmp_path, other, as_inputs, needles):
    graph, out = tmp_path / "graph.onnx", tmp_path / "out.onnx"
    pt2onnx("-q", "--no-weights", *(["--weights-as-inputs"] if as_inputs else []), SWAP / "base.pt2", "-o", graph)
    result = pt2onnx("apply-weights", "-q", graph, "--from", SWAP / f"{other}.pt2", "-o", out, check=False)
    assert result.returncode == 4, result.stderr
    for needle in ["do not fit", *needles]:
        assert needle in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.onnx"]  # nothing written


def test_apply_weights_usage_and_bad_model(pt2onnx, tmp_path):
    result = pt2onnx("apply-weights", SWAP / "base.pt2", "-o", tmp_path / "x.onnx", check=False)
    assert result.returncode == 2 and "--from OTHER.pt2" in result.stderr
    not_onnx = tmp_path / "not.onnx"
    not_onnx.write_bytes(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff")
    result = pt2onnx("apply-weights", not_onnx, "--from", SWAP / "base.pt2", "-o", tmp_path / "x.onnx",
                     check=False)
    assert result.returncode == 4 and "not an ONNX model" in result.stderr, result.stderr
    result = pt2onnx("apply-weights", tmp_path / "missing.onnx", "--from", SWAP / "base.pt2", "-o",
                     tmp_path / "x.onnx", check=False)
    assert result.returncode == 3 and "missing.onnx" in result.stderr


def test_apply_weights_refuses_a_truncated_model(pt2onnx, tmp_path):
    full = tmp_path / "full.onnx"
    pt2onnx("-q", SWAP / "base.pt2", "-o", full)
    data = full.read_bytes()
    for cut in (len(data) // 3, len(data) - 5):
        bad = tmp_path / "cut.onnx"
        bad.write_bytes(data[:cut])
        result = pt2onnx("apply-weights", bad, "--from", SWAP / "finetuned.pt2", "-o", tmp_path / "x.onnx",
                         check=False)
        assert result.returncode == 4 and "not an ONNX model" in result.stderr, result.stderr
