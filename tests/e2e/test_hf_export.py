"""Hugging Face transformers.exporters folders (tests/fixtures/hf_exports/, tools/fixtures/generate_hf_exports.py):
`pt2onnx DIR -o OUTDIR` converts every component into transformers' ONNX layout (names, export.json), the weights
the components share written once, and greedy generation through the result, in ONNX Runtime and in our executor
(`pt2onnx verify-generation`), gives the tokens torch's model.generate() gave."""
import json
import os
import shutil

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES, run_process
from test_verify import broken_path

EXPORTS = FIXTURES / "hf_exports"
MODELS = sorted(p.name for p in EXPORTS.iterdir() if (p / "export.json").exists())


def record(name):
    return json.loads((EXPORTS / name / "generation.json").read_text())


@pytest.fixture(scope="module")
def converted(pt2onnx, tmp_path_factory):
    out = {}
    for name in MODELS:
        folder = tmp_path_factory.mktemp(name) / "onnx"
        pt2onnx("-q", EXPORTS / name, "-o", folder)
        out[name] = folder
    return out


def test_fixtures_exist():
    assert {"qwen3", "gemma3", "mistral", "gpt_oss", "whisper"} <= set(MODELS), MODELS


@pytest.mark.parametrize("name", MODELS)
def test_layout_and_manifest(converted, name):
    folder = converted[name]
    manifest = json.loads((folder / "export.json").read_text())
    source = json.loads((EXPORTS / name / "export.json").read_text())
    assert manifest["export_format"] == "onnx"
    assert list(manifest["components"]) == list(source["components"])
    for component, entry in manifest["components"].items():
        assert entry["file"] == f"{component}.onnx"
        assert entry["metadata"]["in_spec"] == source["components"][component]["metadata"]["in_spec"]
        assert entry["metadata"]["export_config"]["export_format"] == "onnx"
        assert (folder / entry["file"]).exists() and (folder / f"{entry['file']}.data").exists()
    configs = [f for f in ("config.json", "generation_config.json") if (EXPORTS / name / f).exists()]
    assert "config.json" in configs
    for f in configs:
        assert (folder / f).read_bytes() == (EXPORTS / name / f).read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["export.json"] + configs + [f"{c}.onnx" for c in manifest["components"]]
        + [f"{c}.onnx.data" for c in manifest["components"]])


def encoder_decoder(name):
    return "fixed_inputs" in record(name)


@pytest.mark.parametrize("name", MODELS)
def test_full_checker_and_names(converted, name):
    folder = converted[name]
    # An encoder-decoder export (Whisper) takes decoder token ids and the encoder's output, and keeps a
    # self-attention and a cross-attention cache per layer.
    enc_dec = encoder_decoder(name)
    ids_name = "decoder_input_ids" if enc_dec else "input_ids"
    layers = "past_key_values.self_attention_cache.layers." if enc_dec else "past_key_values.layers."
    for component in ("prefill", "decode"):
        path = folder / f"{component}.onnx"
        onnx.checker.check_model(str(path), full_check=True)
        model = onnx.load(str(path), load_external_data=False)
        inputs = [i.name for i in model.graph.input]
        outputs = [o.name for o in model.graph.output]
        want = ["decoder_input_ids", "encoder_outputs.last_hidden_state"] if enc_dec else ["input_ids", "position_ids"]
        assert inputs[:2] == want, inputs
        assert outputs[0] == "logits", outputs
        cache_in = [n for n in inputs if "past_key_values" in n]
        cache_out = [n for n in outputs if "past_key_values" in n]
        # Prefill's cache comes out under its path; a value also taken in (decode's cache, a sliding
        # layer's window) gets "output.".
        kv_out = [n for n in cache_out if n.endswith((".keys", ".values")) and ".cross_attention_cache." not in n]
        assert kv_out and all(n.startswith("output." + layers) if component == "decode"
                              else n.startswith(layers) for n in kv_out), cache_out
        assert layers + "0.keys" in [n.removeprefix("output.") for n in cache_out]
        if enc_dec:
            assert any(".cross_attention_cache.layers.0.keys" in n for n in cache_out), cache_out
        if component == "decode":
            assert cache_in and all(n.startswith("input.past_key_values.") for n in cache_in), cache_in
        # Named dims: the sequence (and the past sequence) is named, not torch's symbol.
        ids = next(i for i in model.graph.input if i.name == ids_name)
        if component == "prefill":
            assert ids.type.tensor_type.shape.dim[1].dim_param == ("decoder_sequence_length" if enc_dec
                                                                   else "sequence_length")
        else:
            keys = next(i for i in model.graph.input if i.name == "input." + layers + "0.keys")
            assert keys.type.tensor_type.shape.dim[2].dim_param == "past_sequence_length"
            present = next(o for o in model.graph.output if o.name == "output." + layers + "0.keys")
            assert "s" not in present.type.tensor_type.shape.dim[2].dim_param.replace("past_sequence_length", "")
        if enc_dec:
            encoder = next(i for i in model.graph.input if i.name == "encoder_outputs.last_hidden_state")
            assert encoder.type.tensor_type.shape.dim[1].dim_param == "encoder_sequence_length"


