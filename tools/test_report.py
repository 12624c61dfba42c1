#!/usr/bin/env python3
"""tools/test.sh's per-step accounting: how many tests each step passed, failed and skipped, and its wall
time; a skip not listed in tests/expected_skips.json (with its reason) fails the step, and so does a listed
skip that no longer happens (the table is asserted both ways, so it cannot go stale).

    test_report.py gtest   SUMMARY STEP TESTLOGS TARGET...   googletest logs of Bazel targets (test.log)
    test_report.py junit   SUMMARY STEP FILE.xml             pytest's --junitxml
    test_report.py tap     SUMMARY STEP FILE.tap             node --test's TAP report
    test_report.py timed   SUMMARY STEP STATUS SECONDS       a step without test counts (a build, a script)
    test_report.py print   SUMMARY                           the table, at the end of the run (or on failure)

The counting commands add the step's wall time later: test.sh's step() calls `timed` for every step when
the next one starts, which fills in the seconds of a step already counted. SUMMARY is a JSON-lines file.
"""
import json
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]
TABLE = ROOT / "tests" / "expected_skips.json"


def expected_skips(step: str) -> dict:
    table = json.loads(TABLE.read_text())["steps"]
    for entries in table.values():
        for test, reason in entries.items():
            if not str(reason).strip():
                raise SystemExit(f"{TABLE.relative_to(ROOT)}: {test} has no reason")
    return table.get(step, {})


# googletest's result lines: "[       OK ] Suite.Test (0 ms)", "[  SKIPPED ] Suite.Test (0 ms)", "[  FAILED  ]
# Suite.Test (1 ms)"; the final listing repeats them without a time, so only timed lines count.
_GTEST = re.compile(r"^\[ +(OK|SKIPPED|FAILED) +\] (\S+?),? .*\(\d+ ms\)$")
# The fuzz targets' replay tests (tests/fuzz/replay_main.cc): one case per target.
_REPLAY = re.compile(r"^replayed (\d+) inputs$")
_DISABLED = re.compile(r"YOU HAVE (\d+) DISABLED TESTS?")


def gtest_logs(testlogs: pathlib.Path, target: str) -> list:
    package, _, name = target.lstrip("/").partition(":")
    folder = testlogs / package / name
    logs = sorted(folder.glob("shard_*/test.log")) or [folder / "test.log"]
    missing = [str(p) for p in logs if not p.exists()]
    if missing:
        raise SystemExit(f"test_report: no log for {target} ({missing[0]})")
    return logs


def count_gtest(testlogs: pathlib.Path, targets: list) -> dict:
    if not targets:
        raise SystemExit("test_report: no test targets to count (a failed bazel query?)")
    counts = {"passed": 0, "failed": 0, "skipped": []}
    for target in targets:
        seen = 0
        for log in gtest_logs(testlogs, target):
            for line in log.read_text(errors="replace").splitlines():
                m = _GTEST.match(line)
                if m:
                    seen += 1
                    if m.group(1) == "OK":
                        counts["passed"] += 1
                    elif m.group(1) == "FAILED":
                        counts["failed"] += 1
                    else:
                        counts["skipped"].append(f"{target} {m.group(2)}")
                m = _REPLAY.match(line)
                if m:
                    seen += 1
                    counts["passed"] += 1
                m = _DISABLED.search(line)
                if m:
                    counts["skipped"].extend(f"{target} DISABLED #{i + 1}" for i in range(int(m.group(1))))
        if seen == 0:
            # A googletest binary that ran no test (an empty filter, a crash before main) passed nothing.
            raise SystemExit(f"test_report: {target} ran no googletest case (see its test.log)")
    return counts


def count_junit(path: pathlib.Path) -> dict:
    counts = {"passed": 0, "failed": 0, "skipped": []}
    for case in ET.parse(path).getroot().iter("testcase"):
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("skipped") is not None:
            counts["skipped"].append(test)
        elif case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
        else:
            counts["passed"] += 1
    return counts


