"""End-to-end: the norm, GELU and attention fusions (passes/layer_norm_fusion.cc, rms_norm_fusion.cc,
gelu_fusion.cc, attention_fusion.cc,
rotary_embedding_fusion.cc) on fixtures that hold their patterns after translation. Each fixture converts twice,
with the default optimizer and with every pass but the fusions; ONNX Runtime must give the same outputs
on the fixture's inputs (and torch's, recorded in expected.npz), the fused model must hold the expected
fused nodes, and the other none of them."""
import collections
import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES

FUSIONS = ("layer_norm_fusion", "rms_norm_fusion", "gelu_fusion", "attention_fusion", "rotary_embedding_fusion")
FUSED_OPS = ("LayerNormalization", "RMSNormalization", "Gelu", "Attention", "RotaryEmbedding")

# (fixture, opset, {fused op: count added by the fusions}).
CASES = [
    ("ops/layer_norm_by_hand", 18, {"LayerNormalization": 2}),
    ("ops/layer_norm_by_hand", 23, {"LayerNormalization": 2}),
    ("ops/rms_norm_by_hand", 22, {}),
    ("ops/rms_norm_by_hand", 23, {"RMSNormalization": 1}),
    ("ops/gelu_by_hand", 19, {}),
    ("ops/gelu_by_hand", 20, {"Gelu": 2}),
    ("ops/sdpa_causal", 23, {"Attention": 1}),
    ("ops/sdpa_bool_mask", 23, {"Attention": 1}),
    ("ops/sdpa_float_mask", 23, {"Attention": 1}),
    ("ops/sdpa_scale", 23, {"Attention": 1}),
    ("ops/multihead_attention", 23, {"Attention": 1}),
    ("ops/sdpa_gqa", 23, {"Attention": 4}),  # enable_gqa; the causal one with L != S reads its repeated k/v
    ("ops/sdpa_gqa_dynamic", 23, {"Attention": 2}),
    ("ops/sdpa_fully_masked_rows", 23, {}),  # both attentions read one q·k: not fused
    ("models/hf_llama", 22, {}),
    ("models/hf_llama", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_t5", 23, {"RMSNormalization": 12, "Attention": 6}),
    ("models/hf_gemma", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_gpt2", 20, {"Gelu": 2}),
    ("models/hf_phi", 23, {"Gelu": 2, "Attention": 2, "RotaryEmbedding": 4}),
    # Attention and RotaryEmbedding (opset 23): sdpa translations with HF masks, GQA repeat_kv, KV caches.
    ("models/hf_gpt2", 23, {"Gelu": 2, "Attention": 2}),
    ("models/hf_qwen2", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_qwen2_kv", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_mistral", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_phi3", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_llama_mask", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_llama_kv", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_llama_decomp", 23, {"RMSNormalization": 5, "Attention": 2, "RotaryEmbedding": 4}),
    ("models/hf_bert_decomp", 23, {"Attention": 2}),
    ("models/hf_bert", 23, {"LayerNormalization": 0, "Attention": 2}),
    ("models/hf_roberta", 23, {"Attention": 2}),
    ("models/hf_distilbert", 23, {"Attention": 2}),
    ("models/hf_clip_text", 23, {"Attention": 2}),
    ("models/hf_vit", 23, {"Attention": 2}),
    ("models/hf_bart", 23, {"Attention": 6}),
    ("models/hf_whisper", 23, {"Attention": 6}),
]


def other_passes(pt2onnx):
    """Every pass name but the fusions, from the CLI's list of known passes."""
    result = pt2onnx(FIXTURES / "ops" / "gelu_by_hand" / "model.pt2", "--passes", "none", check=False)
    known = re.search(r"known: (\S+)", result.stderr).group(1).split(",")
    assert set(FUSIONS) <= set(known), known
    return [name for name in known if name not in FUSIONS]


def run(path, inputs):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: inputs[i.name] for i in session.get_inputs()})


@pytest.mark.parametrize("fixture,opset,fused", CASES, ids=lambda c: str(c))
def test_fusion_keeps_outputs(fixture, opset, fused, pt2onnx, tmp_path):
    folder = FIXTURES / fixture
    before, after = tmp_path / "before.onnx", tmp_path / "after.onnx"
    pt2onnx(folder / "model.pt2", "-o", before, "-q", "--opset", opset, "--passes", ",".join(other_passes(pt2onnx)))
    pt2onnx(folder / "model.pt2", "-o", after, "-q", "--opset", opset)
    count = {}
    for path in (before, after):
        model = onnx.load(str(path))
        onnx.checker.check_model(model, full_check=True)
        count[path] = collections.Counter(n.op_type for n in model.graph.node)
    for op in FUSED_OPS:
        assert count[after][op] - count[before][op] == fused.get(op, 0), (op, count[before][op], count[after][op])
    for suffix in ("", "_alt"):
        if not (folder / f"inputs{suffix}.npz").exists():
            continue
        inputs = dict(np.load(folder / f"inputs{suffix}.npz"))
        expected = np.load(folder / f"expected{suffix}.npz")
        got_before, got_after = run(before, inputs), run(after, inputs)
        assert len(got_before) == len(got_after) == len(expected.files)
        for b, a, name in zip(got_before, got_after, expected.files):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=name)
            np.testing.assert_allclose(a, expected[name], rtol=1e-4, atol=1e-4, err_msg=name)


# Attention-23 and RotaryEmbedding-23 checked by an independent implementation (onnx.reference) and by our own executor
# (--verify-intermediates: the fused model against the ATen reference interpreter, FX values that
# keep their names included, so the fused nodes still map to their FX nodes).
# (hf_bert is left out of onnx.reference: its GatherElements fails on the position ids, before attention.)
ATTENTION_MODELS = ["hf_llama", "hf_llama_mask", "hf_bert", "hf_qwen2_kv", "hf_bart", "hf_llama_decomp"]


@pytest.mark.parametrize("name", [m for m in ATTENTION_MODELS if m != "hf_bert"] + ["hf_gpt2"])
def test_attention_fusion_in_onnx_reference(name, pt2onnx, tmp_path):
    from onnx.reference import ReferenceEvaluator
    folder = FIXTURES / "models" / name
    path = tmp_path / "m.onnx"
    pt2onnx(folder / "model.pt2", "-o", path, "-q", "--opset", 23)
    model = onnx.load(str(path))
    assert any(n.op_type == "Attention" for n in model.graph.node)
    inputs = dict(np.load(folder / "inputs.npz"))
    expected = np.load(folder / "expected.npz")
    evaluator = ReferenceEvaluator(model)
    got = evaluator.run(None, {i.name: inputs[i.name] for i in model.graph.input})
    for a, name_ in zip(got, expected.files):
        np.testing.assert_allclose(a, expected[name_], rtol=1e-4, atol=1e-4, err_msg=name_)


@pytest.mark.parametrize("name", ["models/" + m for m in ATTENTION_MODELS] + ["ops/sdpa_causal", "ops/sdpa_gqa", "ops/sdpa_gqa_dynamic"])
def test_attention_fusion_in_our_executor(name, pt2onnx, tmp_path):
    folder = FIXTURES / name
    result = pt2onnx(folder / "model.pt2", "-o", tmp_path / "m.onnx", "--opset", 23, "--verify-intermediates",
                     "--inputs", folder / "inputs.npz")
    assert "verify: passed" in result.stderr
