#!/usr/bin/env python3
"""Rewrites the `no_reference_kernel` table of tests/fixtures/expected_failures.json.

    tools/update_expected_failures.py [--check] [--refrun out/bin/refrun]

For every positive fixture (a meta.json with expected.npz), `refrun --missing` names
the overloads the ATen reference interpreter (reference) cannot run yet; the
fixtures where it names any are listed with them. tests/e2e/test_reference.py and
test_verify.py assert exactly that outcome for the listed fixtures (the interpreter
and --verify refuse them, naming the first missing overload) and a full run for the
others, so the table must follow the interpreter: run this after adding a reference
kernel. The other tables of the file are kept as they are. --check exits 1 when the
table is stale.
"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
TABLE = FIXTURES / "expected_failures.json"


def positive_fixtures(fixtures=FIXTURES):
    """Fixture ids (paths below tests/fixtures) with recorded torch outputs."""
    ids = []
    for meta_path in sorted(fixtures.glob("**/meta.json")):
        meta = json.loads(meta_path.read_text())
        if meta.get("negative") or not (meta_path.parent / "expected.npz").exists():
            continue
        ids.append(meta_path.parent.relative_to(fixtures).as_posix())
    return ids


def missing_kernels(refrun, fixture_id):
    result = subprocess.run([refrun, str(FIXTURES / fixture_id / "model.pt2"), "--missing"],
                            capture_output=True, text=True, check=True)
    return sorted(result.stdout.split())


def render(table):
    return json.dumps(table, indent=1, sort_keys=False) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--refrun", default=str(ROOT / "out" / "bin" / "refrun"))
    args = parser.parse_args()
    table = json.loads(TABLE.read_text())
    gaps = {}
    for fixture_id in positive_fixtures():
        missing = missing_kernels(args.refrun, fixture_id)
        if missing:
            gaps[fixture_id] = missing
    updated = dict(table, no_reference_kernel=gaps)
    if args.check:
        if render(updated) != TABLE.read_text():
            print(f"{TABLE.relative_to(ROOT)} is stale: run tools/update_expected_failures.py",
                  file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(render(updated))
    return 0


if __name__ == "__main__":
    sys.exit(main())
