"""--kv-cache static (opset >= 24): a decode program's growing key/value caches become fixed-size buffers
written by TensorScatter, with one past_length input per group of caches (passes/static_kv_cache.h).

The static form must give the default form's numbers: a 16-token greedy loop through each transformers.exporters
folder (prefill as converted, decode static) picks the same tokens as the default decode in ONNX Runtime and in our
executor (`pt2onnx verify-generation`), the first 8 the tokens torch's model.generate() gave; one static step of the
hand-exported decode programs (batch 2) equals torch's logits and caches in both engines."""
import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES
from test_hf_export import fixed_inputs
from test_runtime import onnxrun  # noqa: F401

EXPORTS = FIXTURES / "hf_exports"
FOLDERS = sorted(p.name for p in EXPORTS.iterdir() if (p / "export.json").exists())
DECODE_STEPS = ["hf_llama_kv", "hf_qwen2_kv"]  # tests/fixtures/models: one decode step with a past of 6
TOKENS = 16
OPSET = 24
SLACK = 3  # buffer positions past the last one a run writes: they must not change a number


def layout_of(model_path):
    model = onnx.load(str(model_path), load_external_data=False)
    props = {p.key: p.value for p in model.metadata_props}
    return json.loads(props["pt2onnx.kv_cache"]) if "pt2onnx.kv_cache" in props else None


@pytest.fixture(scope="module")
def folders(pt2onnx, tmp_path_factory):
    out = {}
    for name in FOLDERS:
        for form in ("dynamic", "static"):
            folder = tmp_path_factory.mktemp(f"{name}_{form}") / "onnx"
            pt2onnx("-q", EXPORTS / name, "-o", folder, "--opset", OPSET, "--kv-cache", form)
            out[name, form] = folder
    return out


def to_buffer(present, axis, capacity):
    shape = list(present.shape)
    shape[axis] = capacity
    buffer = np.zeros(shape, present.dtype)
    index = [slice(None)] * present.ndim
    index[axis] = slice(0, present.shape[axis])
    buffer[tuple(index)] = present
    return buffer


def ort_generate(folder, prompt, tokens, fixed):
    """Greedy generation in ONNX Runtime; a static decode gets buffers and past lengths per its layout."""
    prefill = ort.InferenceSession(str(folder / "prefill.onnx"))
    decode = ort.InferenceSession(str(folder / "decode.onnx"))
    layout = layout_of(folder / "decode.onnx")
    window = json.loads((folder / "config.json").read_text()).get("sliding_window")
    present, picked, filled = {}, [], {}
    ids, position = list(prompt), 0
    for step in range(tokens):
        session = prefill if step == 0 else decode
        inputs = {}
        for i in session.get_inputs():
            if i.name in ("input_ids", "decoder_input_ids"):
                inputs[i.name] = np.array([ids], dtype=np.int64)
            elif i.name in fixed:
                inputs[i.name] = fixed[i.name]
            elif i.name == "position_ids":
                inputs[i.name] = np.arange(position, position + len(ids), dtype=np.int64)[None]
            elif step == 0 and i.name.endswith("._sliding_window_tensor"):
                inputs[i.name] = np.array(window, dtype=np.int64)
            elif i.name in filled:
                inputs[i.name] = np.array(filled[i.name], dtype=np.int64)
            else:
                inputs[i.name] = present[i.name.removeprefix("input.")]
        outs = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs)))
        logits = outs["logits"][0, -1]
        picked.append(int(np.argmax(logits)))
        position += len(ids)
        ids = [picked[-1]]
        present = {n.removeprefix("output."): v for n, v in outs.items() if n != "logits"}
        if layout and step == 0:
            for group in layout["groups"]:
                for cache in group["caches"]:
                    key = cache["input"].removeprefix("input.")
                    filled[group["past_length"]] = present[key].shape[cache["axis"]]
                    present[key] = to_buffer(present[key], cache["axis"], len(prompt) + tokens + SLACK)
        elif layout:
            filled = {name: n + 1 for name, n in filled.items()}
    return picked, logits


def test_folders_exist():
    assert {"qwen3", "gemma3", "whisper"} <= set(FOLDERS), FOLDERS


