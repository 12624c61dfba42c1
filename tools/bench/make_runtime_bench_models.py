"""Writes the larger benchmark programs for tools/bench/runtime_vs_ort.py (needs torch + torchvision +
transformers; run with the torch environment, not .venv):

    /path/to/venv/bin/python tools/bench/make_runtime_bench_models.py OUT_DIR

OUT_DIR/<name>/model.pt2 + inputs.npz for:
  mobilenet_v2  torchvision MobileNetV2 (random weights, eval), 1x3x224x224
  bert_encoder  a BERT-base-sized encoder (transformers BertModel, 12 layers, hidden 768, random
                weights, eval), batch 1, sequence 128
"""
import pathlib
import sys

import numpy as np
import torch


def save(out: pathlib.Path, name: str, model: torch.nn.Module, inputs: dict):
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    model.eval()
    with torch.no_grad():
        program = torch.export.export(model, (), kwargs=inputs).run_decompositions()  # lowers eval-mode dropout
    torch.export.save(program, str(folder / "model.pt2"))
    np.savez(folder / "inputs.npz", **{k: v.numpy() for k, v in inputs.items()})
    print(f"wrote {folder}")


def main():
    out = pathlib.Path(sys.argv[1])
    torch.manual_seed(0)
    import torchvision
    save(out, "mobilenet_v2", torchvision.models.mobilenet_v2(weights=None),
         {"x": torch.randn(1, 3, 224, 224)})

    from transformers import BertConfig, BertModel

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = BertModel(BertConfig(attn_implementation="eager"), add_pooling_layer=False)

        def forward(self, input_ids, attention_mask):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    save(out, "bert_encoder", Encoder(),
         {"input_ids": torch.randint(0, 30000, (1, 128)), "attention_mask": torch.ones(1, 128, dtype=torch.int64)})


if __name__ == "__main__":
    main()
