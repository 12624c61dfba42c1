"""Shared fixtures for the end-to-end tests: the pt2onnx CLI and the fixture zoo."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"

# Every process the suite starts runs under this limit (seconds; PT2ONNX_E2E_TIMEOUT overrides it for slow
# machines): one hung conversion fails its test instead of eating the CI budget.
TIMEOUT_S = float(os.environ.get("PT2ONNX_E2E_TIMEOUT", "300"))


# Tests whose work only the optimized pass needs to do: the sanitized pass of tools/test.sh
# deselects them (-m "not opt_only") because it already did that work elsewhere: the fixtures at
# every opset (test_runtime.py converts every fixture with the sanitized CLI at the default opset and
# compares with torch and ONNX Runtime; the fuzz replay converts every .pt2 too),
# the dim sweep (tools/fuzz/replay_hostile.sh sends the same 13,000+ variants through the sanitized
# pipeline) and the op-type listing of every conversion (test_fixtures makes them with the same CLI).
OPT_ONLY = pytest.mark.opt_only


def pytest_configure(config):
    config.addinivalue_line("markers", "opt_only: covered by the sanitized pass elsewhere; "
                                       "tools/test.sh runs it with the optimized binaries only")


def run_process(args, timeout=None, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run with the suite's timeout; text output captured unless the caller says otherwise.
    The one way the e2e tests start a process (a hang is a test failure naming the command)."""
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    limit = TIMEOUT_S if timeout is None else timeout
    try:
        return subprocess.run([str(a) for a in args], timeout=limit, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail(f"timed out after {limit:g} s: {' '.join(map(str, args))}")


def start_process(args, **kwargs) -> subprocess.Popen:
    """subprocess.Popen for tests that signal a running process; wait with wait_process."""
    return subprocess.Popen([str(a) for a in args], **kwargs)


def wait_process(proc: subprocess.Popen, timeout=None) -> int:
    limit = TIMEOUT_S if timeout is None else timeout
    try:
        return proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"timed out after {limit:g} s: {' '.join(map(str, proc.args))}")


def fixture_flags(folder: pathlib.Path) -> list:
    """The flags every conversion of a fixture takes: --opset N when its meta.json states one (a fixture
    that only newer opsets express, e.g. view(dtype) needs BitCast at 26)."""
    import json
    opset = json.loads((folder / "meta.json").read_text()).get("opset")
    return ["--opset", opset] if opset else []


def cli_path() -> pathlib.Path:
    path = os.environ.get("PT2ONNX_BIN", str(ROOT / "bazel-bin" / "native" / "pt2onnx"))
    return pathlib.Path(path)


@pytest.fixture(scope="session")
def pt2onnx():
    path = cli_path()
    if not path.exists():
        pytest.fail(f"pt2onnx CLI not built at {path}; run tools/test.sh (it builds it first)")

    def run(*args, check=True):
        result = run_process([path, *args])
        if check and result.returncode != 0:
            raise AssertionError(f"pt2onnx {' '.join(map(str, args))} failed "
                                 f"(exit {result.returncode}):\n{result.stderr}")
        return result

    return run


# Fixture runs that ONNX Runtime could not execute and onnx.reference ran
# instead, out of FIXTURE_RUNS (tests/e2e/test_fixtures.py fills both;
# tests/fixtures/ort_fallback.json lists the fixtures allowed to need it).
ORT_FALLBACKS = []
FIXTURE_RUNS = []


def pytest_sessionfinish(session):
    # Under pytest-xdist (tools/test.sh runs -n 2) each worker hands its lists to the controller.
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:
        worker_output["fixture_runs"] = FIXTURE_RUNS
        worker_output["ort_fallbacks"] = ORT_FALLBACKS


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    worker_output = getattr(node, "workeroutput", {})
    FIXTURE_RUNS.extend(worker_output.get("fixture_runs", []))
    ORT_FALLBACKS.extend(worker_output.get("ort_fallbacks", []))


def pytest_terminal_summary(terminalreporter):
    # The OpInfo suite's coverage figures, from its table of expected outcomes (which the suite asserts).
    ran = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
           if "test_opinfo.py::test_opinfo_samples" in getattr(r, "nodeid", "")]
    if ran:
        import sys
        sys.path.insert(0, str(ROOT / "tools"))
        import update_opinfo_outcomes as opinfo
        failed = sum(1 for r in ran if r.failed)
        terminalreporter.write_line(opinfo.summary(opinfo.load_index(), opinfo.load_table(), opinfo.load_sweep()) + (
            f"\n  ({failed} operators do not have the outcomes the table says: the figures are the table's)"
            if failed else ""))
    if FIXTURE_RUNS:
        terminalreporter.write_line(
            f"onnx.reference instead of ONNX Runtime: {len(ORT_FALLBACKS)} of {len(FIXTURE_RUNS)} "
            "fixture runs" + (": " + ", ".join(ORT_FALLBACKS) if ORT_FALLBACKS else ""))
