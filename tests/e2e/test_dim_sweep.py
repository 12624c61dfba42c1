"""Dim/size sweep: every op-zoo fixture with every integer argument (dims,
sizes, steps, pads, indices...) set in turn to rank, rank+3, -rank-1, 2^32,
2^63-1, -2^63 and 2^63 (one argument at a time, the first element of a list)
must give a clean error (exit 4 or 5) or a model that passes onnx's full
check: never a crash, an internal error or an invalid model."""
import concurrent.futures
import json
import os
import zipfile

import onnx
import pytest

from conftest import FIXTURES, OPT_ONLY, cli_path, run_process

OPS = FIXTURES / "ops"
# Scalar values, not dims or sizes: any int is a valid value for them.
VALUE_ARGS = {"other", "alpha", "fill_value", "exponent", "value", "beta", "self", "scalar"}


def variants(rank):
    return [rank, rank + 3, -rank - 1, 2**32, 2**63 - 1, -(2**63), 2**63]


def first_tensor_rank(node, tensor_values):
    for a in node["inputs"]:
        arg = a["arg"]
        name = arg.get("as_tensor", {}).get("name") if "as_tensor" in arg else None
        if name is None and "as_tensors" in arg and arg["as_tensors"]:
            name = arg["as_tensors"][0]["name"]
        if name and name in tensor_values:
            return len(tensor_values[name]["sizes"])
    return 0


def sweep_cases():
    cases = []
    for pt2 in sorted(OPS.glob("*/model.pt2")):
        with zipfile.ZipFile(pt2) as z:
            program = next(n for n in z.namelist() if "/models/" in n and n.endswith(".json"))
            doc = json.loads(z.read(program))
        graph = doc["graph_module"]["graph"]
        for i, node in enumerate(graph["nodes"]):
            rank = first_tensor_rank(node, graph["tensor_values"])
            for j, a in enumerate(node["inputs"]):
                kind = next(iter(a["arg"]))
                if a["name"] in VALUE_ARGS or kind not in ("as_int", "as_ints"):
                    continue
                if kind == "as_ints" and not a["arg"][kind]:
                    continue
                for v in variants(rank):
                    cases.append((pt2, program, i, j, v))
    return cases


def mutate(pt2, program, node_index, arg_index, value, dst):
    with zipfile.ZipFile(pt2) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == program:
                doc = json.loads(data)
                arg = doc["graph_module"]["graph"]["nodes"][node_index]["inputs"][arg_index]["arg"]
                if "as_int" in arg:
                    arg["as_int"] = value
                else:
                    arg["as_ints"][0] = value
                data = json.dumps(doc).encode()
            zout.writestr(info, data)


def run_case(case, folder):
    pt2, program, i, j, v = case
    tag = f"{pt2.parent.name}_{i}_{j}_{v}".replace("-", "m")
    src, out = folder / f"{tag}.pt2", folder / f"{tag}.onnx"
    mutate(pt2, program, i, j, v, src)
    result = run_process([cli_path(), src, "-o", out, "-q"], timeout=60)
    problem = None
    if result.returncode == 0:
        try:
            onnx.checker.check_model(onnx.load(str(out)), full_check=True)
        except Exception as e:  # noqa: BLE001 - any checker failure is a finding
            problem = f"exit 0 with an invalid model: {str(e).splitlines()[0][:200]}"
    elif result.returncode not in (4, 5):
        problem = f"exit {result.returncode}: {result.stderr.strip()[-300:]}"
    for p in (src, out):
        if p.exists():
            p.unlink()
    return None if problem is None else f"{tag}: {problem}"


# A tight floor on the variants (13,426 when it was set; new op fixtures only add to it): a sweep that
# silently lost fixtures or arguments (a changed program layout, a renamed folder) would still pass.
MIN_VARIANTS = 13_400


@OPT_ONLY
def test_every_integer_argument_out_of_range(tmp_path):
    cases = sweep_cases()
    assert len(cases) >= MIN_VARIANTS, f"only {len(cases)} sweep variants (at least {MIN_VARIANTS} expected)"
    workers = max(1, min(4, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        problems = [p for p in pool.map(lambda c: run_case(c, tmp_path), cases) if p]
    assert not problems, f"{len(problems)} of {len(cases)} variants:\n" + "\n".join(problems[:60])
