"""Latency of pt2onnx's executor (//native:onnxrun) against ONNX Runtime's CPU provider on the same
.onnx files, 1 and 2 threads. Figures, not a test.

    bazel build -c opt //native:pt2onnx //native:onnxrun
    /path/to/venv/bin/python tools/bench/make_runtime_bench_models.py OUT_DIR   # optional, needs torch
    .venv/bin/python tools/bench/runtime_vs_ort.py [--runs 20] [--repeats 5] [--extra OUT_DIR] [--ort-no-spinning]
    .venv/bin/python tools/bench/runtime_vs_ort.py --zoo [--threads 1] [--runs 10] [--repeats 3]

The two runtimes alternate, --repeats times (ours first in even repeats, ORT first in odd ones): each
time, the median of --runs runs after 3 warm-up runs for each. Per runtime the figure is the median of
its repeat medians, and the ratio the median of the per-repeat ratios (with their range), so load that
drifts on a shared machine weighs on both sides alike. With --ort-no-spinning, the 2-thread rows also
time an ORT session whose pool threads block instead of spinning between ops (allow_spinning=0), in the
same alternation: on a machine with more runnable threads than cores ORT's default spinning costs it.

Models: the resnet18_shaped and gpt_block fixtures, plus every OUT_DIR/<name>/model.pt2 under --extra; with
--zoo, every real-model fixture (tests/fixtures/models) too, and at the end per thread count the geometric
mean of the ratios and the worst ones. `onnxrun --profile` then says where a slow model's time goes.
Each .pt2 is converted by pt2onnx once; both runtimes then run the same .onnx file on the same inputs,
and the outputs are compared before timing. Peak memory: the maximum resident set of a fresh process
that loads the model and runs it 3 times (onnxrun; a Python process for ONNX Runtime, whose
interpreter + numpy + onnxruntime import alone is shown as "ORT base").
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

ROOT = pathlib.Path(__file__).resolve().parents[2]


class OrtRunner:
    """One ONNX Runtime session, timed repeatedly (3 warm-up runs before each median)."""

    def __init__(self, model, inputs, threads, spinning=True):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # ORT's default: pool threads spin between ops ("1"); "0" makes them block at once.
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.feeds = {i.name: inputs[i.name] for i in self.session.get_inputs()}

    def median(self, runs):
        outputs = None
        for _ in range(3):
            outputs = self.session.run(None, self.feeds)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            self.session.run(None, self.feeds)
            times.append((time.perf_counter() - start) * 1e3)
        return float(np.median(times)), outputs


def ours_median(onnxrun, model, inputs_npz, threads, runs, outputs_npz=None):
    args = [str(onnxrun), str(model), "--inputs", str(inputs_npz), "--threads", str(threads), "--bench", str(runs)]
    if outputs_npz:
        args += ["--outputs", str(outputs_npz)]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[-1]
    return float(re.search(r"median ([0-9.]+) ms", result.stdout).group(1)), ""


ORT_PEAK = """
import sys, numpy as np, onnxruntime as ort
if len(sys.argv) > 1:
    options = ort.SessionOptions(); options.intra_op_num_threads = 1
    session = ort.InferenceSession(sys.argv[1], options, providers=["CPUExecutionProvider"])
    inputs = dict(np.load(sys.argv[2]))
    for _ in range(3): session.run(None, {i.name: inputs[i.name] for i in session.get_inputs()})
