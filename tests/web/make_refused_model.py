"""Writes a .pt2 that every front end must refuse after translating it: the
cnn fixture with its output's declared size changed (1x10 -> 1x11), so the
shapes the program declares contradict what its operators compute and the
checks every conversion runs (ONNX shape inference) fail.

    .venv/bin/python tests/web/make_refused_model.py OUT.pt2
"""
import json
import pathlib
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CNN = ROOT / "tests" / "fixtures" / "cnn" / "model.pt2"
PROGRAM = "model/models/model.json"


def widen_output(data):
    doc = json.loads(data)
    output = doc["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"]
    meta = doc["graph_module"]["graph"]["tensor_values"][output]
    meta["sizes"][-1]["as_int"] += 1
    meta["strides"][0]["as_int"] += 1
    return json.dumps(doc).encode()


def main(out):
    with zipfile.ZipFile(CNN) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, widen_output(data) if info.filename == PROGRAM else data)


if __name__ == "__main__":
    main(sys.argv[1])
