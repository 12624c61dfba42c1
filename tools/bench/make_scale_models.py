#!/usr/bin/env python3
"""Writes the programs of the scale benchmark (tools/bench/scale_bench.py) into a folder outside the
repository (they are GBs; never commit them).

    /path/to/venv/bin/python tools/bench/make_scale_models.py linear --out /tmp/pt2onnx-scale
    /path/to/venv/bin/python tools/bench/make_scale_models.py deep --blocks 256,1024,4096,16384 --out ...
    /path/to/venv/bin/python tools/bench/make_scale_models.py llm --out /tmp/pt2onnx-scale

linear: 12 x Linear(8192, 8192) fp32, 3.00 GiB of weights  -> linear3g.pt2 (+ inputs.npz, expected.npz)
deep:   N blocks of Linear(64, 64) + GELU + LayerNorm      -> deep_<N>.pt2 (the graph grows, not the weights)
llm:    a Llama-style decoder (transformers LlamaConfig, TinyLlama-1.1B's shape with a 4096-token
        vocabulary: 22 layers, hidden 2048, MLP 5632, 32 heads, 4 KV heads), random seeded weights in bf16,
        exported with a dynamic sequence length -> llm1b.pt2 (+ inputs.npz and expected.npz: the eager
        logits of a 7-token sequence). --dtype float32 writes the same model in float32 (llm1b_float32.pt2)
        for the check in ONNX Runtime, whose CPU provider has no bfloat16 kernels.
Needs torch 2.15 and transformers 5.23 (the fixture environment). Deterministic (seeded).
"""
import argparse
import os

import numpy as np
import torch


def save(ep, path):
    torch.export.save(ep, path)
    print(f"wrote {path} ({os.path.getsize(path) / 2**30:.2f} GiB)", flush=True)


def make_linear(out):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(12)]).eval()
    x = torch.randn(2, 8192)
    with torch.no_grad():
        ep = torch.export.export(model, (x,))
        expected = model(x)
    save(ep, os.path.join(out, "linear3g.pt2"))
    np.savez(os.path.join(out, "linear3g_inputs.npz"), x=x.numpy())
    np.savez(os.path.join(out, "linear3g_expected.npz"), out=expected.numpy())


class Block(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = torch.nn.Linear(width, width)
        self.norm = torch.nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(torch.nn.functional.gelu(self.linear(x)))


def make_deep(out, blocks):
    for n in blocks:
        torch.manual_seed(0)
        model = torch.nn.Sequential(*[Block(64) for _ in range(n)]).eval()
        with torch.no_grad():
            ep = torch.export.export(model, (torch.randn(2, 64),))
        save(ep, os.path.join(out, f"deep_{n}.pt2"))


def make_llm(out, dtype_name):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=4096, hidden_size=2048, intermediate_size=5632, num_hidden_layers=22,
                         num_attention_heads=32, num_key_value_heads=4, max_position_embeddings=2048,
                         use_cache=False, tie_word_embeddings=False)
    model = LlamaForCausalLM(config).to(getattr(torch, dtype_name)).eval()
    stem = "llm1b" if dtype_name == "bfloat16" else f"llm1b_{dtype_name}"
    print(f"parameters: {sum(p.numel() for p in model.parameters()) / 1e9:.3f} B", flush=True)

    class Logits(torch.nn.Module):
        def __init__(self, lm):
            super().__init__()
            self.lm = lm

        def forward(self, input_ids):
            return self.lm(input_ids=input_ids, use_cache=False).logits

    wrapper = Logits(model).eval()
    ids = torch.randint(0, config.vocab_size, (1, 7))
    seq = torch.export.Dim("seq", min=2, max=2048)
    with torch.no_grad():
        ep = torch.export.export(wrapper, (ids,), dynamic_shapes=({1: seq},), strict=False)
        expected = wrapper(ids).float()
    save(ep, os.path.join(out, f"{stem}.pt2"))
    np.savez(os.path.join(out, f"{stem}_inputs.npz"), input_ids=ids.numpy())
    np.savez(os.path.join(out, f"{stem}_expected.npz"), logits=expected.numpy())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["linear", "deep", "llm"])
    parser.add_argument("--out", default="/tmp/pt2onnx-scale")
    parser.add_argument("--blocks", default="256,1024,4096,16384")
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"],
                        help="llm: bfloat16 (llm1b.pt2) or float32 (llm1b_float32.pt2, 3.7 GiB: ONNX Runtime's "
                             "CPU provider has no bfloat16 kernels, so this one is run against torch)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.what == "linear":
        make_linear(args.out)
    elif args.what == "deep":
        make_deep(args.out, [int(n) for n in args.blocks.split(",")])
    else:
        make_llm(args.out, args.dtype)


if __name__ == "__main__":
    main()