"""


def max_rss_mib(*command):
    # /usr/bin/time's child starts small: a fork of this process would inherit its high-water mark.
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *map(str, command)], capture_output=True, text=True)
    return int(result.stderr.strip().splitlines()[-1]) / 1024


def peak_mib(onnxrun, model, inputs_npz):
    """Peak RSS (MiB) of onnxrun, of an ONNX Runtime process, and of that process without a model."""
    ours = max_rss_mib(onnxrun, model, "--inputs", inputs_npz, "--bench", "0", "-q")
    return ours, max_rss_mib(sys.executable, "-c", ORT_PEAK, model, inputs_npz), max_rss_mib(sys.executable, "-c", ORT_PEAK)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--extra", type=pathlib.Path)
    parser.add_argument("--zoo", action="store_true", help="also every tests/fixtures/models fixture")
    parser.add_argument("--threads", default="1,2", help="thread counts, e.g. 1 or 1,2")
    parser.add_argument("--memory", action="store_true", help="also print peak memory (1 thread)")
    parser.add_argument("--ort-no-spinning", action="store_true",
                        help="with 2 threads, also time ORT with session.intra_op.allow_spinning=0 (its default "
                             "spins), alternating with the other two")
    parser.add_argument("--pt2onnx", type=pathlib.Path, default=ROOT / "bazel-bin/native/pt2onnx")
    parser.add_argument("--onnxrun", type=pathlib.Path, default=ROOT / "bazel-bin/native/onnxrun")
    args = parser.parse_args()
    models = [ROOT / "tests/fixtures/resnet18_shaped", ROOT / "tests/fixtures/gpt_block"]
    if args.extra:
        models += sorted(p.parent for p in args.extra.glob("*/model.pt2"))
    if args.zoo:
        models += sorted(p.parent for p in (ROOT / "tests/fixtures/models").glob("*/model.pt2"))
    thread_counts = [int(t) for t in args.threads.split(",")]
    summary = {t: [] for t in thread_counts}
    print(f"onnxruntime {ort.__version__}; {args.repeats} alternating repeats of a median of {args.runs} runs "
          f"after 3 warm-up runs; medians over the repeats; ms")
    print(f"{'model':16} {'threads':>7} {'ours':>10} {'ORT':>10} {'ours/ORT':>9}  {'range':>9}  max |diff|"
          + ("   ORT no-spin  ours/no-spin  range" if args.ort_no_spinning else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for folder in models:
            onnx_path = pathlib.Path(tmp) / f"{folder.name}.onnx"
            subprocess.run([str(args.pt2onnx), str(folder / "model.pt2"), "-o", str(onnx_path), "-q"], check=True)
            inputs_npz = folder / "inputs.npz"
            inputs = dict(np.load(inputs_npz))
            if args.memory:
                ours_mib, ort_mib, base_mib = peak_mib(args.onnxrun, onnx_path, inputs_npz)
                print(f"{folder.name:16} peak RSS: ours {ours_mib:.0f} MiB, ORT {ort_mib:.0f} MiB (ORT base {base_mib:.0f} MiB)")
            for threads in thread_counts:
                out_npz = pathlib.Path(tmp) / "out.npz"
                try:
                    runner = OrtRunner(onnx_path, inputs, threads)
                except Exception as e:  # ONNX Runtime lacks a kernel: nothing to compare with
                    print(f"{folder.name:16} {threads:7} {'':>10} {'ORT fails':>10}  {str(e).splitlines()[0][:80]}")
                    continue
                quiet_runner = OrtRunner(onnx_path, inputs, threads, spinning=False) \
                    if args.ort_no_spinning and threads > 1 else None
                ours_times, ort_times, ratios, error, ort_out = [], [], [], "", None
                quiet_times, quiet_ratios = [], []
                for repeat in range(args.repeats):
                    order = ("ours", "ort") if repeat % 2 == 0 else ("ort", "ours")
                    if quiet_runner:
                        order = ("ours", "ort", "quiet") if repeat % 2 == 0 else ("quiet", "ort", "ours")
                    for side in order:
                        if side == "ours":
                            ours, error = ours_median(args.onnxrun, onnx_path, inputs_npz, threads, args.runs,
                                                      out_npz if repeat == 0 else None)
                            if ours is None:
                                break
                            ours_times.append(ours)
                        elif side == "ort":
                            theirs, ort_out = runner.median(args.runs)
                            ort_times.append(theirs)
                        else:
                            quiet_times.append(quiet_runner.median(args.runs)[0])
                    if error:
                        break
                    ratios.append(ours_times[-1] / ort_times[-1])
                    if quiet_runner:
                        quiet_ratios.append(ours_times[-1] / quiet_times[-1])
                if error:
                    print(f"{folder.name:16} {threads:7} {'failed':>10} {'':>10} {'':>9}  {error}")
                    continue
                ours_out = np.load(out_npz)
                diff = max(float(np.max(np.abs(ours_out[n].astype(np.float64) - np.asarray(o, np.float64))))
                           if o.size else 0.0 for n, o in zip(ours_out.files, ort_out))
                summary[threads].append((folder.name, float(np.median(ratios))))
                print(f"{folder.name:16} {threads:7} {np.median(ours_times):10.3f} {np.median(ort_times):10.3f} "
                      f"{np.median(ratios):9.2f}  {min(ratios):.2f}-{max(ratios):.2f}  {diff:.2e}"
                      + (f"  {np.median(quiet_times):12.3f}  {np.median(quiet_ratios):12.2f}  "
                         f"{min(quiet_ratios):.2f}-{max(quiet_ratios):.2f}" if quiet_runner else ""))
                sys.stdout.flush()
    for threads, rows in summary.items():
        if not rows:
            continue
        geomean = float(np.exp(np.mean(np.log([r for _, r in rows]))))
        worst = sorted(rows, key=lambda r: -r[1])[:5]
        print(f"{threads} thread{'s' if threads > 1 else ''}: geometric mean ours/ORT {geomean:.2f} over "
              f"{len(rows)} models; above 1.3: {sum(r > 1.3 for _, r in rows)}; worst: "
              + ", ".join(f"{n} {r:.2f}" for n, r in worst))


if __name__ == "__main__":
    main()