@pytest.mark.parametrize("name", MODELS)
def test_names_match_transformers_onnx_export(converted, name):
    hf_io = EXPORTS / name / "hf_onnx" / "io.json"
    if not hf_io.exists():
        # Only where transformers' own ONNX export failed, as the record says.
        assert "hf_onnx_error" in record(name), f"{hf_io} missing: regenerate with tools/fixtures/generate_hf_exports.py"
        return
    theirs = json.loads(hf_io.read_text())
    for component, io in theirs.items():
        model = onnx.load(str(converted[name] / f"{component}.onnx"), load_external_data=False)
        assert [i.name for i in model.graph.input] == [v["name"] for v in io["inputs"]]
        assert [o.name for o in model.graph.output] == [v["name"] for v in io["outputs"]]


@pytest.mark.parametrize("name", MODELS)
def test_shared_weights_written_once(converted, name):
    folder = converted[name]
    prefill_data = (folder / "prefill.onnx.data").stat().st_size
    decode_data = (folder / "decode.onnx.data").stat().st_size
    # Every large weight of decode is prefill's: decode's own file holds at most what only it has.
    assert prefill_data > 0
    assert decode_data < prefill_data / 4, (prefill_data, decode_data)
    decode = onnx.load(str(folder / "decode.onnx"), load_external_data=False)
    locations = {e.value for t in decode.graph.initializer for e in t.external_data if e.key == "location"}
    assert "prefill.onnx.data" in locations
    # Against a plain conversion of decode alone: its weights would be as large as prefill's.
    total_external = sum(int(e.value) for t in decode.graph.initializer for e in t.external_data if e.key == "length")
    # (An encoder-decoder decode takes the cross-attention caches, so it lacks their projections' weights.)
    assert total_external >= prefill_data * (0.8 if encoder_decoder(name) else 0.9)


def fixed_inputs(name):
    """Arrays every step takes by name (an encoder-decoder export's encoder output), or {}."""
    rec = record(name)
    return dict(np.load(EXPORTS / name / rec["fixed_inputs"])) if "fixed_inputs" in rec else {}


