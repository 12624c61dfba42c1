"""End-to-end: every committed fixture converts at every opset 18-26, passes the
ONNX checker of a current onnx release, and reproduces torch's recorded outputs
(values and dtypes) in ONNX Runtime.

The fixtures (tests/fixtures/**/model.pt2 + inputs.npz + expected.npz) were
written by real torch (tools/fixtures/); these tests need no torch.

Where ONNX Runtime's CPU provider lacks a kernel, onnx.reference runs the model
instead; only the fixtures listed in tests/fixtures/ort_fallback.json may need
that (the count is printed at the end of the run), at the opsets listed there.
Fixtures in tests/fixtures/opset_limits.json need a minimum opset: below it
the CLI must refuse them (exit 5, naming the opset to use), never convert
them approximately. Every registered overload
must appear in some fixture's targets, except those in
tests/fixtures/unproven_ops.txt, a list that may only shrink.
"""
import json
import pathlib
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES, FIXTURE_RUNS, OPT_ONLY, ROOT, ORT_FALLBACKS

sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "fixtures"))
import fixture_checks  # noqa: E402
import update_op_table  # noqa: E402

# The default opset runs first; the others check the opset-dependent
# translations (Split/Squeeze inputs, IsInf types, ...) on the same fixtures.
# Every opset the CLI accepts is swept: 19 is the minimum of some fixtures
# (opset_limits.json), whose first accepted opset must convert and match.
DEFAULT_OPSET = 20
OPSETS = (DEFAULT_OPSET, 18, 19, 21, 22, 23, 24, 25, 26)
# The IR version pt2onnx writes per opset: 10 up to 22, then the IR each opset
# came with (onnx/helper.py VERSION_TABLE).
IR_VERSION = {23: 11, 24: 12, 25: 13, 26: 13}
FALLBACK_LIST = FIXTURES / "ort_fallback.json"
OPSET_LIMITS = FIXTURES / "opset_limits.json"
UNPROVEN_LIST = FIXTURES / "unproven_ops.txt"


def torch_onnx_verdicts() -> dict:
    """Real-model fixture id -> "torch_onnx_wrong" / "torch_onnx_fails" where torch.onnx, run on
    the same model.pt2 (tests/fixtures/models/zoo_record.json), gives other numbers than eager
    torch or fails, while pt2onnx is expected to match: the test's name says so."""
    record = json.loads((FIXTURES / "models" / "zoo_record.json").read_text())
    models = record["models"]
    verdicts = {}
    for entry in (models.values() if isinstance(models, dict) else models):
        theirs = entry.get("torch_onnx", {})
        if not theirs.get("converts", True):
            verdicts["models/" + entry["name"]] = "torch_onnx_fails"
        elif theirs.get("matches") is False:
            verdicts["models/" + entry["name"]] = "torch_onnx_wrong"
    return verdicts


def positive_fixtures():
    verdicts = torch_onnx_verdicts()
    cases = []
    for meta_path in sorted(FIXTURES.glob("**/meta.json")):
        meta = json.loads(meta_path.read_text())
        folder = meta_path.parent
        if meta.get("negative") or not (folder / "expected.npz").exists():
            continue
        # Half-precision models (bfloat16 arrays, tolerances per dtype): tests/e2e/test_half.py.
        if folder.relative_to(FIXTURES).parts[0] == "half":
            continue
        # Real models (tests/fixtures/models) that use operators pt2onnx lacks name them in
        # "blocked_by": the conversion tests assert that refusal (assert_blocked).
        name = str(folder.relative_to(FIXTURES))
        case_id = f"{name}-{verdicts[name]}" if name in verdicts else name
        cases.append(pytest.param(folder, id=case_id))
    return cases


def fixture_id(folder: pathlib.Path) -> str:
    return str(folder.relative_to(FIXTURES))


def assert_blocked(result, meta) -> bool:
    """For a fixture whose meta.json lists `blocked_by` (operators pt2onnx cannot convert yet), the
    expected outcome: refused with exit 5 naming each of them. Strict: once one converts, the
    entry must go. Returns whether the fixture is blocked."""
    blocked = meta.get("blocked_by", [])
    if not blocked:
        return False
    assert result.returncode == 5, result.stderr
    for target in blocked:
        assert target in result.stderr or update_op_table.target_to_key(target) in result.stderr, result.stderr
    return True


