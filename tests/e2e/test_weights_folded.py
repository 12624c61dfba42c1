"""apply-weights on a graph whose weights the optimizer folded into new
initializers (a transposed weight, arithmetic on weights only): the folded
initializers are recomputed from the other .pt2 under the same names, so the
result equals a direct conversion of that .pt2, with and without optimization."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES

SWAP = FIXTURES / "weight_swap"
BASE, TUNED = SWAP / "folded_base.pt2", SWAP / "folded_finetuned.pt2"


def run_onnx(path):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": np.load(SWAP / "folded_inputs.npz")["x"]})[0]


def test_fixture_really_folds_weights(pt2onnx, tmp_path):
    out = tmp_path / "m.onnx"
    pt2onnx("-q", BASE, "-o", out)
    names = {init.name for init in onnx.load(str(out)).graph.initializer}
    # w and scale are only used through ops on weights: folded away, replaced.
    assert "w" not in names and "scale" not in names, names
    assert names - {"proj.weight", "proj.bias"}, names


@pytest.mark.parametrize("optimize", [[], ["--no-optimize"]], ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("source", ["no_weights", "full"])
def test_apply_weights_after_folding_equals_direct_conversion(pt2onnx, tmp_path, optimize, source):
    graph, applied, direct = tmp_path / "graph.onnx", tmp_path / "a" / "m.onnx", tmp_path / "d" / "m.onnx"
    applied.parent.mkdir()
    direct.parent.mkdir()
    pt2onnx("-q", *optimize, *(["--no-weights"] if source == "no_weights" else []), BASE, "-o", graph)
    pt2onnx("apply-weights", "-q", *optimize, graph, "--from", TUNED, "-o", applied)
    pt2onnx("-q", *optimize, TUNED, "-o", direct)
    assert applied.read_bytes() == direct.read_bytes()
    want = np.load(SWAP / "folded_expected.npz")["out"]
    np.testing.assert_allclose(run_onnx(applied), want, rtol=1e-4, atol=1e-5)
    if source == "full":  # the base weights give other numbers: they really were replaced
        assert not np.allclose(run_onnx(graph), want)


def test_apply_weights_refuses_a_graph_optimized_otherwise(pt2onnx, tmp_path):
    # Folded initializers exist only in the optimized graph: applying to the
    # unoptimized one with optimization on must not silently mix them.
    graph, out = tmp_path / "graph.onnx", tmp_path / "out.onnx"
    pt2onnx("-q", "--no-optimize", BASE, "-o", graph)
    result = pt2onnx("apply-weights", "-q", graph, "--from", TUNED, "-o", out, check=False)
    assert result.returncode == 4, result.stderr
    for needle in ["do not fit", "uses 3 weight(s) the .pt2 does not have", "'w'", "convert it with the same options"]:
        assert needle in result.stderr, result.stderr
    assert not out.exists()


@pytest.mark.parametrize("extra", [[], ["--no-weights"], ["--external-data"]], ids=["inline", "no_weights", "external"])
def test_corrupt_weight_is_found_whether_spliced_or_folded(pt2onnx, tmp_path, extra):
    # Spliced weights are checked as they are copied, folded (read) or unwritten
    # ones after: each corrupt entry fails the conversion and leaves no file.
    import zipfile
    from test_hostile_inputs import flip_byte
    names = [i.filename for i in zipfile.ZipFile(BASE).infolist() if "/data/weights/weight_" in i.filename]
    assert len(names) == 4
    for name in names:
        bad, out = tmp_path / "bad.pt2", tmp_path / "bad.onnx"
        flip_byte(BASE, bad, name, at=3)
        result = pt2onnx(bad, "-q", "-o", out, *extra, check=False)
        assert result.returncode == 4, (name, result.stderr)
        assert name in result.stderr and "is corrupt" in result.stderr, result.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.pt2"]


@pytest.mark.parametrize("extra", [[], ["--external-data"]], ids=["inline", "external"])
def test_apply_weights_finds_a_corrupt_weight_while_copying(pt2onnx, tmp_path, extra):
    # apply-weights checks the CRC as a conversion does (during the copy for
    # spliced weights, before committing for folded ones): exit 4, no file.
    import zipfile
    from test_hostile_inputs import flip_byte
    graph = tmp_path / "graph.onnx"
    pt2onnx("-q", "--no-weights", BASE, "-o", graph)
    names = [i.filename for i in zipfile.ZipFile(TUNED).infolist() if "/data/weights/weight_" in i.filename]
    assert len(names) == 4
    for name in names:
        bad, out = tmp_path / "bad.pt2", tmp_path / "out" / "m.onnx"
        out.parent.mkdir(exist_ok=True)
        flip_byte(TUNED, bad, name, at=3)
        result = pt2onnx("apply-weights", "-q", graph, "--from", bad, "-o", out, *extra, check=False)
        assert result.returncode == 4, (name, result.stderr)
        assert name in result.stderr and "is corrupt" in result.stderr, result.stderr
        assert list(out.parent.iterdir()) == []
