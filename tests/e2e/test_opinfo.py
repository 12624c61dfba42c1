"""End-to-end: PyTorch's own operator database (OpInfo `op_db`) as a test suite.

tests/fixtures/opinfo holds, per operator, the sample inputs of its OpInfo entry, each exported as one
program of the operator's multi-model model.pt2, with torch's eager outputs (written by
tools/fixtures/generate_opinfo.py; these tests need no torch). Every sample is converted by the CLI at
the default opset and run in ONNX Runtime and in the executor (onnxrun); the program runs in the
reference interpreter (refrun); every engine must give torch's dtypes, shapes, NaN positions and
values. The samples that do not are listed in tests/fixtures/opinfo/expected_outcomes.json with what
happens instead (refused with exit 5 naming the unsupported operators, a failure, a mismatch), and the
test asserts exactly that outcome: a listed sample that starts passing fails as well, so the table only
shrinks (tools/update_opinfo_outcomes.py rewrites it). The run ends with the coverage figures.
"""
import sys

import numpy as np
import pytest

from conftest import ROOT, cli_path
from test_reference import refrun_path
from test_runtime import onnxrun_path

sys.path.insert(0, str(ROOT / "tools"))
import update_opinfo_outcomes as opinfo  # noqa: E402

INDEX = opinfo.load_index()
TABLE = opinfo.load_table()
SWEEP = opinfo.load_sweep()
OPS = [op for op, entry in INDEX.items() if entry.get("samples")]


@pytest.fixture(scope="module")
def binaries():
    paths = {"pt2onnx": cli_path(), "onnxrun": onnxrun_path(), "refrun": refrun_path()}
    missing = [f"{name} ({path})" for name, path in paths.items() if not path.exists()]
    if missing:
        pytest.fail(f"not built: {', '.join(missing)}; bazel build //native:pt2onnx //native:onnxrun //native:refrun")
    return paths


# One test per operator (its samples share one archive), so pytest-xdist spreads them.
@pytest.mark.parametrize("op", OPS)
def test_opinfo_samples_have_their_expected_outcomes(op, binaries):
    differences = []
    for sample in opinfo.op_samples(op, INDEX[op]):
        got = opinfo.check_sample(binaries, sample)
        want = opinfo.comparable(TABLE.get(sample.key))
        if got != want:
            differences.append(f"{sample.key} ({sample.record['sample']}):\n    expected "
                               f"{want or 'to match torch everywhere'}\n    got      {got or 'matches torch everywhere'}")
    assert not differences, (
        "OpInfo outcomes changed; if the new ones are right, run tools/update_opinfo_outcomes.py and commit "
        f"{opinfo.TABLE.relative_to(ROOT)}:\n" + "\n".join(differences))


@pytest.mark.parametrize("op", OPS)
def test_opinfo_opset_sweep(op, binaries):
    """The lowest and highest opsets: conversion and ONNX Runtime give the default opset's outcome, or
    the one listed for that opset (opset_sweep). float32 samples only (opinfo.SWEEP_DTYPE)."""
    differences = []
    for sample in opinfo.op_samples(op, INDEX[op]):
        if not sample.swept:
            continue
        for opset in opinfo.SWEEP_OPSETS:
            got = opinfo.check_sample(binaries, sample, opset, opinfo.SWEEP_ENGINES)
            want = opinfo.sweep_expected(TABLE, SWEEP, opset, sample.key)
            if got != want:
                differences.append(f"{sample.key} at opset {opset} ({sample.record['sample']}):\n    expected "
                                   f"{want or 'to match torch'}\n    got      {got or 'matches torch'}")
    assert not differences, (
        "OpInfo outcomes changed; if the new ones are right, run tools/update_opinfo_outcomes.py and commit "
        f"{opinfo.TABLE.relative_to(ROOT)}:\n" + "\n".join(differences))


def test_outcome_table_names_committed_samples_with_reasons():
    samples = {f"{op}/{prog}" for op, prog in opinfo.sample_ids(INDEX)}
    for key, entry in TABLE.items():
        assert key in samples, f"{opinfo.TABLE.name}: {key} is not a committed sample"
        engines = opinfo.comparable(entry)
        assert engines and set(entry) <= set(opinfo.ENGINES) | {"why"}, f"{key}: {entry}"
        assert all(isinstance(v, str) and v.strip() for v in entry.values()), f"{key}: {entry}"
        # Nothing runs a model that did not convert.
        assert not ("convert" in engines and {"ort", "onnxrun"} & set(engines)), f"{key}: {entry}"
    assert sorted(SWEEP) == sorted(str(o) for o in opinfo.SWEEP_OPSETS)
    for opset, entries in SWEEP.items():
        for key, entry in entries.items():
            assert key in samples, f"{opinfo.TABLE.name}: opset {opset}: {key} is not a committed sample"
            assert set(entry) <= set(opinfo.SWEEP_ENGINES) | {"why"}, f"opset {opset}: {key}: {entry}"
            assert opinfo.comparable(entry) != opinfo.sweep_expected(TABLE, {}, int(opset), key), f"opset {opset}: {key} is no exception"