@pytest.mark.parametrize("name", FOLDERS)
def test_static_decode_interface(folders, name):
    folder = folders[name, "static"]
    decode = onnx.load(str(folder / "decode.onnx"), load_external_data=False)
    onnx.checker.check_model(str(folder / "decode.onnx"), full_check=True)
    layout = layout_of(folder / "decode.onnx")
    assert layout["form"] == "static" and layout["groups"], layout
    inputs = {i.name: i for i in decode.graph.input}
    outputs = {o.name: o for o in decode.graph.output}
    ops = [n.op_type for n in decode.graph.node]
    caches = [c for g in layout["groups"] for c in g["caches"]]
    assert ops.count("TensorScatter") == len(caches) and "Concat" not in [
        n.op_type for n in decode.graph.node if set(n.input) & set(c["input"] for c in caches)]
    for group in layout["groups"]:
        length = inputs[group["past_length"]].type.tensor_type
        assert length.elem_type == onnx.TensorProto.INT64 and len(length.shape.dim) == 0
        for cache in group["caches"]:
            dims_in = [d.dim_param or d.dim_value for d in inputs[cache["input"]].type.tensor_type.shape.dim]
            dims_out = [d.dim_param or d.dim_value for d in outputs[cache["output"]].type.tensor_type.shape.dim]
            assert dims_in == dims_out and dims_in[cache["axis"]] == group["capacity_dim"]
    # Prefill has no cache to make static: it stays as converted.
    assert layout_of(folder / "prefill.onnx") is None


