"""Int8 execution of QDQ models in pt2onnx's executor (//native:onnxrun) against ONNX Runtime's CPU
provider on the same QDQ files, and against our own float32 run of the unquantized models, at 1 and 2
threads, in one run. Figures, not a test.

    bazel build -c opt //native:pt2onnx //native:onnxrun
    /path/to/torch-venv/bin/python tools/fixtures/generate_quantized_models.py --bench-models DIR
    .venv/bin/python tools/bench/int8_vs_float.py DIR [--runs 20] [--repeats 5] [--only NAME,...]

DIR holds, per model NAME, NAME_float.pt2 and NAME_int8.pt2 (one random torchvision CNN, float32 and
PT2E-quantized by the quantizer the name ends with: ExecuTorch's XNNPACK quantizer, ArmInductorQuantizer
or the X86 Inductor quantizer, whose activations are uint8) and one inputs.npz for all. Each file is
converted by pt2onnx once. Per model and thread count the three runs alternate, --repeats times, in a
rotating order; each time, the median of --runs runs after 3 warm-up runs. Per row the figures are the
medians of the repeat medians and the ratios the medians of the per-repeat ratios, so load that drifts
on a shared machine weighs on all three alike; the last rows are the geometric means of the ratios.
Before timing, the QDQ outputs of both engines are compared (they compute the same QDQ graph: equal
within a few quantization steps of the logits, where rounding flips upstream grow) and the int8
logits' agreement with the float model's top-1 class is printed.
"""
import argparse
import pathlib
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from runtime_vs_ort import ROOT, OrtRunner, ours_median  # noqa: E402


def geomean(values):
    return float(np.exp(np.mean(np.log(values))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("models", type=pathlib.Path, help="the folder of generate_quantized_models.py --bench-models")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--pt2onnx", type=pathlib.Path, default=ROOT / "bazel-bin/native/pt2onnx")
    parser.add_argument("--onnxrun", type=pathlib.Path, default=ROOT / "bazel-bin/native/onnxrun")
    args = parser.parse_args()
    d = args.models
    names = sorted(p.name[:-len("_int8.pt2")] for p in d.glob("*_int8.pt2"))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    if not names:
        sys.exit(f"no NAME_int8.pt2 in {d}: run generate_quantized_models.py --bench-models {d}")
    inputs_npz = d / "inputs.npz"
    inputs = dict(np.load(inputs_npz))

    onnx = {}
    for name in names:
        for kind in ("float", "int8"):
            onnx[name, kind] = d / f"{name}_{kind}.onnx"
            subprocess.run([str(args.pt2onnx), str(d / f"{name}_{kind}.pt2"), "-o", str(onnx[name, kind]), "-q"],
                           check=True, timeout=600)
        # Outputs first: ours (int8) against ORT on the QDQ file, and the int8 logits against float32.
        out = {}
        for kind in ("float", "int8"):
            path = d / f"out_{name}_{kind}.npz"
            _, err = ours_median(args.onnxrun, onnx[name, kind], inputs_npz, 1, 1, path)
            if err:
                sys.exit(f"onnxrun failed on {onnx[name, kind].name}: {err}")
            out[kind] = next(iter(np.load(path).values()))
        _, ort_out = OrtRunner(onnx[name, "int8"], inputs, 1).median(1)
        print(f"{name}: QDQ logits, ours (int8) vs ONNX Runtime: max |diff| {np.abs(out['int8'] - ort_out[0]).max():.4g}"
              f" (logits up to {np.abs(ort_out[0]).max():.3g}); int8 vs float32 model: same top-1 "
              f"{np.mean(out['int8'].argmax(-1) == out['float'].argmax(-1)):.0%}")

    print(f"\n1x3x224x224, medians of {args.repeats} repeats x {args.runs} runs (ms); "
          "ratios: median [min-max] of per-repeat ratios")
    print(f"{'model':<22} {'threads':>7}  {'ours int8':>9}  {'ORT QDQ':>8}  {'ours fp32':>9}  {'int8 / ORT':>18}  "
          f"{'fp32 / int8':>18}")
    summary = {}
    for threads in [int(t) for t in args.threads.split(",")]:
        for name in names:
            ort_runner = OrtRunner(onnx[name, "int8"], inputs, threads)
            rows = {"int8": [], "ort": [], "fp32": []}
            runners = {
                "int8": lambda: ours_median(args.onnxrun, onnx[name, "int8"], inputs_npz, threads, args.runs)[0],
                "ort": lambda: ort_runner.median(args.runs)[0],
                "fp32": lambda: ours_median(args.onnxrun, onnx[name, "float"], inputs_npz, threads, args.runs)[0],
            }
            order = list(runners)
            for r in range(args.repeats):
                for key in order[r % 3:] + order[:r % 3]:
                    rows[key].append(runners[key]())
            med = {k: float(np.median(v)) for k, v in rows.items()}
            vs_ort = np.array(rows["int8"]) / np.array(rows["ort"])
            vs_fp32 = np.array(rows["fp32"]) / np.array(rows["int8"])
            summary.setdefault(threads, []).append((float(np.median(vs_ort)), float(np.median(vs_fp32))))

            def ratio(a):
                return f"{np.median(a):.2f}x [{a.min():.2f}-{a.max():.2f}]"
            print(f"{name:<22} {threads:>7}  {med['int8']:>9.2f}  {med['ort']:>8.2f}  {med['fp32']:>9.2f}  "
                  f"{ratio(vs_ort):>18}  {ratio(vs_fp32):>18}", flush=True)
    for threads, ratios in summary.items():
        print(f"{'geometric mean':<22} {threads:>7}  {'':>9}  {'':>8}  {'':>9}  "
              f"{geomean([r[0] for r in ratios]):>17.2f}x  {geomean([r[1] for r in ratios]):>17.2f}x")


if __name__ == "__main__":
    main()
