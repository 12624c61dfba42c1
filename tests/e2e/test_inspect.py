"""pt2onnx --inspect [--json]: the program described without converting it, checked against
what the fixture generator recorded from torch (meta.json): inputs/outputs with their symbolic
dims at their positions, ranges, symbols in input order, FX targets; unsupported operators
reported with exit 0; unreadable files failing exactly as a conversion does."""
import json
import re

import onnx
import pytest

from conftest import FIXTURES

NAMED = FIXTURES / "named_dims"
DYNAMIC_CASES = ["dynamic_batch_seq", "named_dims", "derived_dims", "ops/dyn_arange_positions",
                 "ops/dyn_reshape_batch_seq", "ops/dyn_view_new_zeros"]
STATIC_CASES = ["cnn", "gpt_block", "mlp_dict_list", "dtypes", "strided_weights", "decomposed_cnn",
                "cnn_torch27", "cnn_torch28", "ops/add", "ops/T"]


def meta_of(case):
    return json.loads((FIXTURES / case / "meta.json").read_text())


def inspect_json(pt2onnx, path, *flags):
    result = pt2onnx(path, "--inspect", "--json", *flags)
    assert result.stderr == "", result.stderr
    return json.loads(result.stdout)


def bound(value):
    return None if isinstance(value, str) else value  # "int_oo" / "-int_oo": unbounded


def expected_symbol_order(meta):
    order = []
    for value in meta["inputs"]:
        dims = meta.get("dynamic", {}).get(value["name"], {})
        for axis in range(len(value["shape"])):
            symbol = dims.get(str(axis))
            if symbol is not None and symbol not in order:
                order.append(symbol)
    return order


@pytest.mark.parametrize("case", DYNAMIC_CASES + STATIC_CASES)
def test_inspect_json_matches_what_torch_recorded(pt2onnx, case):
    meta = meta_of(case)
    info = inspect_json(pt2onnx, FIXTURES / case / "model.pt2")
    dynamic = meta.get("dynamic", {})
    ranges = meta.get("range_constraints", {})

    assert [v["name"] for v in info["inputs"]] == [v["name"] for v in meta["inputs"]]
    for got, want in zip(info["inputs"], meta["inputs"]):
        assert got["dtype"] == want["dtype"], (case, got)
        dims = dynamic.get(want["name"], {})
        assert got["shape"] == [dims.get(str(axis), size) for axis, size in enumerate(want["shape"])]
        assert [d["axis"] for d in got["dims"]] == sorted(int(a) for a in dims)
        for d in got["dims"]:
            assert d["name"] == dims[str(d["axis"])]
            lo, hi = ranges[d["name"]]
            assert d["range"] == {"min": bound(lo), "max": bound(hi)}

    assert [v["name"] for v in info["outputs"]] == [v["name"] for v in meta["outputs"]]
    for got, want in zip(info["outputs"], meta["outputs"]):
        assert got["dtype"] == want["dtype"], (case, got)
        assert len(got["shape"]) == len(want["shape"])
        for size, example in zip(got["shape"], want["shape"]):
            assert isinstance(size, str) or size == example, (case, got["shape"], want["shape"])

    # Symbols by first appearance in the inputs, each with its range.
    assert [s["name"] for s in info["symbols"]][:len(expected_symbol_order(meta))] == \
        expected_symbol_order(meta)
    for s in info["symbols"]:
        if s["name"] in ranges:
            lo, hi = ranges[s["name"]]
            assert s["range"] == {"min": bound(lo), "max": bound(hi)}

    histogram = {op["target"].removeprefix("torch.ops."): op["count"] for op in info["ops"]}
    # torch.export.save writes no getitem nodes: a multi-output node names its outputs itself.
    targets = {t: n for t, n in meta["targets"].items() if t != "_operator.getitem"}
    assert histogram == targets
    assert info["fxNodes"] == sum(targets.values())
    assert all(op["supported"] for op in info["ops"]) and info["unsupported"] == []
    assert info["advice"] is None
    assert info["torchVersion"].startswith(meta["torch_version"])
    assert info["opset"] == 20