def ort_generate(folder, rec, fixed=None):
    sessions = {c: ort.InferenceSession(str(folder / f"{c}.onnx")) for c in ("prefill", "decode")}
    # A sliding layer takes its window as a scalar on the first step (transformers' DynamicSlidingWindowLayer).
    window = json.loads((folder / "config.json").read_text()).get("sliding_window")
    feeds = rec["feeds"]
    present, tokens, logits = {}, [], None
    for step, feed in enumerate(feeds + [None]):
        if feed is None:
            break
        session = sessions["prefill" if step == 0 else "decode"]
        inputs = {}
        for i in session.get_inputs():
            if i.name in feed:
                inputs[i.name] = np.array([feed[i.name]], dtype=np.int64)
            elif i.name in (fixed or {}):
                inputs[i.name] = fixed[i.name]
            elif step == 0 and i.name.endswith("._sliding_window_tensor"):
                inputs[i.name] = np.array(window, dtype=np.int64)
            else:
                inputs[i.name] = present[i.name.removeprefix("input.")]
        names = [o.name for o in session.get_outputs()]
        outs = dict(zip(names, session.run(None, inputs)))
        logits = outs["logits"][0, -1]
        tokens.append(int(np.argmax(logits)))
        if step + 1 < len(feeds):
            ids = "decoder_input_ids" if "decoder_input_ids" in feeds[step + 1] else "input_ids"
            assert tokens[-1] == feeds[step + 1][ids][0], f"step {step}: ORT picked another token"
        present = {n.removeprefix("output."): v for n, v in outs.items() if n != "logits"}
    return tokens, logits


