"""Every committed fixture's recorded outputs can fail a test: no float output is constant, near zero or
near constant against its tolerance, real models' outputs are O(1) and differ across the batch, and a
float32 tolerance looser than 1e-4 states its reason (tools/fixtures/fixture_checks.py, which the
generators apply before they write a fixture). Op outputs that are constant by the operator's nature are
listed with the reason in tests/fixtures/constant_outputs.json, a table asserted both ways."""
import json
import sys

import numpy as np
import pytest

from conftest import FIXTURES, ROOT

sys.path.insert(0, str(ROOT / "tools" / "fixtures"))
import fixture_checks  # noqa: E402

TABLE = FIXTURES / "constant_outputs.json"


def fixtures_with_outputs():
    """Fixture id -> folder, for every non-negative fixture with recorded outputs."""
    found = {}
    for meta_path in sorted(FIXTURES.glob("**/meta.json")):
        folder = meta_path.parent
        meta = json.loads(meta_path.read_text())
        if not meta.get("negative") and (folder / "expected.npz").exists():
            found[str(folder.relative_to(FIXTURES))] = folder
    return found


def recorded(folder):
    """[(suffix, {output: array})] for expected.npz and expected_alt.npz."""
    sets = []
    for suffix in ("", "_alt"):
        path = folder / f"expected{suffix}.npz"
        if path.exists():
            with np.load(path) as npz:
                sets.append((suffix, {k: npz[k] for k in npz.files}))
    return sets


def test_fixture_count_floor():
    # 432 when this was written: a glob that found nothing would check nothing.
    assert len(fixtures_with_outputs()) >= 420


@pytest.mark.parametrize("group", ["models", "ops", "tier1"])
def test_every_recorded_output_can_fail(group):
    allowed = fixture_checks.allowed_constant_outputs(ROOT)
    problems = []
    checked = 0
    for name, folder in fixtures_with_outputs().items():
        kind = name.split("/")[0] if "/" in name else "tier1"
        if kind != group:
            continue
        meta = json.loads((folder / "meta.json").read_text())
        for suffix, outputs in recorded(folder):
            checked += 1
            problems += [f"{name}{suffix}: {p}" for p in fixture_checks.fixture_problems(
                meta, outputs, model=(group == "models"), allowed=allowed.get(name, {}))]
    assert checked > 0
    assert not problems, (f"{len(problems)} recorded outputs could not fail a test (re-draw the fixture's "
                          f"weights or inputs, or list an op's inherent constant in {TABLE.name}):\n"
                          + "\n".join(problems))


def test_constant_outputs_table_lists_only_constant_outputs():
    found = fixtures_with_outputs()
    stale = []
    for name, entries in fixture_checks.allowed_constant_outputs(ROOT).items():
        assert not name.startswith("models/"), f"{TABLE.name}: {name}: a real model's outputs must all be O(1)"
        assert name in found, f"{TABLE.name}: {name} is not a fixture with recorded outputs"
        meta = json.loads((found[name] / "meta.json").read_text())
        sets = recorded(found[name])
        for output, reason in entries.items():
            assert str(reason).strip(), f"{TABLE.name}: {name}:{output} has no reason"
            arrays = [outputs[output] for _, outputs in sets if output in outputs]
            assert arrays, f"{TABLE.name}: {name} has no output {output}"
            if not any(fixture_checks.output_problems(output, y, *fixture_checks.output_tolerance(meta, y.dtype),
                                                      model=False) for y in arrays):
                stale.append(f"{name}:{output}")
    assert not stale, f"no longer constant: remove from {TABLE.name}: {stale}"


def test_half_tolerances_apply_only_to_half_outputs():
    meta = {"atol": 1e-4, "rtol": 1e-4, "half_atol": 2e-3, "half_rtol": 2e-3}
    assert fixture_checks.output_tolerance(meta, np.float32) == (1e-4, 1e-4)
    assert fixture_checks.output_tolerance(meta, np.float16) == (2e-3, 2e-3)
    assert fixture_checks.tolerance_problems({"atol": 2e-3, "rtol": 2e-3})
    assert not fixture_checks.tolerance_problems({"atol": 2e-3, "rtol": 1e-4, "tolerance_reason": "why"})
    assert fixture_checks.output_tolerance({}, np.float64) == (1e-4, 1e-4)


def test_the_checks_catch_what_they_are_for():
    zeros = np.zeros((2, 10), np.float32)
    assert fixture_checks.output_problems("y", zeros, 1e-4, 1e-4, model=False)
    stuck = np.full((1, 8, 4), 0.5, np.float32) + np.linspace(0, 6e-4, 32, dtype=np.float32).reshape(1, 8, 4)
    assert fixture_checks.output_problems("sigmoid", stuck, 1.5e-4, 1e-4, model=False)
    small = np.linspace(-2.4e-3, 2.4e-3, 10, dtype=np.float32)
    assert fixture_checks.output_problems("logits", small, 1e-4, 1e-4, model=False)
    same_rows = np.tile(np.linspace(-1, 1, 10, dtype=np.float32), (2, 1))
    assert fixture_checks.output_problems("logits", same_rows, 1e-4, 1e-4, model=True)
    assert not fixture_checks.output_problems("logits", same_rows, 1e-4, 1e-4, model=False)
    good = np.random.default_rng(0).standard_normal((2, 10)).astype(np.float32)
    assert not fixture_checks.output_problems("logits", good, 1e-4, 1e-4, model=True)


def test_every_recorded_output_set_has_its_inputs():
    # The comparisons loop over inputs{,_alt}.npz and skip a set whose inputs are missing: an
    # expected*.npz without its inputs would be compared by no test.
    missing = [f"{name}: expected{suffix}.npz without inputs{suffix}.npz"
               for name, folder in fixtures_with_outputs().items() for suffix in ("", "_alt")
               if (folder / f"expected{suffix}.npz").exists() and not (folder / f"inputs{suffix}.npz").exists()]
    assert not missing, missing