def test_named_dims_fixture_symbols_are_not_sorted_by_name(pt2onnx):
    info = inspect_json(pt2onnx, NAMED / "model.pt2")
    meta = meta_of("named_dims")
    names = [s["name"] for s in info["symbols"]]
    assert names == expected_symbol_order(meta)
    assert names != sorted(names)  # the order users were misled by
    seq = meta["dynamic"]["x"]["1"]
    assert next(s for s in info["symbols"] if s["name"] == seq) == {
        "name": seq, "range": {"min": 2, "max": 512}, "uses": ["x[1]", "mask[1]"]}


def test_inspect_text(pt2onnx):
    meta = meta_of("named_dims")
    batch, seq = meta["dynamic"]["x"]["0"], meta["dynamic"]["x"]["1"]
    result = pt2onnx(NAMED / "model.pt2", "--inspect")
    text = result.stdout
    assert result.returncode == 0 and result.stderr == ""
    assert f"x     float32  [{batch}, {seq}, 16]" in text, text
    assert f"{seq} in [2, 512]" in text
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("symbols (4, in input order"))
    assert [l.split()[0] for l in lines[start + 1:start + 5]] == expected_symbol_order(meta)
    assert "all operators are supported" in text
    assert "weights: 2 tensors, 544 B: float32 2 (544 B)" in text


def test_unsupported_ops_are_reported_with_exit_zero(pt2onnx):
    path = FIXTURES / "unsupported_aten_op" / "model.pt2"
    info = inspect_json(pt2onnx, path)
    assert [op["key"] for op in info["unsupported"]] == ["aten::linalg_eigvals.default"]
    assert info["unsupported"][0] == {"key": "aten::linalg_eigvals.default", "count": 1, "firstNode": "linalg_eigvals"}
    assert {op["key"]: op["supported"] for op in info["ops"]}["aten::linalg_eigvals.default"] is False
    assert "run_decompositions()" in info["advice"]
    converted = pt2onnx(path, "-o", "/dev/null", check=False)
    assert converted.returncode == 5
    assert info["advice"] in converted.stderr  # the same advice as the conversion error
    text = pt2onnx(path, "--inspect").stdout
    assert "aten::linalg_eigvals.default  1  UNSUPPORTED" in text
    assert info["advice"] in text


@pytest.mark.parametrize("content", [
    b"",
    b"hello world, not a zip",
    b"PK\x03\x04" + b"\x00" * 64,
])
def test_unreadable_files_fail_as_conversion_does(pt2onnx, tmp_path, content):
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(content)
    inspected = pt2onnx(bad, "--inspect", "--json", check=False)
    converted = pt2onnx(bad, "-o", tmp_path / "bad.onnx", "-q", check=False)
    assert inspected.returncode == converted.returncode == 4
    assert inspected.stderr == converted.stderr
    assert inspected.stdout == ""


