"""pt2onnx MODEL.pt2 --json (converting): one JSON record on stdout, on success and on failure,
with the exit code unchanged; the per-model record of tools/batch/convert_all.sh."""
import json

from conftest import FIXTURES


def record(result):
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def test_success_record_describes_the_written_files(pt2onnx, tmp_path):
    out = tmp_path / "gpt.onnx"
    result = pt2onnx(FIXTURES / "gpt_block" / "model.pt2", "-o", out, "--json", "-q", "--external-data=always")
    rec = record(result)
    assert rec["ok"] is True and rec["exitCode"] == 0
    assert rec["output"] == str(out) and rec["outputBytes"] == out.stat().st_size
    assert rec["data"] == f"{out}.data" and rec["dataBytes"] == (tmp_path / "gpt.onnx.data").stat().st_size
    assert rec["opset"] == 20 and rec["onnxNodes"] > 0 and rec["parameters"] > 0
    assert rec["torchVersion"].startswith("2.") and rec["warnings"] == []
    assert result.stderr == ""


def test_json_does_not_change_the_output(pt2onnx, tmp_path):
    model = FIXTURES / "cnn" / "model.pt2"
    pt2onnx(model, "-o", tmp_path / "a.onnx", "-q")
    pt2onnx(model, "-o", tmp_path / "b.onnx", "-q", "--json")
    assert (tmp_path / "a.onnx").read_bytes() == (tmp_path / "b.onnx").read_bytes()


def test_failure_records_keep_the_exit_code_and_list_unsupported_ops(pt2onnx, tmp_path):
    result = pt2onnx(FIXTURES / "unsupported_aten_op" / "model.pt2", "-o", tmp_path / "u.onnx", "--json", "-q",
                     check=False)
    assert result.returncode == 5
    rec = record(result)
    assert rec["ok"] is False and rec["exitCode"] == 5 and rec["code"] == "unsupported"
    assert rec["unsupportedOps"] and all(op.startswith("aten::") for op in rec["unsupportedOps"])
    assert "run_decompositions()" in rec["message"]
    assert f"pt2onnx: error: {rec['message']}" == result.stderr.strip()
    assert not (tmp_path / "u.onnx").exists()

    missing = pt2onnx(tmp_path / "nope.pt2", "--json", check=False)
    assert missing.returncode == 3
    assert record(missing)["code"] == "io"