# TAP from node --test: "ok 3 - name", "not ok 4 - name", a "# SKIP" or "# TODO" directive after the name.
_TAP = re.compile(r"^\s*(not ok|ok) \d+ - (.*?)(?:\s+#\s*(SKIP|TODO)\b.*)?$", re.IGNORECASE)


def count_tap(path: pathlib.Path) -> dict:
    counts = {"passed": 0, "failed": 0, "skipped": []}
    for line in path.read_text(errors="replace").splitlines():
        m = _TAP.match(line)
        if not m:
            continue
        # Subtests are indented; their parent's line counts them again, so only leaf lines would be exact.
        # Every line counts here: a skip anywhere must be listed, and the totals are for reading.
        if m.group(3):
            counts["skipped"].append(m.group(2).strip())
        elif m.group(1) == "ok":
            counts["passed"] += 1
        else:
            counts["failed"] += 1
    return counts


def append(summary: pathlib.Path, record: dict):
    with summary.open("a") as f:
        f.write(json.dumps(record) + "\n")


def check_and_record(summary: pathlib.Path, step: str, counts: dict) -> int:
    listed = expected_skips(step)
    skipped = counts["skipped"]
    unexpected = sorted(set(skipped) - set(listed))
    stopped = sorted(set(listed) - set(skipped))
    status = "ok"
    if counts["failed"] or unexpected or stopped:
        status = "FAILED"
    append(summary, {"step": step, "status": status, "passed": counts["passed"], "failed": counts["failed"],
                     "skipped": len(skipped)})
    for test in unexpected:
        print(f"{step}: skipped and not listed in {TABLE.relative_to(ROOT)}: {test}", file=sys.stderr)
    for test in stopped:
        print(f"{step}: listed in {TABLE.relative_to(ROOT)} but no longer skipped (remove it): {test}",
              file=sys.stderr)
    for test in sorted(set(skipped) & set(listed)):
        print(f"{step}: skipped as listed: {test} ({listed[test]})")
    return 0 if status == "ok" else 1


def print_table(summary: pathlib.Path):
    rows = {}
    if summary.exists():
        for line in summary.read_text().splitlines():
            r = json.loads(line)
            row = rows.setdefault(r["step"], {"status": "ok", "passed": "", "failed": "", "skipped": "",
                                              "seconds": None})
            for key in ("passed", "failed", "skipped"):
                if key in r:
                    row[key] = r[key]
            if r.get("status") == "FAILED" or row["status"] == "FAILED":
                row["status"] = "FAILED"
            elif r.get("status"):
                row["status"] = r["status"]
            if r.get("seconds") is not None:
                row["seconds"] = r["seconds"]
    print("\n=== summary (passed / failed / skipped tests, wall time of each step)")
    width = max([len(s) for s in rows] + [4])
    total = 0.0
    for step, r in rows.items():
        secs = r["seconds"]
        total += secs or 0
        when = f"{int(secs // 60)} min {secs % 60:4.1f} s" if secs is not None else "-"
        print(f"{step:<{width}}  {r['status']:<7} {str(r['passed']):>6} {str(r['failed']):>6} "
              f"{str(r['skipped']):>6}  {when}")
    print(f"{'total':<{width}}  {'':<7} {'':>6} {'':>6} {'':>6}  {int(total // 60)} min {total % 60:4.1f} s")


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    command, summary = argv[1], pathlib.Path(argv[2])
    if command == "print":
        print_table(summary)
        return 0
    step = argv[3]
    if command == "gtest":
        return check_and_record(summary, step, count_gtest(pathlib.Path(argv[4]), argv[5:]))
    if command == "junit":
        return check_and_record(summary, step, count_junit(pathlib.Path(argv[4])))
    if command == "tap":
        return check_and_record(summary, step, count_tap(pathlib.Path(argv[4])))
    if command == "timed":
        append(summary, {"step": step, "status": argv[4], "seconds": float(argv[5])})
        return 0
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