@pytest.mark.parametrize("case, code", [("cnn_torch25", 4), ("truncated", 4), ("missing", 3)])
def test_other_failures_match_conversion(pt2onnx, tmp_path, case, code):
    if case == "truncated":
        data = (FIXTURES / "cnn" / "model.pt2").read_bytes()
        path = tmp_path / "t.pt2"
        path.write_bytes(data[: len(data) // 2])
    elif case == "missing":
        path = tmp_path / "nope.pt2"
    else:
        path = FIXTURES / case / "model.pt2"
    inspected = pt2onnx(path, "--inspect", check=False)
    converted = pt2onnx(path, "-o", tmp_path / "out.onnx", "-q", check=False)
    assert inspected.returncode == converted.returncode == code
    assert inspected.stderr == converted.stderr


def test_opset_is_the_one_support_is_checked_at(pt2onnx):
    assert inspect_json(pt2onnx, NAMED / "model.pt2", "--opset", "23")["opset"] == 23


# ---- dims in the converted model ------------------------------------------------------------

def graph_dims(model):
    return {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
            for v in list(model.graph.input) + list(model.graph.output)}


def test_dim_params_and_range_metadata_are_torch_onnx_s(pt2onnx, tmp_path):
    """From a saved .pt2 torch.onnx names dims by torch's symbols (the Dim names are not in the
    file) and writes the range constraints in the file's order; pt2onnx does the same."""
    meta = meta_of("named_dims")
    out = tmp_path / "n.onnx"
    pt2onnx(NAMED / "model.pt2", "-o", out, "-q")
    ours = onnx.load(out)
    theirs = onnx.load(NAMED / "torch_onnx.onnx")
    assert graph_dims(ours) == meta["torch_onnx_dim_params"] == graph_dims(theirs)
    key = "pkg.torch.export.ExportedProgram.range_constraints"
    ours_ranges = {p.key: p.value for p in ours.graph.metadata_props}[key]
    assert ours_ranges == {p.key: p.value for p in theirs.graph.metadata_props}[key]
    assert ours_ranges.startswith("{" + meta["dynamic"]["x"]["0"] + ": VR[0, int_oo], ")


@pytest.mark.parametrize("case", ["named_dims", "derived_dims"])
def test_dim_name_renames_give_what_torch_onnx_gives_with_the_dims(pt2onnx, tmp_path, case):
    """--dim-name with the user's Dim names reproduces torch.onnx's export of the module itself
    (a derived dim such as 2*s98 is renamed as a whole: 2*s98=2*seq)."""
    meta = meta_of(case)
    renames = []
    for name, dims in meta["dynamic"].items():
        for axis, symbol in dims.items():
            spec = meta["dynamic_spec"][name][axis]
            if not spec.startswith("Dim."):
                renames += ["--dim-name", f"{symbol}={spec}"]
    out = tmp_path / "n.onnx"
    pt2onnx(FIXTURES / case / "model.pt2", "-o", out, "-q", *renames)
    # Compared in graph order: torch.onnx may rename an output value (mul -> mul_1).
    assert list(graph_dims(onnx.load(out)).values()) == \
        list(meta["torch_onnx_from_module_dim_params"].values())


def test_derived_dim_keeps_its_own_range(pt2onnx):
    meta = meta_of("derived_dims")
    info = inspect_json(pt2onnx, FIXTURES / "derived_dims" / "model.pt2")
    derived = meta["dynamic"]["b"]["1"]
    assert derived.startswith("2*")
    assert info["inputs"][1]["dims"][1] == {"axis": 1, "name": derived, "range": {"min": 4, "max": 256}}
    assert [s["name"] for s in info["symbols"]] == [meta["dynamic"]["a"]["0"], meta["dynamic"]["a"]["1"], derived]


def test_unknown_dim_name_lists_symbols_in_input_order(pt2onnx, tmp_path):
    meta = meta_of("named_dims")
    result = pt2onnx(NAMED / "model.pt2", "-o", tmp_path / "n.onnx", "--dim-name", "s0=batch", check=False)
    assert result.returncode == 4
    assert f"(it has: {', '.join(expected_symbol_order(meta))})" in result.stderr


def test_conversion_report_lists_symbolic_dims_in_input_order(pt2onnx, tmp_path):
    meta = meta_of("named_dims")
    order = expected_symbol_order(meta)
    seq = meta["dynamic"]["x"]["1"]
    result = pt2onnx(NAMED / "model.pt2", "-o", tmp_path / "n.onnx", "--dim-name", f"{seq}=seq")
    line = next(l for l in result.stderr.splitlines() if "symbolic dims (input order):" in l)
    listed = line.split("symbolic dims (input order): ", 1)[1]
    assert re.findall(r"(\S+)(?: -> \S+)? \[[^\]]*\]", listed) == order
    assert f"{seq} -> seq [2, 512]" in listed
    static = pt2onnx(FIXTURES / "cnn" / "model.pt2", "-o", tmp_path / "c.onnx")
    assert "symbolic dims" not in static.stderr