@pytest.mark.parametrize("name", FOLDERS)
def test_ort_static_generation_equals_dynamic(folders, name):
    rec = json.loads((EXPORTS / name / "generation.json").read_text())
    dynamic, dynamic_logits = ort_generate(folders[name, "dynamic"], rec["prompt_ids"], TOKENS, fixed_inputs(name))
    static, static_logits = ort_generate(folders[name, "static"], rec["prompt_ids"], TOKENS, fixed_inputs(name))
    assert dynamic[:len(rec["tokens"])] == rec["tokens"]
    assert static == dynamic
    np.testing.assert_allclose(static_logits, dynamic_logits, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", FOLDERS)
def test_executor_static_generation_equals_ort(pt2onnx, folders, name, tmp_path):
    rec = json.loads((EXPORTS / name / "generation.json").read_text())
    expected, expected_logits = ort_generate(folders[name, "dynamic"], rec["prompt_ids"], TOKENS, fixed_inputs(name))
    ids = lambda xs: ",".join(map(str, xs))  # noqa: E731
    logits = tmp_path / "logits.npz"
    given = ["--inputs", EXPORTS / name / rec["fixed_inputs"]] if "fixed_inputs" in rec else []
    result = pt2onnx("verify-generation", folders[name, "static"], "--tokens", TOKENS,
                     "--prompt", ids(rec["prompt_ids"]), "--expect", ids(expected), "--save-logits", logits, *given)
    assert result.stdout.split() == [str(t) for t in expected]
    np.testing.assert_allclose(np.load(logits)["last_logits"][0], expected_logits, atol=1e-4, rtol=1e-4)


def static_step_inputs(name, model_path):
    """The fixture's decode inputs as the static model takes them: buffers with room to spare, past_length 6."""
    feeds = dict(np.load(FIXTURES / "models" / name / "inputs.npz"))
    layout = layout_of(model_path)
    (group,) = layout["groups"]
    past = None
    for cache in group["caches"]:
        past = feeds[cache["input"]].shape[cache["axis"]]
        feeds[cache["input"]] = to_buffer(feeds[cache["input"]], cache["axis"], past + 1 + SLACK)
        # Unfilled positions hold finite garbage (ONNX Runtime multiplies their zero weights by them).
        index = [slice(None)] * feeds[cache["input"]].ndim
        index[cache["axis"]] = slice(past + 1, None)
        feeds[cache["input"]][tuple(index)] = 1e3
    feeds[group["past_length"]] = np.array(past, dtype=np.int64)
    return feeds, group, past


def check_step(name, outputs, group, past):
    meta = json.loads((FIXTURES / "models" / name / "meta.json").read_text())
    expected = np.load(FIXTURES / "models" / name / "expected.npz")
    tol = dict(atol=meta["atol"], rtol=meta["rtol"])
    np.testing.assert_allclose(outputs[meta["outputs"][0]["name"]], expected[meta["outputs"][0]["name"]], **tol)
    for cache in group["caches"]:
        got = np.take(outputs[cache["output"]], np.arange(past + 1), axis=cache["axis"])
        np.testing.assert_allclose(got, expected[cache["output"]], **tol)


@pytest.mark.parametrize("name", DECODE_STEPS)
def test_static_step_equals_torch(pt2onnx, onnxrun, name, tmp_path):  # noqa: F811
    model = tmp_path / "static.onnx"
    pt2onnx("-q", FIXTURES / "models" / name / "model.pt2", "-o", model, "--opset", OPSET, "--kv-cache", "static")
    feeds, group, past = static_step_inputs(name, model)
    session = ort.InferenceSession(str(model))
    ort_out = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    check_step(name, ort_out, group, past)
    np.savez(tmp_path / "inputs.npz", **feeds)
    result = onnxrun(model, "--inputs", tmp_path / "inputs.npz", "--outputs", tmp_path / "outputs.npz", "-q")
    assert result.returncode == 0, result.stderr
    check_step(name, dict(np.load(tmp_path / "outputs.npz")), group, past)


def test_static_needs_opset_24(pt2onnx, tmp_path):
    result = pt2onnx(EXPORTS / "qwen3" / "decode.pt2", "-o", tmp_path / "x.onnx", "--kv-cache", "static",
                     check=False)
    assert result.returncode == 2 and "--kv-cache static needs --opset 24" in result.stderr
    assert not (tmp_path / "x.onnx").exists()


def test_unknown_form_and_verify_are_refused(pt2onnx, tmp_path):
    result = pt2onnx(EXPORTS / "qwen3" / "decode.pt2", "-o", tmp_path / "x.onnx", "--kv-cache", "paged", check=False)
    assert result.returncode == 2 and "use dynamic or static" in result.stderr
    result = pt2onnx(EXPORTS / "qwen3" / "decode.pt2", "-o", tmp_path / "x.onnx", "--opset", OPSET,
                     "--kv-cache", "static", "--verify", check=False)
    assert result.returncode == 2 and "verify-generation" in result.stderr
    assert not (tmp_path / "x.onnx").exists()


def test_program_without_cache_is_refused(pt2onnx, tmp_path):
    result = pt2onnx(FIXTURES / "gpt_block" / "model.pt2", "-o", tmp_path / "x.onnx", "--opset", OPSET,
                     "--kv-cache", "static", check=False)
    assert result.returncode == 5 and "no growing key/value cache" in result.stderr
    assert not (tmp_path / "x.onnx").exists()
    # A folder whose only component has no cache either.
    folder = tmp_path / "prefill_only"
    folder.mkdir()
    manifest = json.loads((EXPORTS / "qwen3" / "export.json").read_text())
    manifest["components"] = {"prefill": manifest["components"]["prefill"]}
    (folder / "export.json").write_text(json.dumps(manifest))
    (folder / "prefill.pt2").write_bytes((EXPORTS / "qwen3" / "prefill.pt2").read_bytes())
    result = pt2onnx(folder, "-o", tmp_path / "out", "--opset", OPSET, "--kv-cache", "static", check=False)
    assert result.returncode == 5 and "no component of the folder" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("opset", [24, 25, 26])
def test_dynamic_form_is_unchanged_by_the_flag(pt2onnx, tmp_path, opset):
    plain, dynamic = tmp_path / "plain.onnx", tmp_path / "dynamic.onnx"
    pt2onnx("-q", EXPORTS / "qwen3" / "decode.pt2", "-o", plain, "--opset", opset)
    pt2onnx("-q", EXPORTS / "qwen3" / "decode.pt2", "-o", dynamic, "--opset", opset, "--kv-cache", "dynamic")
    assert plain.read_bytes() == dynamic.read_bytes()
