"""Int8 execution of a QDQ model in pt2onnx's executor (//native:onnxrun) against ONNX Runtime's CPU
provider on the same QDQ file, and against our own float32 run of the unquantized model, at 1 and 2
threads, in one run. Figures, not a test.

    bazel build -c opt //native:pt2onnx //native:onnxrun
    /path/to/torch-venv/bin/python tools/fixtures/generate_quantized_models.py --bench-models DIR
    .venv/bin/python tools/bench/int8_vs_float.py DIR [--runs 20] [--repeats 5]

DIR holds resnet18_float.pt2, resnet18_pt2e.pt2 (the same random ResNet-18, float32 and PT2E-quantized:
per-channel int8 weights, int8 activations) and inputs.npz. Both are converted by pt2onnx once. The
three runs alternate, --repeats times, in a rotating order; each time, the median of --runs runs
after 3 warm-up runs. Per row the figures are the medians of the repeat medians and the ratios the
medians of the per-repeat ratios (with their range), so load that drifts on a shared machine weighs on
all three alike. Before timing, the QDQ outputs of both engines are compared (they compute the same
QDQ graph: equal within a quantization step of the logits) and the int8 logits' agreement with the
float model's is printed.
"""
import argparse
import pathlib
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from runtime_vs_ort import ROOT, OrtRunner, ours_median  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("models", type=pathlib.Path, help="the folder of generate_quantized_models.py --bench-models")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--pt2onnx", type=pathlib.Path, default=ROOT / "bazel-bin/native/pt2onnx")
    parser.add_argument("--onnxrun", type=pathlib.Path, default=ROOT / "bazel-bin/native/onnxrun")
    args = parser.parse_args()
    d = args.models
    onnx = {}
    for kind in ("float", "pt2e"):
        onnx[kind] = d / f"resnet18_{kind}.onnx"
        subprocess.run([str(args.pt2onnx), str(d / f"resnet18_{kind}.pt2"), "-o", str(onnx[kind]), "-q"], check=True)
    inputs_npz = d / "inputs.npz"
    inputs = dict(np.load(inputs_npz))

    # Outputs first: ours (int8) against ORT on the QDQ file, and the int8 logits against float32.
    out = {}
    for kind in ("float", "pt2e"):
        path = d / f"out_{kind}.npz"
        _, err = ours_median(args.onnxrun, onnx[kind], inputs_npz, 1, 1, path)
        if err:
            sys.exit(f"onnxrun failed on {onnx[kind].name}: {err}")
        out[kind] = next(iter(np.load(path).values()))
    _, ort_out = OrtRunner(onnx["pt2e"], inputs, 1).median(1)
    print(f"QDQ logits, ours (int8) vs ONNX Runtime: max |diff| {np.abs(out['pt2e'] - ort_out[0]).max():.4g}; "
          f"int8 vs float32 model: max |diff| {np.abs(out['pt2e'] - out['float']).max():.4g}, same top-1 "
          f"{np.mean(out['pt2e'].argmax(-1) == out['float'].argmax(-1)):.0%}")

    print(f"\nResNet-18 1x3x224x224, medians of {args.repeats} repeats x {args.runs} runs (ms); "
          "ratios: median [min-max] of per-repeat ratios")
    print(f"{'threads':>7}  {'ours int8':>9}  {'ORT QDQ':>8}  {'ours fp32':>9}  {'int8 / ORT':>18}  {'fp32 / int8':>18}")
    for threads in [int(t) for t in args.threads.split(",")]:
        ort_runner = OrtRunner(onnx["pt2e"], inputs, threads)
        rows = {"int8": [], "ort": [], "fp32": []}
        runners = {
            "int8": lambda: ours_median(args.onnxrun, onnx["pt2e"], inputs_npz, threads, args.runs)[0],
            "ort": lambda: ort_runner.median(args.runs)[0],
            "fp32": lambda: ours_median(args.onnxrun, onnx["float"], inputs_npz, threads, args.runs)[0],
        }
        order = list(runners)
        for r in range(args.repeats):
            for name in order[r % 3:] + order[:r % 3]:
                rows[name].append(runners[name]())
        med = {k: float(np.median(v)) for k, v in rows.items()}
        vs_ort = np.array(rows["int8"]) / np.array(rows["ort"])
        vs_fp32 = np.array(rows["fp32"]) / np.array(rows["int8"])

        def ratio(a):
            return f"{np.median(a):.2f}x [{a.min():.2f}-{a.max():.2f}]"
        print(f"{threads:>7}  {med['int8']:>9.2f}  {med['ort']:>8.2f}  {med['fp32']:>9.2f}  {ratio(vs_ort):>18}  "
              f"{ratio(vs_fp32):>18}")


if __name__ == "__main__":
    main()