@pytest.mark.parametrize("name", MODELS)
def test_ort_generation_equals_torch(converted, name):
    rec = record(name)
    tokens, logits = ort_generate(converted[name], rec, fixed_inputs(name))
    assert tokens == rec["tokens"]
    want = np.load(EXPORTS / name / "generation.npz")["last_logits"][0]
    np.testing.assert_allclose(logits, want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", MODELS)
def test_executor_generation_equals_torch(pt2onnx, converted, name, tmp_path):
    rec = record(name)
    ids = lambda xs: ",".join(map(str, xs))  # noqa: E731
    logits = tmp_path / "logits.npz"
    given = ["--inputs", EXPORTS / name / rec["fixed_inputs"]] if "fixed_inputs" in rec else []
    result = pt2onnx("verify-generation", converted[name], "--tokens", rec["new_tokens"],
                     "--prompt", ids(rec["prompt_ids"]), "--expect", ids(rec["tokens"]), "--save-logits", logits,
                     *given)
    assert result.stdout.split() == [str(t) for t in rec["tokens"]]
    want = np.load(EXPORTS / name / "generation.npz")["last_logits"]
    np.testing.assert_allclose(np.load(logits)["last_logits"], want, atol=1e-4, rtol=1e-4)


def test_verify_generation_fails_on_other_tokens(pt2onnx, converted):
    rec = record("qwen3")
    wrong = list(rec["tokens"])
    wrong[-1] = (wrong[-1] + 1) % 96
    result = pt2onnx("verify-generation", converted["qwen3"], "--tokens", rec["new_tokens"],
                     "--prompt", ",".join(map(str, rec["prompt_ids"])), "--expect", ",".join(map(str, wrong)),
                     check=False)
    assert result.returncode == 6
    assert f"differ from --expect at position {len(wrong) - 1}" in result.stderr


def test_missing_component_file_names_it_and_writes_nothing(pt2onnx, tmp_path):
    folder = tmp_path / "broken"
    shutil.copytree(EXPORTS / "qwen3", folder)
    (folder / "decode.pt2").unlink()
    out = tmp_path / "out"
    result = pt2onnx("-q", folder, "-o", out, check=False)
    assert result.returncode == 3
    assert "decode.pt2" in result.stderr and "no such file" in result.stderr
    assert not out.exists()


def test_missing_manifest(pt2onnx, tmp_path):
    (tmp_path / "empty").mkdir()
    result = pt2onnx("-q", tmp_path / "empty", "-o", tmp_path / "out", check=False)
    assert result.returncode == 3
    assert "export.json" in result.stderr
    assert not (tmp_path / "out").exists()


def test_unknown_format_and_version(pt2onnx, tmp_path):
    for field, value, says in [("export_format", "openvino", "export_format is 'openvino'"),
                               ("schema_version", 9, "schema_version 9")]:
        folder = tmp_path / f"bad_{field}"
        shutil.copytree(EXPORTS / "qwen3", folder)
        manifest = json.loads((folder / "export.json").read_text())
        manifest[field] = value
        (folder / "export.json").write_text(json.dumps(manifest))
        result = pt2onnx("-q", folder, "-o", tmp_path / "out", check=False)
        assert result.returncode == 4, result.stderr
        assert says in result.stderr
        assert not (tmp_path / "out").exists()


def test_component_that_fails_to_convert_is_named(pt2onnx, tmp_path):
    folder = tmp_path / "swapped"
    shutil.copytree(EXPORTS / "qwen3", folder)
    (folder / "decode.pt2").write_bytes(b"not a zip")
    result = pt2onnx("-q", folder, "-o", tmp_path / "out", check=False)
    assert result.returncode == 4, result.stderr
    assert "decode.pt2" in result.stderr
    assert not (tmp_path / "out").exists()


def test_single_component_still_converts_alone(pt2onnx, tmp_path):
    out = tmp_path / "decode.onnx"
    pt2onnx("-q", EXPORTS / "qwen3" / "decode.pt2", "-o", out)
    onnx.checker.check_model(str(out))


def test_inspect_lists_components_and_names(pt2onnx):
    result = pt2onnx(EXPORTS / "qwen3", "--inspect")
    assert "prefill (prefill.pt2 -> prefill.onnx)" in result.stdout
    assert "input.past_key_values.layers.1.values" in result.stdout


def test_generation_flags_are_checked(pt2onnx, converted, tmp_path):
    mismatch = pt2onnx("verify-generation", converted["qwen3"], "--tokens", "3", "--expect", "1,2", check=False)
    assert mismatch.returncode == 2 and "--expect lists 2 tokens but --tokens is 3" in mismatch.stderr
    bad = pt2onnx("verify-generation", converted["qwen3"], "--prompt", "1,x", check=False)
    assert bad.returncode == 2 and "--prompt '1,x'" in bad.stderr
    not_here = pt2onnx(EXPORTS / "qwen3" / "decode.pt2", "-o", tmp_path / "d.onnx", "--tokens", "3", check=False)
    assert not_here.returncode == 2 and "unknown flag" in not_here.stderr
    source = pt2onnx("verify-generation", EXPORTS / "qwen3", check=False)
    assert source.returncode == 4 and "not 'onnx'" in source.stderr


def test_folder_needs_an_output_folder(pt2onnx):
    result = pt2onnx("-q", EXPORTS / "qwen3", check=False)
    assert result.returncode == 2 and "-o OUTDIR" in result.stderr


def test_flags_the_folder_decides_are_refused(pt2onnx, tmp_path):
    for flag in (["--dim-name", "s70=seq"], ["--input-names", "a"], ["--no-external-data"], ["--json"],
                 ["--verify", "--inputs", "seeded"], ["--verify-node-data", "x"]):
        result = pt2onnx("-q", EXPORTS / "qwen3", "-o", tmp_path / "out", *flag, check=False)
        assert result.returncode == 2, (flag, result.stderr)
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", MODELS)
def test_folder_verify_checks_every_component(pt2onnx, name, tmp_path):
    result = pt2onnx(EXPORTS / name, "-o", tmp_path / "out", "--verify")
    manifest = json.loads((EXPORTS / name / "export.json").read_text())
    for component in manifest["components"]:
        assert f"{component}: verify: passed:" in result.stderr, result.stderr
    assert (tmp_path / "out" / "decode.onnx").exists()


def test_folder_verify_fails_on_a_broken_translation(tmp_path):
    binary = broken_path()
    if not binary.exists():
        pytest.fail(f"{binary} not built; run bazel build //tests/verify:pt2onnx_broken")
    # Whisper's layer norms: the seam gives the first one a wrong epsilon in each component.
    result = run_process([binary, EXPORTS / "whisper", "-o", tmp_path / "out", "--verify"],
                         env={**os.environ, "PT2ONNX_BREAK": "epsilon"})
    assert result.returncode == 6, result.stderr
    for component in ("prefill", "decode"):
        assert f"{component} ({component}.pt2): verification failed" in result.stderr, result.stderr
    assert "first diverging node: 'layer_norm'" in result.stderr
    # The folder is written before it is verified, as a single file is.
    assert (tmp_path / "out" / "export.json").exists()
