"""CLI behaviour a user sees: errors (message, exit code, no output file),
renaming, external data, opsets, symbolic dimensions."""
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES

CNN = FIXTURES / "cnn" / "model.pt2"
DYNAMIC = FIXTURES / "dynamic_batch_seq" / "model.pt2"


def assert_fails(result, code, *needles):
    assert result.returncode == code, (result.returncode, result.stderr)
    for needle in needles:
        assert needle in result.stderr, result.stderr


@pytest.mark.parametrize("content, needle", [
    (b"", "the file is empty (0 bytes)"),
    (b"hello world, not a zip", "does not start with a ZIP header"),
    (b"PK\x03\x04" + b"\x00" * 64, "not a readable .pt2 archive"),
])
def test_malformed_input_is_rejected_without_output(pt2onnx, tmp_path, content, needle):
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(content)
    out = tmp_path / "bad.onnx"
    assert_fails(pt2onnx(bad, "-o", out, check=False), 4, needle)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [bad]  # no temporary file left behind


def test_truncated_pt2_is_rejected(pt2onnx, tmp_path):
    data = CNN.read_bytes()
    bad = tmp_path / "truncated.pt2"
    bad.write_bytes(data[: len(data) // 2])
    out = tmp_path / "out.onnx"
    result = pt2onnx(bad, "-o", out, check=False)
    assert result.returncode == 4, result.stderr
    assert "truncated" in result.stderr
    assert not out.exists()


def test_legacy_schema_gets_reexport_advice(pt2onnx, tmp_path):
    out = tmp_path / "old.onnx"
    result = pt2onnx(FIXTURES / "cnn_torch25" / "model.pt2", "-o", out, check=False)
    assert_fails(result, 4, "older torch", "re-export", "torch >= 2.6")
    assert not out.exists()


def test_legacy_version_that_is_not_a_number_is_invalid(pt2onnx, tmp_path):
    source = zipfile.ZipFile(FIXTURES / "cnn_torch27" / "model.pt2")
    bad = tmp_path / "bad_version.pt2"
    with zipfile.ZipFile(bad, "w") as archive:
        for entry in source.infolist():
            data = b"8x.7" if entry.filename == "version" else source.read(entry)
            archive.writestr(entry.filename, data)
    result = pt2onnx(bad, "-o", tmp_path / "out.onnx", check=False)
    assert_fails(result, 4, "serialization version '8x.7' is not a version number")


def test_unsupported_ops_are_listed_together(pt2onnx, tmp_path):
    out = tmp_path / "u.onnx"
    result = pt2onnx(FIXTURES / "unsupported_aten_op" / "model.pt2", "-o", out, check=False)
    assert_fails(result, 5, "aten::linalg_eigvals.default x1", "(first at node 'linalg_eigvals')",
                 "No ONNX file was written")
    assert not out.exists()
    result = pt2onnx(FIXTURES / "unsupported_op" / "model.pt2", "-o", out, check=False)
    assert_fails(result, 5, "mylib::weird_op.default")
    # A deliberate refusal says why in the error; an unknown operator cannot.
    result = pt2onnx(FIXTURES / "unsupported_aten_op" / "model.pt2", "-o", out, check=False)
    assert_fails(result, 5, "(first at node 'linalg_eigvals'): not translated, a general matrix's eigenvalues")


def test_every_overload_torch_onnx_translates_is_translated_or_refused_with_a_reason(pt2onnx):
    # torch.onnx's translation registry (tools/fixtures/registry_parity.py --write-keys) as a checklist.
    keys = [line.strip() for line in (FIXTURES / "torch_onnx_registry.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    assert len(keys) > 400
    supported = set(pt2onnx("--list-ops").stdout.split())
    refused = dict(line.split("\t", 1) for line in pt2onnx("--list-refused").stdout.splitlines())
    assert all(len(reason) > 20 for reason in refused.values())
    uncovered = [k for k in keys if k not in supported and k not in refused
                 and not (k.startswith("prims::") and "prims::*" in refused)]
    assert uncovered == []
    # A refusal that became a translation must leave the refusal table.
    assert [k for k in refused if k in supported] == []


def test_tensor_subclass_weights_get_unwrap_advice(pt2onnx, tmp_path):
    # torchao's quantize_ without unwrap_tensor_subclass (tools/fixtures/generate_quantized_models.py
    # --subclass-file): the weights are tensor subclasses.
    out = tmp_path / "s.onnx"
    result = pt2onnx(FIXTURES / "torchao_subclass" / "model.pt2", "-o", out, check=False)
    assert_fails(result, 5, "tensor subclass", "torchao.utils.unwrap_tensor_subclass(model)")
    assert not out.exists()


def test_torch_save_file_is_named_as_such(pt2onnx, tmp_path):
    import zipfile
    bad = tmp_path / "weights.pt"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
        z.writestr("archive/version", b"3\n")
    assert_fails(pt2onnx(bad, "-o", tmp_path / "w.onnx", check=False), 4, "torch.save")


@pytest.mark.parametrize("args, needle", [
    ([], "no input file"),
    (["--opset", "12", str(CNN)], "--opset '12' is not supported"),
    (["--bogus", str(CNN)], "unknown flag '--bogus'"),
    ([str(CNN), "--dim-name", "s0"], "SYMBOL=NAME"),
])
def test_bad_command_lines(pt2onnx, args, needle):
    assert_fails(pt2onnx(*args, check=False), 2, needle)


@pytest.mark.parametrize("flags, needle", [
    (["--output-names", "relu"], "cannot rename 'linear' to 'relu'"),      # an intermediate value
    (["--input-names", "conv1.weight"], "cannot rename 'x' to 'conv1.weight'"),  # a weight
])
def test_renames_that_clash_are_refused(pt2onnx, tmp_path, flags, needle):
    out = tmp_path / "clash.onnx"
    assert_fails(pt2onnx(CNN, "-o", out, *flags, check=False), 4, needle, "choose another name")
    assert not out.exists()


@pytest.mark.parametrize("model, flags, needles", [
    (DYNAMIC, ["--dim-name", "s0=batch"], ["cannot rename dimension 's0'", "it has: s"]),
    (CNN, ["--dim-name", "s0=batch"], ["only static shapes"]),
    (CNN, ["--input-names", "a,b"], ["2 input names were given (a, b)", "but the graph has 1 input"]),
    (CNN, ["--output-names", "y,z"], ["2 output names were given", "but the graph has 1 output"]),
])
def test_renames_that_match_nothing_are_refused(pt2onnx, tmp_path, model, flags, needles):
    out = tmp_path / "typo.onnx"
    assert_fails(pt2onnx(model, "-o", out, *flags, check=False), 4, *needles)
    assert not out.exists()


def test_missing_input_file(pt2onnx, tmp_path):
    assert_fails(pt2onnx(tmp_path / "nope.pt2", check=False), 3, "cannot open", "nope.pt2")


def test_unwritable_output(pt2onnx, tmp_path):
    assert_fails(pt2onnx(CNN, "-o", tmp_path / "no" / "such" / "dir.onnx", check=False), 3,
                 "cannot create")


def test_help_lists_flags_and_exit_codes(pt2onnx):
    result = pt2onnx("--help")
    for flag in ("--opset", "--external-data", "--input-names", "--output-names", "exit codes"):
        assert flag in result.stdout


def run(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session, session.run(None, feeds)


def test_names_external_data_and_opsets(pt2onnx, tmp_path):
    inputs = dict(np.load(FIXTURES / "cnn" / "inputs.npz"))
    expected = np.load(FIXTURES / "cnn" / "expected.npz")
    reference = expected[expected.files[0]]
    out = tmp_path / "named.onnx"
    pt2onnx(CNN, "-o", out, "--input-names", "image", "--output-names", "logits",
            "--external-data", "--opset", "18", "-q")
    data = tmp_path / "named.onnx.data"
    assert data.exists() and data.stat().st_size > 0
    model = onnx.load(str(out), load_external_data=False)
    assert [i.name for i in model.graph.input] == ["image"]
    assert [o.name for o in model.graph.output] == ["logits"]
    assert model.opset_import[0].version == 18
    external = [t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    assert external, "large weights should be external"
    onnx.checker.check_model(str(out), full_check=True)
    _, (actual,) = run(out, {"image": inputs["x"]})
    np.testing.assert_allclose(actual, reference, atol=1e-4, rtol=1e-4)

    for opset in (18, 20, 21, 22, 23, 24, 26):
        path = tmp_path / f"o{opset}.onnx"
        pt2onnx(CNN, "-o", path, "--opset", str(opset), "-q")
        _, (actual,) = run(path, inputs)
        np.testing.assert_allclose(actual, reference, atol=1e-4, rtol=1e-4)


def test_symbolic_dims_are_named_and_renamable(pt2onnx, tmp_path):
    out = tmp_path / "dyn.onnx"
    pt2onnx(DYNAMIC, "-o", out, "-q")
    model = onnx.load(str(out))
    dims = [[d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input]
    symbols = {d for shape in dims for d in shape if isinstance(d, str)}
    assert len(symbols) == 2, dims
    renamed = tmp_path / "renamed.onnx"
    batch, seq = sorted(symbols)
    pt2onnx(DYNAMIC, "-o", renamed, "--dim-name", f"{batch}=batch", "--dim-name", f"{seq}=seq", "-q")
    model = onnx.load(str(renamed))
    names = {d.dim_param for i in model.graph.input for d in i.type.tensor_type.shape.dim if d.dim_param}
    assert names == {"batch", "seq"}


def test_torch_onnx_metadata_keys(pt2onnx, tmp_path):
    out = tmp_path / "gpt.onnx"
    pt2onnx(FIXTURES / "gpt_block" / "model.pt2", "-o", out, "-q")
    model = onnx.load(str(out))
    keys = {"namespace", "pkg.torch.onnx.class_hierarchy", "pkg.torch.onnx.name_scopes",
            "pkg.torch.onnx.fx_node", "pkg.torch.onnx.stack_trace"}
    translated = [n for n in model.graph.node if n.metadata_props]
    assert translated
    for node in translated:
        assert keys <= {p.key for p in node.metadata_props}, node.name
    graph_keys = {p.key for p in model.graph.metadata_props}
    assert "pkg.torch.export.ExportedProgram.graph_signature" in graph_keys
    assert "pkg.torch.export.ExportedProgram.range_constraints" in graph_keys
    init_names = {t.name for t in model.graph.initializer}
    # State-dict names, as torch.onnx. Equal small weights (every LayerNorm's
    # ones at initialisation) are merged by initializer_deduplication into the
    # first, which keeps its name.
    assert {"lm_head.weight", "h.0.ln_1.weight"} <= init_names
    kinds = {p.value for t in model.graph.initializer for p in t.metadata_props
             if p.key == "pkg.torch.export.graph_signature.InputSpec.kind"}
    assert "PARAMETER" in kinds
    # Every FX value that survives keeps its FX name (intermediate comparison).
    values = {o for n in model.graph.node for o in n.output}
    assert {"layer_norm", "linear", "gelu"} <= values
    ns = next(p.value for n in model.graph.node if "layer_norm" in n.output
              for p in n.metadata_props if p.key == "namespace")
    assert ns.endswith("layer_norm: aten.layer_norm.default"), ns


def test_supported_ops_page_matches_registry():
    import sys
    from conftest import ROOT, cli_path, run_process
    result = run_process([sys.executable, ROOT / "tools" / "update_op_table.py", "--check", "--bin", cli_path()])
    assert result.returncode == 0, result.stderr


def test_renaming_a_symbol_renames_the_expressions_built_on_it(pt2onnx, tmp_path):
    # derived_dims: b is (batch, 2 * seq); torch writes its dim as the expression "2*s98".
    out = tmp_path / "derived.onnx"
    pt2onnx(FIXTURES / "derived_dims" / "model.pt2", "-o", out, "-q", "--dim-name", "s98=seq")
    model = onnx.load(str(out))
    dims = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    assert dims["a"][1] == "seq" and dims["b"][1] == "2*seq", dims
