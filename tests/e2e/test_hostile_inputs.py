"""Hostile or corrupted archives: each gives a clean error (exit 4/5) naming
the problem, never a crash or an invalid model. The CRC-32 of the program JSON
and pickles is always checked, that of the weights unless --no-crc."""
import json
import zipfile

import onnx
import pytest

from conftest import FIXTURES

CNN = FIXTURES / "cnn" / "model.pt2"


def assert_fails(result, code, *needles):
    assert result.returncode == code, (result.returncode, result.stderr)
    for needle in needles:
        assert needle in result.stderr, result.stderr


def data_offset(path, name):
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(name)
    raw = path.read_bytes()
    h = info.header_offset
    name_len = int.from_bytes(raw[h + 26:h + 28], "little")
    extra_len = int.from_bytes(raw[h + 28:h + 30], "little")
    return h + 30 + name_len + extra_len


def flip_byte(src, dst, entry, at=0):
    data = bytearray(src.read_bytes())
    data[data_offset(src, entry) + at] ^= 0x01
    dst.write_bytes(bytes(data))


def test_corrupt_weight_is_found_by_crc_unless_no_crc(pt2onnx, tmp_path):
    bad = tmp_path / "bad.pt2"
    flip_byte(CNN, bad, "model/data/weights/weight_7", at=100)
    out = tmp_path / "bad.onnx"
    assert_fails(pt2onnx(bad, "-o", out, check=False), 4, "model/data/weights/weight_7",
                 "is corrupt", "CRC-32")
    assert not out.exists()
    pt2onnx(bad, "-o", out, "--no-crc", "-q")
    onnx.checker.check_model(onnx.load(out), full_check=True)


def test_corrupt_program_json_is_found_even_with_no_crc(pt2onnx, tmp_path):
    bad = tmp_path / "bad.pt2"
    flip_byte(CNN, bad, "model/models/model.json", at=500)
    assert_fails(pt2onnx(bad, "-o", tmp_path / "bad.onnx", "--no-crc", check=False), 4,
                 "model/models/model.json", "CRC-32")


def rewrite_entry(src, dst, name, edit):
    """Copies the archive with entry `name` replaced by edit(old bytes) (CRC recomputed)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == name:
                data = edit(data)
            zout.writestr(info, data)


def test_weights_config_dtype_minus_one_is_refused(pt2onnx, tmp_path):
    config = "model/data/weights/model_weights_config.json"

    def edit(data):
        doc = json.loads(data)
        first = next(iter(doc["config"].values()))
        first["tensor_meta"]["dtype"] = -1
        return json.dumps(doc).encode()

    bad = tmp_path / "bad.pt2"
    rewrite_entry(CNN, bad, config, edit)
    assert_fails(pt2onnx(bad, "-o", tmp_path / "bad.onnx", check=False), 4,
                 "unknown serialized torch ScalarType code -1")


def test_weights_config_disagreeing_with_the_graph_is_refused(pt2onnx, tmp_path):
    config = "model/data/weights/model_weights_config.json"

    def edit(data):
        doc = json.loads(data)
        first = next(iter(doc["config"].values()))
        meta = first["tensor_meta"]
        meta["dtype"] = 6 if meta["dtype"] != 6 else 7  # float16 <-> float32
        return json.dumps(doc).encode()

    bad = tmp_path / "bad.pt2"
    rewrite_entry(CNN, bad, config, edit)
    assert_fails(pt2onnx(bad, "-o", tmp_path / "bad.onnx", check=False), 4,
                 "but the graph declares", "the .pt2 is inconsistent")


def test_renamed_argument_is_refused(pt2onnx, tmp_path):
    program = "model/models/model.json"

    def edit(data):
        doc = json.loads(data)
        for node in doc["graph_module"]["graph"]["nodes"]:
            if node["inputs"]:
                node["inputs"][0]["name"] = "renamed"
                break
        return json.dumps(doc).encode()

    bad = tmp_path / "bad.pt2"
    rewrite_entry(CNN, bad, program, edit)
    assert_fails(pt2onnx(bad, "-o", tmp_path / "bad.onnx", check=False), 4,
                 "unknown argument 'renamed'")


def test_einsum_without_operands_is_refused(pt2onnx, tmp_path):
    einsum = FIXTURES / "ops" / "einsum" / "model.pt2"
    with zipfile.ZipFile(einsum) as z:
        program = next(n for n in z.namelist() if "/models/" in n)

    def edit(data):
        doc = json.loads(data)
        for node in doc["graph_module"]["graph"]["nodes"]:
            for a in node["inputs"]:
                if a["name"] == "tensors":
                    a["arg"] = {"as_tensors": []}
        return json.dumps(doc).encode()

    bad = tmp_path / "bad.pt2"
    rewrite_entry(einsum, bad, program, edit)
    out = tmp_path / "bad.onnx"
    assert_fails(pt2onnx(bad, "-o", out, check=False), 4, "einsum needs at least one tensor")
    assert not out.exists()
