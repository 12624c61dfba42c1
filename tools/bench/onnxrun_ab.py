"""Before/after latency of two onnxrun binaries on the same .onnx files, measured in one run: the two
binaries alternate, --repeats times, each time `onnxrun --bench N` (median of N runs after 3 warm-up
runs); the figure per binary is the median of its --repeats medians. On a shared, loaded machine only
ratios measured this way mean much. Figures, not a test.

    bazel build -c opt //native:onnxrun && cp bazel-bin/native/onnxrun /tmp/onnxrun.before
    ... change the executor ...
    bazel build -c opt //native:onnxrun
    .venv/bin/python tools/bench/onnxrun_ab.py --before /tmp/onnxrun.before --after bazel-bin/native/onnxrun \\
        [--runs 200] [--repeats 5] [--threads 1] [--extra OUT_DIR]

Models: the resnet18_shaped and gpt_block fixtures (converted by bazel-bin/native/pt2onnx), plus every
OUT_DIR/<name>/model.onnx with its inputs.npz.
"""
import argparse
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def bench(onnxrun, model, inputs, runs, threads):
    args = [str(onnxrun), str(model), "--inputs", str(inputs), "--threads", str(threads), "--bench", str(runs), "-q"]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{onnxrun} {model}: exit {result.returncode}: {result.stderr.strip()}")
    return float(re.search(r"median ([0-9.]+) ms", result.stdout + result.stderr).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, type=pathlib.Path)
    parser.add_argument("--after", required=True, type=pathlib.Path)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--extra", type=pathlib.Path)
    parser.add_argument("--pt2onnx", type=pathlib.Path, default=ROOT / "bazel-bin" / "native" / "pt2onnx")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="onnxrun_ab_") as tmp:  # the converted fixtures
        compare(args, pathlib.Path(tmp))


def compare(args, work):
    models = []
    for name in ["resnet18_shaped", "gpt_block"]:
        folder = ROOT / "tests" / "fixtures" / name
        onnx = work / f"{name}.onnx"
        subprocess.run([str(args.pt2onnx), str(folder / "model.pt2"), "-o", str(onnx), "-q"], check=True)
        models.append((name, onnx, folder / "inputs.npz"))
    if args.extra:
        for folder in sorted(p for p in args.extra.iterdir() if (p / "model.onnx").exists()):
            models.append((folder.name, folder / "model.onnx", folder / "inputs.npz"))

    print(f"onnxrun before vs after, {args.threads} thread(s); per binary the median of {args.repeats} "
          f"alternating medians of {args.runs} runs; ms")
    print(f"{'model':<18} {'before':>10} {'after':>10} {'after/before':>13}")
    for name, onnx, inputs in models:
        before, after = [], []
        for _ in range(args.repeats):
            before.append(bench(args.before, onnx, inputs, args.runs, args.threads))
            after.append(bench(args.after, onnx, inputs, args.runs, args.threads))
        b, a = statistics.median(before), statistics.median(after)
        print(f"{name:<18} {b:>10.4f} {a:>10.4f} {a / b:>13.2f}", flush=True)


if __name__ == "__main__":
    main()
