"""--verify, --verify-intermediates, --verify-node-data and --report (verify, native/verify_command.cc).

* Every fixture the reference interpreter can run (tier-1, models, op zoo) converts and verifies with
  intermediates on its recorded inputs: exit 0. The tier-1 fixtures also verify on seeded inputs.
  The others have their expected outcome in tests/fixtures/expected_failures.json, which the test
  asserts: exit 7 naming the overloads the interpreter lacks (no_reference_kernel), exit 6 for a right
  conversion beyond torch.onnx's thresholds (verify_beyond_thresholds).
* Deliberately broken conversions fail with exit 6 and name the corrupted node as the first diverging one,
  with its stack trace: //tests/verify:pt2onnx_broken is the CLI with a test seam (PT2ONNX_BREAK) that
  swaps a transpose perm, sets a wrong epsilon or drops a bias after translation.
* The report and the Model Explorer node data are written, on failure too.
"""
import json
import os
import pathlib

import pytest

from conftest import FIXTURES, ROOT, fixture_flags, run_process
from test_fixtures import assert_blocked, fixture_id, positive_fixtures
from test_reference import assert_expected_missing_kernels, expected_failures, refrun  # noqa: F401

TIER1 = ["cnn", "resnet18_shaped", "gpt_block", "mlp_dict_list", "dynamic_batch_seq", "named_dims",
         "derived_dims", "decomposed_cnn", "strided_weights", "dtypes"]


def broken_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("PT2ONNX_BROKEN_BIN", str(ROOT / "bazel-bin" / "tests" / "verify" / "pt2onnx_broken")))


def assert_verify_unavailable(result, missing):
    """--verify on a fixture the interpreter cannot run (no_reference_kernel in
    tests/fixtures/expected_failures.json): exit 7, naming the missing overloads."""
    assert result.returncode == 7, result.stderr
    for key in missing:
        assert key in result.stderr, result.stderr


@pytest.mark.parametrize("folder", positive_fixtures())
def test_verify_passes_on_recorded_inputs(folder, pt2onnx, refrun, tmp_path):  # noqa: F811
    missing = assert_expected_missing_kernels(refrun, folder)
    result = pt2onnx(folder / "model.pt2", "-o", tmp_path / "m.onnx", "--verify-intermediates",
                     "--inputs", folder / "inputs.npz", *fixture_flags(folder), check=False)
    if assert_blocked(result, json.loads((folder / "meta.json").read_text())):
        return
    if missing:
        assert_verify_unavailable(result, missing)
        return
    # A right conversion beyond torch.onnx's thresholds (verify_beyond_thresholds): exit 6, strict.
    if fixture_id(folder) in expected_failures("verify_beyond_thresholds"):
        assert result.returncode == 6, result.stderr
        return
    assert result.returncode == 0, result.stderr
    assert "verify: passed" in result.stderr


@pytest.mark.parametrize("name", TIER1)
def test_verify_passes_on_seeded_inputs(name, pt2onnx, refrun, tmp_path):  # noqa: F811
    folder = FIXTURES / name
    missing = assert_expected_missing_kernels(refrun, folder)
    result = pt2onnx(folder / "model.pt2", "-o", tmp_path / "m.onnx", "--verify", "--inputs", "seeded", check=False)
    if missing:
        assert_verify_unavailable(result, missing)
        return
    assert result.returncode == 0, result.stderr
    assert "verify: inputs seeded (seed 0)" in result.stderr


@pytest.mark.parametrize("name,record", [("resnet18_shaped", "model/data/sample_inputs/model.pt"),
                                         ("mlp_dict_list", "model/data/sample_inputs/model.pt"),
                                         ("cnn_torch27", "serialized_example_inputs.pt")])
def test_verify_reads_the_archives_example_inputs(name, record, pt2onnx, tmp_path):
    result = pt2onnx(FIXTURES / name / "model.pt2", "-o", tmp_path / "m.onnx", "--verify", check=False)
    assert result.returncode == 0, result.stderr
    assert f"verify: inputs the archive's {record}" in result.stderr


BREAKS = [
    ("transpose_perm", "models/tv_convnext"),
    ("transpose_perm", "ops/multihead_attention"),
    ("epsilon", "resnet18_shaped"),
    ("epsilon", "decomposed_cnn"),
    ("drop_bias", "decomposed_cnn"),
    ("drop_bias", "mlp_dict_list"),
    # Quantized programs: a broken float op between the QDQ pairs is still found at its node.
    ("drop_bias", "quantized/pt2e_resnet"),
    ("epsilon", "quantized/pt2e_bert"),
    ("drop_bias", "quantized/qat_fake_quant"),
]


