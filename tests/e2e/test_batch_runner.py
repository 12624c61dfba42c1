"""tools/batch/convert_all.sh: a catalogue converted as independent jobs with one JSON record each
(the CLI's --json), resumable, with a summary; its outputs are the CLI's own."""
import json
import os

from conftest import FIXTURES, ROOT, cli_path, run_process

RUNNER = ROOT / "tools" / "batch" / "convert_all.sh"
GOOD = ["cnn", "gpt_block", "dynamic_batch_seq"]


def run(*args, env_extra=None):
    env = dict(os.environ, PT2ONNX=str(cli_path()), **(env_extra or {}))
    return run_process(["bash", RUNNER, *args], env=env)


def records(out):
    return {p.stem: json.loads(p.read_text()) for p in (out / "records").glob("*.json")}


def test_catalogue_with_failures_is_recorded_resumable_and_summarised(tmp_path, pt2onnx):
    listing = tmp_path / "models.txt"
    paths = [FIXTURES / n / "model.pt2" for n in GOOD] + [FIXTURES / "unsupported_aten_op" / "model.pt2",
                                                           tmp_path / "missing.pt2"]
    listing.write_text("# catalogue\n" + "\n".join(map(str, paths)) + "\n\n")
    out = tmp_path / "out"
    first = run("-j", "2", listing, out, "--", "--opset", "20")
    assert first.returncode == 1, first.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["models"] == 5 and summary["ok"] == 3 and summary["failed"] == 2
    assert summary["byCode"] == {"io": 1, "ok": 3, "unsupported": 1}

    recs = records(out)
    assert len(recs) == 5
    for name in GOOD:
        rec = next(r for r in recs.values() if r["input"] == str(FIXTURES / name / "model.pt2"))
        assert rec["ok"] and rec["exitCode"] == 0
        pt2onnx(FIXTURES / name / "model.pt2", "-o", tmp_path / f"{name}.onnx", "-q")
        assert (tmp_path / f"{name}.onnx").read_bytes() == open(rec["output"], "rb").read()
    unsupported = next(r for r in recs.values() if r.get("code") == "unsupported")
    assert unsupported["exitCode"] == 5 and unsupported["unsupportedOps"]
    assert not list((out / "models").glob("*unsupported*"))  # nothing partial left

    # Resumed: nothing is converted again; --retry-failed retries only the failures.
    stamps = {p.name: p.stat().st_mtime_ns for p in (out / "records").iterdir()}
    again = run(listing, out)
    assert again.returncode == 1 and again.stderr == ""
    assert stamps == {p.name: p.stat().st_mtime_ns for p in (out / "records").iterdir()}
    retried = run("--retry-failed", listing, out)
    changed = {p.name for p in (out / "records").iterdir() if p.stat().st_mtime_ns != stamps[p.name]}
    assert retried.returncode == 1 and len(changed) == 2


def test_one_job_of_a_folder_catalogue(tmp_path):
    catalogue = tmp_path / "hub"
    for name in GOOD:
        (catalogue / name).mkdir(parents=True)
        (catalogue / name / "model.pt2").write_bytes((FIXTURES / name / "model.pt2").read_bytes())
    out = tmp_path / "out"
    one = run("--one", "1", catalogue, out, "--", "-q")  # models sorted by path: cnn, dynamic_batch_seq, gpt_block
    assert one.returncode == 0, one.stderr
    assert list(records(out)) == ["dynamic_batch_seq__model"]
    assert (out / "models" / "dynamic_batch_seq__model.onnx").exists()
    assert run("--one", "7", catalogue, out).returncode == 2
    bad_flag = run("--one", "0", catalogue, out, "--", "--frobnicate")
    assert bad_flag.returncode == 0 and records(out)["cnn__model"]["code"] == "usage"
