"""Writes the hostile inputs of the native tests as .pt2 files for the
WebAssembly test (hostile.test.mjs): the fuzz regression inputs, the e2e
hostile-input cases, edits named in the hostile-input issue, and every
SAMPLE-th variant of the dim/size sweep (tests/e2e/test_dim_sweep.py).

    .venv/bin/python tests/web/make_hostile_cases.py OUT_DIR [SAMPLE]

Prints a JSON list of {"name", "path"}; the test runs each through the native
CLI and the wasm module and compares."""
import json
import pathlib
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import test_dim_sweep  # noqa: E402
import test_hostile_inputs  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
CNN = FIXTURES / "cnn" / "model.pt2"
PROGRAM = "model/models/model.json"
WEIGHTS_CONFIG = "model/data/weights/model_weights_config.json"


def op(name):
    return FIXTURES / "ops" / name / "model.pt2"


def program_entry(pt2):
    with zipfile.ZipFile(pt2) as z:
        return next(n for n in z.namelist() if "/models/" in n and n.endswith(".json"))


def edit_program(src, edit):
    """(src, entry, edit(bytes) -> bytes) with edit applied to the parsed program."""
    def on_bytes(data):
        doc = json.loads(data)
        edit(doc, doc["graph_module"]["graph"])
        return json.dumps(doc).encode()
    return src, program_entry(src), on_bytes


def rename_first_argument(doc, graph):
    for node in graph["nodes"]:
        if node["inputs"]:
            node["inputs"][0]["name"] = "renamed"
            return


def weights_dtype(value):
    def edit(data):
        doc = json.loads(data)
        meta = next(iter(doc["config"].values()))["tensor_meta"]
        meta["dtype"] = value(meta["dtype"])
        return json.dumps(doc).encode()
    return edit


def first_node(target_part):
    def pick(graph):
        return next(n for n in graph["nodes"] if target_part in n["target"])
    return pick


def set_arg(target_part, arg_name, arg):
    def edit(doc, graph):
        node = first_node(target_part)(graph)
        for a in node["inputs"]:
            if a["name"] == arg_name:
                a["arg"] = arg
    return edit


def drop_inputs(target_part, keep):
    def edit(doc, graph):
        node = first_node(target_part)(graph)
        node["inputs"] = node["inputs"][:keep]
    return edit


def extra_positional(doc, graph):
    node = graph["nodes"][0]
    node["inputs"].append(dict(node["inputs"][-1]))


def duplicate_input_spec(doc, graph):
    specs = doc["graph_module"]["signature"]["input_specs"]
    specs.append(specs[-1])
    graph["inputs"].append(graph["inputs"][-1])


def missing_graph_output(doc, graph):
    graph["outputs"][0] = {"as_tensor": {"name": "no_such_value"}}


def tensor_size(value):
    def edit(doc, graph):
        meta = next(iter(graph["tensor_values"].values()))
        meta["sizes"][0] = {"as_int": value}
    return edit


# Edited archives: name -> (source, entry, edit of the entry's bytes).
EDITS = {
    "weights_config_dtype_minus_one": (CNN, WEIGHTS_CONFIG, weights_dtype(lambda d: -1)),
    "weights_config_disagrees_with_graph":
        (CNN, WEIGHTS_CONFIG, weights_dtype(lambda d: 6 if d != 6 else 7)),
    "renamed_argument": edit_program(CNN, rename_first_argument),
    "extra_positional_argument": edit_program(CNN, extra_positional),
    "duplicate_input_spec": edit_program(CNN, duplicate_input_spec),
    "graph_output_names_missing_value": edit_program(CNN, missing_graph_output),
    "tensor_size_2_63_minus_1": edit_program(CNN, tensor_size(2**63 - 1)),
    "tensor_size_negative": edit_program(CNN, tensor_size(-5)),
    "linspace_steps_2_32": edit_program(op("linspace"), set_arg("linspace", "steps", {"as_int": 2**32})),
    "einsum_without_operands": edit_program(op("einsum"), set_arg("einsum", "tensors", {"as_tensors": []})),
    "logical_and_one_input": edit_program(op("logical_and"), drop_inputs("logical_and", 1)),
    "logical_or_one_input": edit_program(op("logical_or"), drop_inputs("logical_or", 1)),
}


def main():
    out = pathlib.Path(sys.argv[1])
    sample = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    out.mkdir(parents=True, exist_ok=True)
    cases = []

    def add(name, path):
        cases.append({"name": name, "path": str(path)})

    # Fuzz regressions: whole archives as they are; program JSON texts put in
    # place of the cnn fixture's program.
    regressions = ROOT / "tests" / "fuzz" / "regressions"
    for target in ("pipeline", "zip_reader"):
        for f in sorted((regressions / target).glob("*")):
            if f.name != "README":
                add(f"regression/{target}/{f.name}", f)
    for f in sorted((regressions / "program_json").glob("*")):
        if f.name == "README":
            continue
        dst = out / f"regression_program_json_{f.name}.pt2"
        test_hostile_inputs.rewrite_entry(CNN, dst, PROGRAM, lambda _, text=f.read_bytes(): text)
        add(f"regression/program_json/{f.name}", dst)

    # The e2e hostile-input cases (byte flips keep the stored CRC, so they
    # are found by it), truncation and non-zips.
    flips = {"corrupt_weight": ("model/data/weights/weight_7", 100), "corrupt_program_json": (PROGRAM, 500)}
    for name, (entry, at) in flips.items():
        dst = out / f"{name}.pt2"
        test_hostile_inputs.flip_byte(CNN, dst, entry, at)
        add(name, dst)
    raw = CNN.read_bytes()
    for name, data in {"truncated": raw[:-100], "truncated_half": raw[:len(raw) // 2],
                       "not_a_zip": b"hello, not a model", "empty": b""}.items():
        dst = out / f"{name}.pt2"
        dst.write_bytes(data)
        add(name, dst)
    for name, (src, entry, edit) in EDITS.items():
        dst = out / f"{name}.pt2"
        test_hostile_inputs.rewrite_entry(src, dst, entry, edit)
        add(name, dst)

    # Every SAMPLE-th dim-sweep variant (all seven values of an argument come
    # together in the list, so stepping by a number prime to 7 mixes them).
    sweep = test_dim_sweep.sweep_cases()
    for k, (pt2, program, i, j, v) in enumerate(sweep[::sample]):
        tag = f"{pt2.parent.name}_{i}_{j}_{v}".replace("-", "m")
        dst = out / f"sweep_{tag}.pt2"
        test_dim_sweep.mutate(pt2, program, i, j, v, dst)
        add(f"sweep/{tag}", dst)
    json.dump(cases, sys.stdout)


if __name__ == "__main__":
    main()