def allowed_fallbacks() -> dict:
    """Fixture id -> {"reason": why ONNX Runtime cannot run it, "opsets": where (None: all)}."""
    entries = json.loads(FALLBACK_LIST.read_text())["fixtures"]
    return {name: ({"reason": e, "opsets": None} if isinstance(e, str) else
                   {"reason": e.get("reason", ""), "opsets": e.get("opsets")})
            for name, e in entries.items()}


def fallback_allowed(allowed: dict, name: str, opset: int) -> bool:
    entry = allowed.get(name)
    return entry is not None and (entry["opsets"] is None or opset in entry["opsets"])


def opset_limits() -> dict:
    """Fixture id -> {"min_opset": N, "reason": why lower opsets cannot express it}."""
    return json.loads(OPSET_LIMITS.read_text())["fixtures"]


def run_onnx(model_path: pathlib.Path, inputs: dict):
    """(outputs, None) from ONNX Runtime, or (outputs, reason) from onnx.reference
    when ONNX Runtime cannot load the model (from ONNX Runtime with basic optimizations
    when its extended ones break the model)."""
    try:
        session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    except ort.capi.onnxruntime_pybind11_state.Fail as error:
        # ONNX Runtime's extended graph optimizations (level ALL) can rewrite a valid model into an
        # invalid one; its basic ones keep the graph's operators.
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        return session.run(None, {n: inputs[n] for n in names}), str(error).splitlines()[0]
    except ort.capi.onnxruntime_pybind11_state.NotImplemented as error:
        # ORT's CPU provider lacks some kernels (e.g. bfloat16 Add); ONNX's
        # reference evaluator implements the spec for every type.
        from onnx.reference import ReferenceEvaluator
        from onnx.reference.op_run import OpRun

        class MatMul(OpRun):  # numpy promotes bfloat16 products to float32
            def _run(self, a, b):
                return (np.matmul(a, b).astype(a.dtype),)

        class MaxRoiPool(OpRun):  # onnx.reference has none: the spec's (Caffe's) binning, in numpy
            def _run(self, x, rois, pooled_shape=None, spatial_scale=1.0):
                ph, pw = pooled_shape
                out = np.zeros((rois.shape[0], x.shape[1], ph, pw), x.dtype)
                for r, (b, *box) in enumerate(rois):
                    # C's round (half away from zero), not numpy's half-to-even
                    x1, y1, x2, y2 = (int(np.copysign(np.floor(abs(v * spatial_scale) + 0.5), v)) for v in box)
                    bin_h, bin_w = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
                    for i in range(ph):
                        h0 = min(max(int(np.floor(i * bin_h)) + y1, 0), x.shape[2])
                        h1 = min(max(int(np.ceil((i + 1) * bin_h)) + y1, 0), x.shape[2])
                        for j in range(pw):
                            w0 = min(max(int(np.floor(j * bin_w)) + x1, 0), x.shape[3])
                            w1 = min(max(int(np.ceil((j + 1) * bin_w)) + x1, 0), x.shape[3])
                            if h1 > h0 and w1 > w0:
                                out[r, :, i, j] = x[int(b), :, h0:h1, w0:w1].max(axis=(1, 2))
                return (out,)

        evaluator = ReferenceEvaluator(str(model_path), new_ops=[MatMul, MaxRoiPool])
        names = list(evaluator.input_names)
        return evaluator.run(None, {n: inputs[n] for n in names}), str(error).splitlines()[0]
    names = [i.name for i in session.get_inputs()]
    missing = [n for n in names if n not in inputs]
    assert not missing, f"model inputs {missing} not in the fixture's inputs {list(inputs)}"
    return session.run(None, {n: inputs[n] for n in names}), None


