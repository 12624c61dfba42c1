"""The ATen reference interpreter (core/reference) alone reproduces torch's recorded outputs.

Every fixture with expected.npz (tier-1, tests/fixtures/models, the op zoo) runs through
//native:refrun, which executes the exported program node by node with ATen semantics, without
converting it; its outputs must match torch's eager outputs within the fixture's tolerance (1e-4 for
fp32). Fixtures whose programs call an overload the interpreter lacks are skipped, naming it: the list
of such overloads is tests/reference/missing_overloads.txt, which may only shrink
(//tests/reference:coverage_test).
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

from conftest import FIXTURES, ROOT
from test_fixtures import assert_matches, positive_fixtures


def refrun_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("REFRUN_BIN", str(ROOT / "bazel-bin" / "native" / "refrun")))


@pytest.fixture(scope="session")
def refrun():
    path = refrun_path()
    if not path.exists():
        pytest.fail(f"refrun not built at {path}; run bazel build //native:refrun")

    def run(*args):
        return subprocess.run([str(path), *map(str, args)], capture_output=True, text=True)

    return run


# Fixtures whose programs the interpreter runs but gets wrong, with the reason (remove an entry
# once it is fixed).
KNOWN_WRONG = {}


@pytest.mark.parametrize("folder", positive_fixtures())
def test_interpreter_reproduces_torch(folder, refrun, tmp_path):
    if folder.name in KNOWN_WRONG:
        pytest.xfail(KNOWN_WRONG[folder.name])
    missing = refrun(folder / "model.pt2", "--missing")
    assert missing.returncode == 0, missing.stderr
    if missing.stdout.split():
        pytest.skip("no reference kernel for " + ", ".join(missing.stdout.split()))
    meta = json.loads((folder / "meta.json").read_text())
    atol = meta.get("atol", meta.get("atol_hint", 1e-4))
    rtol = meta.get("rtol", atol)
    for suffix in ("", "_alt"):
        if not (folder / f"inputs{suffix}.npz").exists():
            continue
        out = tmp_path / f"ref{suffix}.npz"
        result = refrun(folder / "model.pt2", "--inputs", folder / f"inputs{suffix}.npz", "--outputs", out, "-q")
        assert result.returncode == 0, result.stderr
        expected = np.load(folder / f"expected{suffix}.npz")
        actual = np.load(out)
        assert sorted(actual.files) == sorted(expected.files)
        for key in expected.files:
            assert_matches(actual[key], expected[key], f"{folder.name}{suffix}:{key}", atol, rtol)


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