@pytest.mark.parametrize("mode,name", BREAKS, ids=[f"{m}-{n}" for m, n in BREAKS])
def test_broken_translation_fails_at_its_node(mode, name, refrun, tmp_path):  # noqa: F811
    binary = broken_path()
    if not binary.exists():
        pytest.fail(f"{binary} not built; run bazel build //tests/verify:pt2onnx_broken")
    folder = FIXTURES / name
    assert not assert_expected_missing_kernels(refrun, folder), "a break needs a fixture the interpreter runs"
    report = tmp_path / "report.md"
    # The seam corrupts the optimized graph: with Conv+BatchNorm folding no
    # BatchNorm is left whose epsilon it could change, so this checks the
    # translation as translated (--no-optimize).
    result = run_process([binary, folder / "model.pt2", "-o", tmp_path / "m.onnx", "--verify",
                          "--no-optimize",
                          "--inputs", folder / "inputs.npz", f"--report={report}",
                          "--verify-node-data", tmp_path / "nd"],
                         env={**os.environ, "PT2ONNX_BREAK": mode})
    broken = [line for line in result.stderr.splitlines() if line.startswith("PT2ONNX_BREAK:")]
    assert broken and "->" in broken[0], result.stderr
    value = broken[0].split("-> ")[1].strip("'")
    assert result.returncode == 6, result.stderr
    assert f"first diverging node: '{value}'" in result.stderr
    assert "stack trace of FX node" in result.stderr
    text = report.read_text()
    assert text.startswith("# PyTorch ONNX Conversion Error Report")
    assert f"`{value}`" in text.split("### First diverging node")[1]
    nodes = json.loads((tmp_path / "nd_max_abs_diff.json").read_text())["main_graph"]["results"]
    assert nodes[f"node_{value}"]["value"] >= 5e-3 or nodes.get(f"[value] {value}", {}).get("value", 0) >= 5e-3


def test_report_sections_on_success(pt2onnx, tmp_path):
    folder = FIXTURES / "resnet18_shaped"
    report = tmp_path / "r.md"
    pt2onnx(folder / "model.pt2", "-o", tmp_path / "m.onnx", "--verify", f"--report={report}")
    text = report.read_text()
    for section in ("# PyTorch ONNX Conversion Report", "## Error messages", "## Exported program", "## ONNX model",
                    "## Analysis", "### Parameters and buffers", "### FX nodes per target", "### Unsupported operators",
                    "### Op coverage of this model", "## Verification results", "### First diverging node",
                    "## Profiling result"):
        assert section in text, section
    assert "✅ Output accuracy" in text


def test_report_written_when_conversion_fails(pt2onnx, tmp_path):
    report = tmp_path / "r.md"
    result = pt2onnx(FIXTURES / "unsupported_op" / "model.pt2", "-o", tmp_path / "m.onnx", f"--report={report}",
                     check=False)
    assert result.returncode == 5
    text = report.read_text()
    assert "Error Report" in text and "❌ Translate to ONNX" in text and "mylib::weird_op" in text


def test_inputs_needs_verify(pt2onnx, tmp_path):
    result = pt2onnx(FIXTURES / "cnn" / "model.pt2", "--inputs", "x.npz", check=False)
    assert result.returncode == 2 and "--inputs is for --verify" in result.stderr


def test_inputs_missing_array(pt2onnx, tmp_path):
    result = pt2onnx(FIXTURES / "mlp_dict_list" / "model.pt2", "-o", tmp_path / "m.onnx", "--verify",
                     "--inputs", FIXTURES / "cnn" / "inputs.npz", check=False)
    assert result.returncode == 4 and "has no array" in result.stderr


def test_random_outputs_are_not_compared(pt2onnx, tmp_path):
    """rand/randn/randint/randperm cannot give torch's or the model's numbers: every value derived from them is
    reported as not compared (never a pass or a failure of its own), in the log, the summary and the report."""
    folder = FIXTURES / "ops" / "randint"
    report = tmp_path / "r.md"
    result = pt2onnx(folder / "model.pt2", "-o", tmp_path / "m.onnx", "--verify-intermediates",
                     "--inputs", folder / "inputs.npz", f"--report={report}", "--verify-node-data", tmp_path / "nd",
                     check=False)
    assert result.returncode == 0, result.stderr
    assert "output and_1                    not compared: random values (aten::randint.default)" in result.stderr
    assert "not compared (derived from random numbers): 9 outputs" in result.stderr
    assert "⏭️ not compared: random values (aten::randint.low)" in report.read_text()
    nodes = json.loads((tmp_path / "nd_max_abs_diff.json").read_text())
    assert "[value] and_1" not in json.dumps(nodes)
