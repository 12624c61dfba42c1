"""End-to-end tests of the executor (runtime) through its CLI, //native:onnxrun.

* Every op type the translator emits for the fixtures (at opsets 18, 20, 23, 24 and 26) has a kernel: the list is
  collected from the converted fixtures, so ops added to the translator show up here automatically.
* Every fixture with recorded torch outputs converts, runs in the executor, and matches torch's outputs
  (the fixture's tolerance: 1e-4 for fp32) and ONNX Runtime's on the same .onnx file.
* Bad inputs give a clear error and a non-zero exit code.

The random fixtures (rand, randn, randint, randperm, ...) are compared like the others: their recorded
outputs are only what is deterministic (range flags, moments within wide bounds, zero tensors of the
drawn shapes and dtypes), so the executor's draws (another generator than torch's) must satisfy them
exactly. test_random_draws checks the raw draws themselves: shape, dtype, range and spread.
"""
import json
import os
import pathlib

import numpy as np
import onnx
import pytest

from conftest import FIXTURES, OPT_ONLY, ROOT, cli_path, fixture_flags, run_process
from test_fixtures import assert_matches, opset_limits, positive_fixtures, run_onnx


def onnxrun_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("ONNXRUN_BIN", str(ROOT / "bazel-bin" / "native" / "onnxrun")))


@pytest.fixture(scope="session")
def onnxrun():
    path = onnxrun_path()
    if not path.exists():
        pytest.fail(f"onnxrun not built at {path}; run bazel build //native:onnxrun")

    def run(*args):
        return run_process([path, *args])

    return run


def model_op_types(model: onnx.ModelProto) -> set:
    ops = set()

    def walk(graph):
        for node in graph.node:
            ops.add(node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}::{node.op_type}")
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)

    walk(model.graph)
    return ops


# One test per opset, so pytest-xdist spreads them over its workers.
@OPT_ONLY
@pytest.mark.parametrize("opset", (18, 20, 23, 24, 26), ids=lambda o: f"opset{o}")
def test_every_emitted_op_has_a_kernel(opset, onnxrun, tmp_path):
    kernels = set(onnxrun("--list-kernels").stdout.split())
    assert "Conv" in kernels
    emitted = {}  # op -> first fixture that emits it
    out = tmp_path / "m.onnx"
    limits = opset_limits()
    converted = 0
    for pt2 in sorted(FIXTURES.glob("**/model.pt2")):
        # --no-weights: the same graph without its initializers, which nothing here reads.
        result = run_process([cli_path(), pt2, "-o", out, "-q", "--opset", opset, "--no-weights"])
        if result.returncode != 0:
            # Only the refusals the suite expects (negative fixtures, operators listed in blocked_by,
            # opsets below a fixture's minimum): any other failure would hide the ops that fixture emits.
            name = str(pt2.parent.relative_to(FIXTURES))
            meta_path = pt2.parent / "meta.json"
            meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"negative": True}
            expected = (meta.get("negative") or meta.get("blocked_by")
                        or opset < limits.get(name, {}).get("min_opset", 0))
            assert expected, f"{name} failed to convert at opset {opset}: {result.stderr}"
            continue
        converted += 1
        for op in model_op_types(onnx.load(str(out), load_external_data=False)):
            emitted.setdefault(op, str(pt2.parent.relative_to(FIXTURES)))
    assert converted >= 400, f"only {converted} fixtures converted at opset {opset}"
    missing = {op: where for op, where in sorted(emitted.items()) if op not in kernels}
    assert not missing, f"ops emitted by the translator at opset {opset} without an executor kernel: " + ", ".join(
        f"{op} (first in {where})" for op, where in missing.items())


def compare(folder, onnx_path, npz_in, actual_path, meta, label):
    inputs = dict(np.load(npz_in))
    expected = np.load(str(npz_in).replace("inputs", "expected"))
    actual = np.load(actual_path)
    assert list(actual.files) != [] or expected.files == []
    assert len(actual.files) == len(expected.files), f"{label}: {len(actual.files)} outputs, torch has {len(expected.files)}"
    ort_values, _ = run_onnx(onnx_path, inputs)  # (outputs, fallback reason)
    for ours_name, name, ort_value in zip(actual.files, expected.files, ort_values):
        ours = actual[ours_name]
        # The executor against torch's recorded outputs, then against ONNX Runtime.
        assert_matches(ours, expected[name], f"{label}:{name} vs torch", meta)
        assert_matches(ours, np.asarray(ort_value), f"{label}:{name} vs ONNX Runtime", meta)