def assert_matches(actual, expected, name, meta):
    """actual against torch's `expected` at the fixture's tolerance for that output's dtype (float32 1e-4
    unless meta.json states a looser one with its reason; half_atol/half_rtol only for float16/bfloat16
    outputs: tools/fixtures/fixture_checks.py)."""
    atol, rtol = fixture_checks.output_tolerance(meta, expected.dtype)
    assert actual.dtype == expected.dtype, f"{name}: dtype {actual.dtype} != torch {expected.dtype}"
    assert actual.shape == expected.shape, f"{name}: shape {actual.shape} != torch {expected.shape}"
    if expected.dtype == np.bool_ or np.issubdtype(expected.dtype, np.integer):
        np.testing.assert_array_equal(actual, expected, err_msg=name)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   atol=atol, rtol=rtol, err_msg=name)


def declared_dtypes(model: onnx.ModelProto) -> list:
    return [np.dtype(onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type))
            for o in model.graph.output]


@pytest.mark.parametrize("folder", positive_fixtures())
# opt_only: the sanitized pass converts every fixture with the sanitized CLI and compares with torch
# and ONNX Runtime in test_runtime.py's test_fixture_runs_in_executor (default opset).
@OPT_ONLY
@pytest.mark.parametrize("opset", OPSETS, ids=lambda o: f"opset{o}")
def test_fixture_converts_and_matches_torch(folder, opset, pt2onnx, tmp_path):
    meta = json.loads((folder / "meta.json").read_text())
    out = tmp_path / "model.onnx"
    limit = opset_limits().get(fixture_id(folder))
    if limit and opset < limit["min_opset"]:
        result = pt2onnx(folder / "model.pt2", "-o", out, "-q", "--opset", opset, check=False)
        assert result.returncode == 5, result.stderr
        assert "--opset" in result.stderr, result.stderr
        assert not out.exists()
        return
    result = pt2onnx(folder / "model.pt2", "-o", out, "-q", "--opset", opset, check=False)
    if assert_blocked(result, meta):
        return
    assert result.returncode == 0, result.stderr

    model = onnx.load(str(out))
    onnx.checker.check_model(model, full_check=True)
    assert model.ir_version == IR_VERSION.get(opset, 10)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [opset]

    allowed = allowed_fallbacks()
    for suffix in ("", "_alt"):
        if not (folder / f"inputs{suffix}.npz").exists():
            continue
        inputs = dict(np.load(folder / f"inputs{suffix}.npz"))
        expected = np.load(folder / f"expected{suffix}.npz")
        actual, fallback = run_onnx(out, inputs)
        name = fixture_id(folder)
        FIXTURE_RUNS.append(name)
        if fallback:
            ORT_FALLBACKS.append(f"{name} (opset {opset}{', ' + suffix[1:] if suffix else ''})")
            assert fallback_allowed(allowed, name, opset), (
                f"ONNX Runtime cannot run {name} ({fallback}); fix the translation, or list the "
                f"fixture with the reason in {FALLBACK_LIST.relative_to(ROOT)}")
        else:
            assert not fallback_allowed(allowed, name, opset), (
                f"ONNX Runtime now runs {name} at opset {opset}: remove it from "
                f"{FALLBACK_LIST.relative_to(ROOT)}")
        assert len(actual) == len(expected.files)
        # The graph declares torch's dtypes, and the runtime produces them.
        want = [expected[n].dtype for n in expected.files]
        assert declared_dtypes(model) == want, f"{name}: declared output dtypes != torch's"
        for value, key in zip(actual, expected.files):
            assert_matches(value, expected[key], f"{folder.name}{suffix}:{key}", meta)


def read_unproven_list() -> dict:
    """`key  # why` lines -> {key: why}; blank lines and comment lines skipped."""
    entries = {}
    for line in UNPROVEN_LIST.read_text().splitlines():
        key, _, why = line.partition("#")
        if key.strip():
            entries[key.strip()] = why.strip()
    return entries


