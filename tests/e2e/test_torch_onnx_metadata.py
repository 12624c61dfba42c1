"""End-to-end: the metadata pt2onnx writes has torch.onnx's values, not only its keys.

Each top-level fixture with a committed `torch_onnx.onnx` (torch.onnx.export(..., dynamo=True) of the same
module with torch 2.15, written by tools/fixtures/generate_fixtures.py) is converted by the CLI and its
metadata compared with torch.onnx's: the model's and the graph's properties, and per node the namespace,
class hierarchy and name scopes. torch.onnx decomposes the program before translating it, so its graph
can hold other nodes and rename outputs: nodes are compared where both models hold the same FX node (the
same output name and FX target), and output names are mapped by position.
"""
import onnx
import pytest

from conftest import FIXTURES

CASES = sorted(p.parent.name for p in FIXTURES.glob("*/torch_onnx.onnx"))
NODE_KEYS = ("namespace", "pkg.torch.onnx.class_hierarchy", "pkg.torch.onnx.name_scopes")
SIGNATURE = "pkg.torch.export.ExportedProgram.graph_signature"


def props(entries):
    return {p.key: p.value for p in entries}


def node_metadata(model):
    """output name -> that node's metadata, for the nodes that carry any."""
    out = {}
    for node in model.graph.node:
        meta = props(node.metadata_props)
        if meta:
            out.update({name: meta for name in node.output})
    return out


def fx_target(meta):
    """The namespace's last segment, `<fx node name>: <target>`."""
    return meta.get("namespace", "").rsplit("/", 1)[-1]


def test_the_committed_torch_onnx_files_are_found():
    assert len(CASES) >= 10, CASES


@pytest.mark.parametrize("case", CASES)
def test_metadata_values_are_torch_onnx_s(pt2onnx, tmp_path, case):
    out = tmp_path / "m.onnx"
    pt2onnx(FIXTURES / case / "model.pt2", "-o", out, "-q")
    ours, theirs = onnx.load(out), onnx.load(FIXTURES / case / "torch_onnx.onnx")
    assert props(ours.metadata_props) == props(theirs.metadata_props)

    graph_ours, graph_theirs = props(ours.graph.metadata_props), props(theirs.graph.metadata_props)
    assert set(graph_ours) == set(graph_theirs)
    signature = graph_theirs.pop(SIGNATURE)
    # torch.onnx's decompositions may rename an output (mul -> mul_1): its names, by position, as ours.
    renamed = {its.name: mine.name for mine, its in zip(ours.graph.output, theirs.graph.output)}
    head, outputs = signature.split("# outputs\n", 1)
    lines = [line.split(": ", 1) for line in outputs.split("\n")]
    outputs = "\n".join(": ".join([renamed.get(parts[0], parts[0])] + parts[1:]) for parts in lines)
    assert graph_ours.pop(SIGNATURE) == head + "# outputs\n" + outputs
    assert graph_ours == graph_theirs

    mine, its = node_metadata(ours), node_metadata(theirs)
    shared = [name for name in mine if name in its and fx_target(mine[name]) == fx_target(its[name])]
    assert shared, f"{case}: no FX node in both models"
    for name in shared:
        for key in NODE_KEYS:
            assert mine[name].get(key) == its[name].get(key), f"{case}: node {name}: {key}"