@pytest.mark.parametrize("folder", positive_fixtures())
def test_fixture_runs_in_executor(folder, pt2onnx, onnxrun, tmp_path):
    meta = json.loads((folder / "meta.json").read_text())
    model_path = tmp_path / "model.onnx"
    pt2onnx(folder / "model.pt2", "-o", model_path, "-q", *fixture_flags(folder))
    ops = sorted(model_op_types(onnx.load(str(model_path))))
    for suffix in ("", "_alt"):
        npz_in = folder / f"inputs{suffix}.npz"
        if not npz_in.exists():
            continue
        out = tmp_path / f"out{suffix}.npz"
        result = onnxrun(model_path, "--inputs", npz_in, "--outputs", out, "-q")
        assert result.returncode == 0, f"executor failed on {folder.name}{suffix} (ops {ops}): {result.stderr}"
        try:
            compare(folder, model_path, npz_in, out, meta, f"{folder.name}{suffix}")
        except AssertionError as error:
            raise AssertionError(f"{error}\nops in the model: {ops}") from None


# The operators of the new opsets (Swish at 24, CumProd from 26) in the executor, against torch and
# ONNX Runtime: the fixtures whose translation changes there.
@pytest.mark.parametrize("opset", (24, 26), ids=lambda o: f"opset{o}")
@pytest.mark.parametrize("name", ("ops/silu", "ops/inplace_activation", "ops/cumulative_scans",
                                  "ops/cumulative_dynamic"))
def test_new_opset_operators_run_in_executor(name, opset, pt2onnx, onnxrun, tmp_path):
    folder = FIXTURES / name
    meta = json.loads((folder / "meta.json").read_text())
    model_path = tmp_path / "model.onnx"
    pt2onnx(folder / "model.pt2", "-o", model_path, "-q", "--opset", opset)
    ops = model_op_types(onnx.load(str(model_path)))
    new_op = "Swish" if "silu" in json.dumps(meta.get("targets", [])) else "CumProd"
    assert (new_op in ops) == (opset == (24 if new_op == "Swish" else 26)), f"{name} at opset {opset}: {sorted(ops)}"
    out = tmp_path / "out.npz"
    result = onnxrun(model_path, "--inputs", folder / "inputs.npz", "--outputs", out, "-q")
    assert result.returncode == 0, result.stderr
    compare(folder, model_path, folder / "inputs.npz", out, meta, f"{name} opset {opset}")


def test_portable_kernels_match_xnnpack(pt2onnx, onnxrun, tmp_path):
    folder = FIXTURES / "resnet18_shaped"
    model_path = tmp_path / "model.onnx"
    pt2onnx(folder / "model.pt2", "-o", model_path, "-q")
    fast, slow = tmp_path / "fast.npz", tmp_path / "slow.npz"
    assert onnxrun(model_path, "--inputs", folder / "inputs.npz", "--outputs", fast, "--threads", 2).returncode == 0
    assert onnxrun(model_path, "--inputs", folder / "inputs.npz", "--outputs", slow, "--portable").returncode == 0
    a, b = np.load(fast), np.load(slow)
    for name in a.files:
        np.testing.assert_allclose(a[name], b[name], atol=1e-4, rtol=1e-4, err_msg=name)


@pytest.fixture(scope="module")
def cnn_model(pt2onnx, tmp_path_factory):
    path = tmp_path_factory.mktemp("cnn") / "model.onnx"
    pt2onnx(FIXTURES / "cnn" / "model.pt2", "-o", path, "-q")
    return path


def save_inputs(path, **arrays):
    np.savez(path, **arrays)
    return path


def test_bad_inputs_are_clear_errors(onnxrun, cnn_model, tmp_path):
    good = dict(np.load(FIXTURES / "cnn" / "inputs.npz"))
    name, value = next(iter(good.items()))
    cases = {
        "wrong dtype": ({name: value.astype(np.float64)}, "must be float32, got float64"),
        "wrong rank": ({name: value[0]}, "must have rank"),
        "missing input": ({}, f"missing input '{name}'"),
        "unknown input": ({**good, "nope": value}, "unknown input 'nope'"),
        "static dim": ({name: np.zeros((1, 4, *value.shape[2:]), value.dtype)}, f"input '{name}' dim 1 must be 3"),
        "empty batch": ({name: value[:0]}, f"input '{name}' dim 0 must be 1, got shape [0,"),
    }
    for label, (arrays, message) in cases.items():
        result = onnxrun(cnn_model, "--inputs", save_inputs(tmp_path / "in.npz", **arrays))
        assert result.returncode == 4, f"{label}: exit {result.returncode}: {result.stderr}"
        assert message in result.stderr, f"{label}: {result.stderr}"