def test_every_registered_overload_is_proven_by_a_fixture(pt2onnx):
    registered = set(pt2onnx("--list-ops").stdout.split())
    proven = update_op_table.proven_keys(FIXTURES)
    allowed = read_unproven_list()
    unproven = sorted(registered - proven - set(allowed))
    assert not unproven, (
        f"{len(unproven)} registered overloads are in no positive fixture's targets (add an op-zoo "
        f"case under tools/fixtures/op_cases/): {unproven}")
    now_proven = sorted(k for k in allowed if k in proven)
    assert not now_proven, (
        f"now proven by a fixture: remove from {UNPROVEN_LIST.relative_to(ROOT)}: {now_proven}")
    gone = sorted(k for k in allowed if k not in registered)
    assert not gone, f"no longer registered: remove from {UNPROVEN_LIST.relative_to(ROOT)}: {gone}"


def test_target_names_map_to_registry_keys():
    assert update_op_table.target_to_key("aten.add.Tensor") == "aten::add.Tensor"
    assert update_op_table.target_to_key("_operator.add") == "_operator::add"
    assert update_op_table.target_to_key("torch.sym_max") == "torch::sym_max"
    assert update_op_table.target_to_key("torch._sym_sqrt") == "torch::_sym_sqrt"
    assert update_op_table.target_to_key("higher_order.cond") == "higher_order::cond"


def test_fallback_list_names_existing_fixtures_with_reasons():
    ids = {p.values[0].relative_to(FIXTURES).as_posix() for p in positive_fixtures()}
    for name, entry in allowed_fallbacks().items():
        assert name in ids, f"{FALLBACK_LIST.name}: {name} is not a positive fixture"
        assert entry["reason"].strip(), f"{FALLBACK_LIST.name}: {name} has no reason"
        assert entry["opsets"] is None or set(entry["opsets"]) <= set(OPSETS), entry
    for name, entry in opset_limits().items():
        assert name in ids, f"{OPSET_LIMITS.name}: {name} is not a positive fixture"
        assert entry["reason"].strip(), f"{OPSET_LIMITS.name}: {name} has no reason"
        assert min(OPSETS) < entry["min_opset"] <= max(OPSETS), entry
        # Above the default opset, the fixture says so itself and every suite converts it there.
        if entry["min_opset"] > DEFAULT_OPSET:
            meta = json.loads((FIXTURES / name / "meta.json").read_text())
            assert meta.get("opset") == entry["min_opset"], f"{name}: meta.json must state \"opset\": {entry['min_opset']}"


def test_op_table_counts_only_proven_overloads():
    keys = ["aten::add.Tensor", "aten::add.Scalar", "aten::relu.default", "_operator::add"]
    proven = {"aten::add.Tensor", "_operator::add", "aten::mul.Tensor"}
    core = ["aten::add.Tensor", "aten::add.Scalar", "aten::relu.default", "aten::mul.Tensor"]
    text = update_op_table.render(keys, proven, core)
    assert "2 operator overloads, each checked against torch's numbers by a fixture (4 registered)" in text
    assert "**aten** (1): `add.Tensor`" in text
    assert "**_operator** (1): `add`" in text
    assert ("Registered but not yet checked against torch (2, not counted): `aten::add.Scalar`, "
            "`aten::relu.default`") in text
    # add and mul are covered (one proven core overload each), relu is not.
    assert "**Core ATen**: 2 of 3 core ATen ops covered (2 of 4 core overloads proven)" in text
    assert "Not covered (1): `relu`" in text
    assert "Expected failures" not in text
    failures = {"no_reference_kernel": {"ops/a": ["aten::relu.default"], "ops/b": ["aten::add.Scalar", "aten::relu.default"]}}
    text = update_op_table.render(keys, proven, core, failures)
    assert ("`--verify` exits 7 on 2 fixtures, whose programs use overloads the reference interpreter cannot "
            "run yet (2): `aten::add.Scalar`, `aten::relu.default`") in text


def test_every_accepted_opset_is_swept(pt2onnx):
    """OPSETS is every opset the CLI accepts (its --help states the range), so none goes untested."""
    import re
    result = pt2onnx("--help", check=False)
    found = re.search(r"--opset N\s+ONNX opset, (\d+)\.\.(\d+) \(default (\d+)", result.stdout + result.stderr)
    assert found, result.stdout + result.stderr
    low, high, default = map(int, found.groups())
    assert sorted(OPSETS) == list(range(low, high + 1))
    assert default == DEFAULT_OPSET