def test_every_sample_has_its_arrays():
    for op in OPS:
        for sample in opinfo.op_samples(op, INDEX[op]):
            assert sample.expected, sample.key
            assert [str(a.dtype) for a in sample.expected] == sample.record["output_dtypes"], sample.key


def test_mismatch_finds_each_kind_of_difference():
    want = [np.array([1.0, np.nan, np.inf, 4.0], np.float32), np.array([1, 2], np.int64)]
    assert opinfo.mismatch([w.copy() for w in want], want) is None
    near = want[0].copy()
    near[0] += 5e-5
    assert opinfo.mismatch([near, want[1]], want) is None
    cases = {
        "1 outputs (torch: 2)": [want[0]],
        "output 0: dtype float64 (torch: float32)": [want[0].astype(np.float64), want[1]],
        "output 1: shape [1, 2] (torch: [2])": [want[0], want[1].reshape(1, 2)],
        "output 0: NaN positions": [np.array([1.0, 2.0, np.inf, 4.0], np.float32), want[1]],
        "output 0: infinities": [np.array([1.0, np.nan, -np.inf, 4.0], np.float32), want[1]],
        "output 0: values": [np.array([1.01, np.nan, np.inf, 4.0], np.float32), want[1]],
        "output 1: values": [want[0], np.array([1, 3], np.int64)],
    }
    for reason, actual in cases.items():
        assert opinfo.mismatch(actual, want) == reason
    # Random operators: only dtype and shape are torch's to compare.
    assert opinfo.mismatch([want[0] * 2, want[1] + 1], want, random=True) is None


def test_mismatch_reads_complex_as_real_only_where_marked():
    want = [np.array([1 + 2j, 3 - 4j], np.complex64)]
    as_real = np.array([[1, 2], [3, -4]], np.float32)
    assert opinfo.mismatch([as_real], want, complex_as_real={0}) is None
    assert opinfo.mismatch([as_real * 2], want, complex_as_real={0}) == "output 0: values"
    # Unmarked: the real layout is no complex value.
    assert opinfo.mismatch([as_real], want) == "output 0: dtype float32 (torch: complex64)"
    assert opinfo.complex_program_outputs({"output_dtypes": ["float32", "complex128"]}) == {1}


def test_summary_counts_samples_operators_and_blockers():
    index = {"a": {"samples": {"s0": {}, "s1": {}}}, "b": {"samples": {"s0": {}}}, "c": {"skipped": {"s0": "x"}}}
    table = {"a/s1": {"convert": "exit 5: unsupported aten::x.default, aten::y.default"},
             "b/s0": {"refrun": "output 0: values", "why": "known"}}
    text = opinfo.summary(index, table)
    assert "OpInfo samples: 3 of 2 operators" in text
    assert "converted:                                             2 / 3 (66.7 %)" in text
    assert "converted and matching torch in ONNX Runtime:          2 / 3 (66.7 %)" in text
    assert "... and in the executor and the reference interpreter: 1 / 3 (33.3 %)" in text
    assert "operators with every sample right everywhere:          0 / 2" in text
    assert "top blocking operators (samples): aten::x.default (1), aten::y.default (1)" in text


def test_dtype_figures_separate_refusals_ort_gaps_and_the_rest():
    index = {"a": {"samples": {"f32_s0": {"dtype": "float32"}, "i8_s0": {"dtype": "int8"}, "f16_s0": {"dtype": "float16"}}},
             "b": {"samples": {"i8_s0": {"dtype": "int8"}, "f16_s0": {"dtype": "float16"}}}}
    gap = "fails: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Max(13) node"
    table = {"a/i8_s0": {"ort": gap},
             "b/i8_s0": {"convert": "exit 5: node 'x' (aten::conv2d.default): int8 convolution: ..."},
             "b/f16_s0": {"onnxrun": "output 0: values"}}
    assert opinfo.dtype_figures(index, table) == [("float32", 1, 1, 0, 0, 0), ("int8", 2, 0, 1, 1, 0),
                                                  ("float16", 2, 1, 0, 0, 1)]
    assert opinfo.is_ort_gap({"ort": "fails: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code "
                                     "returned while running ScatterND node. Status Message: CPU execution provider: "
                                     "MLFloat16 data type is not supported with ScatterND"})
    assert not opinfo.is_ort_gap({"ort": "output 0: values"})
    # An ONNX Runtime gap gets its why written; a hand-written one is kept.
    rendered = opinfo.render({"a/i8_s0": {"ort": gap}}, {}, {"18": {}, "23": {}}, {})
    assert opinfo.ORT_GAP_WHY in rendered
    assert "| int8 | 2 | 0 (0.0 %) | 1 | 1 | 0 |" in opinfo.dtype_table(index, table)