def test_symbolic_dims_must_agree(pt2onnx, onnxrun, tmp_path):
    # named_dims: x [s31, s27, 16] and mask [s31, s27] share both symbols.
    model = tmp_path / "model.onnx"
    pt2onnx(FIXTURES / "named_dims" / "model.pt2", "-o", model, "-q")
    good = dict(np.load(FIXTURES / "named_dims" / "inputs.npz"))
    assert onnxrun(model, "--inputs", save_inputs(tmp_path / "ok.npz", **good)).returncode == 0
    mask = good["mask"]
    bad = {**good, "mask": np.zeros((mask.shape[0], mask.shape[1] + 1), mask.dtype)}
    result = onnxrun(model, "--inputs", save_inputs(tmp_path / "in.npz", **bad))
    assert result.returncode == 4, result.stderr
    assert "input 'mask' dim 1 ('s27') is" in result.stderr and "but another input has it" in result.stderr


def test_cli_errors(onnxrun, cnn_model, tmp_path):
    assert onnxrun().returncode == 2
    assert onnxrun(cnn_model, "--inputs", tmp_path / "absent.npz").returncode == 3
    not_onnx = tmp_path / "x.onnx"
    not_onnx.write_bytes(b"\x01\x02garbage")
    result = onnxrun(not_onnx, "--inputs", FIXTURES / "cnn" / "inputs.npz")
    assert result.returncode == 4 and "ModelProto" in result.stderr


def test_external_data_is_read_from_the_models_folder(pt2onnx, onnxrun, tmp_path):
    """A model with its weights in MODEL.onnx.data (what pt2onnx writes above 1.5 GiB) runs as the
    single-file model does; a data file outside the folder or shorter than the model says is refused."""
    folder = FIXTURES / "cnn"
    single, apart = tmp_path / "single.onnx", tmp_path / "apart" / "model.onnx"
    apart.parent.mkdir()
    pt2onnx(folder / "model.pt2", "-o", single, "-q")
    pt2onnx(folder / "model.pt2", "-o", apart, "-q", "--external-data")
    data = apart.parent / "model.onnx.data"
    assert data.stat().st_size > 0
    outs = {}
    for label, path in (("single", single), ("apart", apart)):
        outs[label] = tmp_path / f"{label}.npz"
        result = onnxrun(path, "--inputs", folder / "inputs.npz", "--outputs", outs[label], "-q")
        assert result.returncode == 0, f"{label}: {result.stderr}"
    a, b = np.load(outs["single"]), np.load(outs["apart"])
    assert a.files == b.files
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)

    model = onnx.load(str(apart), load_external_data=False)
    tensor = next(t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL)
    cases = {"../model.onnx.data": (4, "outside the model's folder"),
             "absent.data": (3, "absent.data")}
    for location, (code, message) in cases.items():
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = location
        bad = apart.parent / "bad.onnx"
        onnx.save(model, str(bad))
        result = onnxrun(bad, "--inputs", folder / "inputs.npz")
        assert result.returncode == code, f"{location}: exit {result.returncode}: {result.stderr}"
        assert message in result.stderr and tensor.name in result.stderr, result.stderr
    data.write_bytes(data.read_bytes()[:8])
    result = onnxrun(apart, "--inputs", folder / "inputs.npz")
    assert result.returncode == 4 and "holds 8 bytes" in result.stderr, result.stderr


def test_unsupported_op_is_named(onnxrun, tmp_path):
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Hardmax", ["y"], ["z"], name="hm")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]), str(path))
    result = onnxrun(path, "--inputs", save_inputs(tmp_path / "in.npz", x=np.zeros(2, np.float32)))
    assert result.returncode == 5
    assert "Hardmax (first node 'hm')" in result.stderr


def test_random_draws(onnxrun, tmp_path):
    from onnx import TensorProto, helper
    nodes = [
        helper.make_node("RandomUniformLike", ["x"], ["u"], name="u", low=-2.0, high=3.0),
        helper.make_node("RandomUniformLike", ["x"], ["u2"], name="u2", dtype=TensorProto.DOUBLE),
        helper.make_node("RandomNormalLike", ["x"], ["n"], name="n", mean=1.0, scale=2.0),
    ]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [20000])],
                              [helper.make_tensor_value_info("u", TensorProto.FLOAT, [20000]),
                               helper.make_tensor_value_info("u2", TensorProto.DOUBLE, [20000]),
                               helper.make_tensor_value_info("n", TensorProto.FLOAT, [20000])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]), str(path))
    out = tmp_path / "out.npz"
    result = onnxrun(path, "--inputs", save_inputs(tmp_path / "in.npz", x=np.zeros(20000, np.float32)),
                     "--outputs", out, "-q")
    assert result.returncode == 0, result.stderr
    values = np.load(out)
    u, u2, n = (values[k] for k in values.files)
    assert u.dtype == np.float32 and u2.dtype == np.float64 and n.dtype == np.float32
    assert u.shape == u2.shape == n.shape == (20000,)
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.1
    assert u2.min() >= 0 and u2.max() < 1 and abs(u2.mean() - 0.5) < 0.02
    assert abs(n.mean() - 1) < 0.1 and abs(n.std() - 2) < 0.1
    assert len(np.unique(u)) > 19000  # not a constant, not a short cycle
