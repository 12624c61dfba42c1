"""The ATen reference interpreter (reference) alone reproduces torch's recorded outputs.

Every fixture with expected.npz (tier-1, tests/fixtures/models, the op zoo) runs through
//native:refrun, which executes the exported program node by node with ATen semantics, without
converting it; its outputs must match torch's eager outputs within the fixture's tolerance (1e-4 for
fp32). Fixtures whose programs call an overload the interpreter lacks are listed with those overloads in
tests/fixtures/expected_failures.json (no_reference_kernel, written by tools/update_expected_failures.py):
for them the test asserts that outcome instead (refrun refuses with exit 5, naming the overloads), and
fails once the interpreter runs them, or when an unlisted fixture stops running. The overloads the
interpreter lacks are listed in tests/reference/missing_overloads.txt, which may only shrink
(//tests/reference:coverage_test).
"""
import json
import os
import pathlib

import numpy as np
import pytest

from conftest import FIXTURES, ROOT, run_process
from test_fixtures import assert_matches, fixture_id, positive_fixtures

EXPECTED_FAILURES = FIXTURES / "expected_failures.json"


def expected_failures(table: str) -> dict:
    """One table of tests/fixtures/expected_failures.json: fixture id -> expected outcome."""
    return json.loads(EXPECTED_FAILURES.read_text())[table]


def assert_expected_missing_kernels(refrun, folder):
    """The overloads `refrun --missing` names for `folder` are those expected_failures.json lists
    (none for most fixtures); returns them."""
    missing = refrun(folder / "model.pt2", "--missing")
    assert missing.returncode == 0, missing.stderr
    expected = expected_failures("no_reference_kernel").get(fixture_id(folder), [])
    assert sorted(missing.stdout.split()) == expected, (
        f"the reference interpreter's gaps for {fixture_id(folder)} changed: run "
        f"tools/update_expected_failures.py and commit {EXPECTED_FAILURES.relative_to(ROOT)}")
    return expected


def refrun_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("REFRUN_BIN", str(ROOT / "bazel-bin" / "native" / "refrun")))


@pytest.fixture(scope="session")
def refrun():
    path = refrun_path()
    if not path.exists():
        pytest.fail(f"refrun not built at {path}; run bazel build //native:refrun")

    def run(*args):
        return run_process([path, *args])

    return run


@pytest.mark.parametrize("folder", positive_fixtures())
def test_interpreter_reproduces_torch(folder, refrun, tmp_path):
    missing = assert_expected_missing_kernels(refrun, folder)
    if missing:
        # Expected outcome: refused, naming what it lacks, before running anything.
        result = refrun(folder / "model.pt2", "--inputs", folder / "inputs.npz", "-q")
        assert result.returncode == 5, result.stderr
        assert "the reference interpreter has no kernel for" in result.stderr, result.stderr
        for key in missing:
            assert key in result.stderr, result.stderr
        return
    # Fixtures the interpreter runs but gets wrong (reference_wrong): strict, so the entry must go
    # once it is fixed.
    wrong = expected_failures("reference_wrong").get(fixture_id(folder))
    if wrong:
        with pytest.raises(AssertionError):
            check_outputs(folder, refrun, tmp_path)
        return
    check_outputs(folder, refrun, tmp_path)


def check_outputs(folder, refrun, tmp_path):
    meta = json.loads((folder / "meta.json").read_text())
    for suffix in ("", "_alt"):
        if not (folder / f"inputs{suffix}.npz").exists():
            continue
        out = tmp_path / f"ref{suffix}.npz"
        result = refrun(folder / "model.pt2", "--inputs", folder / f"inputs{suffix}.npz", "--outputs", out, "-q")
        assert result.returncode == 0, result.stderr
        expected = np.load(folder / f"expected{suffix}.npz")
        actual = np.load(out)
        assert sorted(actual.files) == sorted(expected.files)
        # Outputs derived from random numbers (rand, randn, ...): only their dtype and shape can match.
        random = {line.split()[3] for line in result.stderr.splitlines() if line.startswith("refrun: not comparable:")}
        # Only a program that draws random numbers may have outputs the interpreter cannot compare:
        # anywhere else "not comparable" would turn the comparison off.
        assert not random or any("rand" in t for t in meta.get("targets", {})), (
            f"{folder.name}: outputs {sorted(random)} marked not comparable without a random operator")
        for key in expected.files:
            if key in random:
                assert (actual[key].dtype, actual[key].shape) == (expected[key].dtype, expected[key].shape), key
                continue
            assert_matches(actual[key], expected[key], f"{folder.name}{suffix}:{key}", meta)


def test_expected_failures_name_positive_fixtures():
    ids = {fixture_id(p.values[0]) for p in positive_fixtures()}
    for table in ("no_reference_kernel", "reference_wrong", "verify_beyond_thresholds"):
        for name, outcome in expected_failures(table).items():
            assert name in ids, f"{EXPECTED_FAILURES.name}: {table}: {name} is not a positive fixture"
            assert outcome, f"{EXPECTED_FAILURES.name}: {table}: {name} gives no outcome"


def control_flow_fixtures():
    return sorted(str(m.parent.relative_to(FIXTURES)) for m in FIXTURES.glob("**/meta.json")
                  if any(t.startswith("higher_order.") for t in json.loads(m.read_text()).get("targets", {})))


@pytest.mark.parametrize("name", control_flow_fixtures())
def test_control_flow_fixtures_are_interpretable(name, refrun):
    """torch.cond / while_loop / scan / map and the no_grad/autocast wrappers run in the interpreter: none of
    these fixtures may be skipped above."""
    missing = refrun(FIXTURES / name / "model.pt2", "--missing")
    assert missing.returncode == 0, missing.stderr
    assert missing.stdout.split() == []
