#!/usr/bin/env python3
"""Scale benchmark: pt2onnx against `cp` on a 3 GiB program and against torch.onnx on deep nets and a
1 B-parameter LLM, side by side in one run. The programs come from make_scale_models.py (same folder).

    /path/to/venv/bin/python tools/bench/make_scale_models.py linear --out /tmp/pt2onnx-scale
    /path/to/venv/bin/python tools/bench/make_scale_models.py deep --out /tmp/pt2onnx-scale
    /path/to/venv/bin/python tools/bench/make_scale_models.py llm --out /tmp/pt2onnx-scale
    python3 tools/bench/scale_bench.py --pt2onnx bazel-bin/native/pt2onnx --models /tmp/pt2onnx-scale \\
        --torch-python /path/to/venv/bin/python [--runs 3] [--torch-timeout 600] [--only linear,deep,llm]

Every figure is what /usr/bin/time -v reports for the process: wall time, system time, peak resident
set size. `cp` and pt2onnx run in pairs (cp first), with `sync` before each and the input read once
beforehand so both start from a warm page cache; the table gives the median of --runs pairs. torch.onnx
is torch.onnx.export(torch.export.load(pt2), dynamo=True) + save (optimize=True, the default), run once,
killed after --torch-timeout seconds (the LLM gets a float32 twin for --check-llm, see check_llm). "JSON" is the size of the program's JSON in the archive;
"RSS/JSON" relates pt2onnx's peak memory to it. With --check-llm the converted LLM is also run in
ONNX Runtime on the 7-token sequence saved by make_scale_models.py and compared with torch's logits.
Outputs go to --work (default: a folder beside the models) and are deleted after each run.
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile

TORCH_ONNX = """
import sys, torch
ep = torch.export.load(sys.argv[1])
torch.onnx.export(ep, dynamo=True).save(sys.argv[2])
"""


def timed(cmd, timeout=None):
    """Runs `cmd` under /usr/bin/time -v: (returncode, wall s, user s, sys s, peak RSS bytes)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        try:
            proc = subprocess.run(["/usr/bin/time", "-v", "-o", report.name, *map(str, cmd)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        fields = {}
        for line in report.read().splitlines():
            key, _, value = line.strip().rpartition(": ")
            fields[key] = value
    wall = 0.0
    for part in fields.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "0").split(":"):
        wall = wall * 60 + float(part)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-2000:])
    return (proc.returncode, wall, float(fields.get("User time (seconds)", 0)),
            float(fields.get("System time (seconds)", 0)),
            int(fields.get("Maximum resident set size (kbytes)", 0)) * 1024)


def json_bytes(pt2):
    with zipfile.ZipFile(pt2) as z:
        return max((i.file_size for i in z.infolist() if i.filename.endswith(".json")), default=0)


def gib(n):
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def clean(*paths):
    for p in paths:
        for q in (p, pathlib.Path(str(p) + ".data")):
            if q.exists():
                q.unlink()


def row(cells):
    print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)


def bench_linear(args, work):
    pt2 = args.models / "linear3g.pt2"
    if not pt2.exists():
        print(f"(skipped: no {pt2})")
        return
    subprocess.run(["cat", str(pt2)], stdout=subprocess.DEVNULL, check=True)  # warm page cache
    runs = {"cp": [], "pt2onnx": [], "pt2onnx --no-crc": []}
    if args.before:
        runs[f"{args.before.name} (before)"] = []
    copy, onnx = work / "copy.pt2", work / "linear3g.onnx"
    extra = [(f"{args.before.name} (before)", [args.before, "-q", pt2, "-o", onnx], [onnx])] if args.before else []
    for _ in range(args.runs):
        for name, cmd, outs in [("cp", ["cp", pt2, copy], [copy]),
                                ("pt2onnx", [args.pt2onnx, "-q", pt2, "-o", onnx], [onnx]),
                                ("pt2onnx --no-crc", [args.pt2onnx, "-q", "--no-crc", pt2, "-o", onnx], [onnx])] + extra:
            subprocess.run(["sync"], check=True)
            result = timed(cmd)
            if result[0] != 0:
                raise SystemExit(f"{name} failed")
            runs[name].append(result)
            clean(*outs)
            subprocess.run(["sync"], check=True)
    print(f"\n{pt2.name}: 12 x Linear(8192, 8192) fp32, {gib(pt2.stat().st_size)}; median of {args.runs} paired runs\n")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}")
    row(["", "wall", "user", "sys", "peak RSS", "wall / cp"])
    row(["---"] * 6)
    cp_wall = statistics.median(r[1] for r in runs["cp"])
    for name, results in runs.items():
        wall = statistics.median(r[1] for r in results)
        row([name, f"{wall:.2f} s", f"{statistics.median(r[2] for r in results):.2f} s",
             f"{statistics.median(r[3] for r in results):.2f} s", gib(statistics.median(r[4] for r in results)),
             f"{wall / cp_wall:.2f}x"])


def torch_onnx(args, pt2, out):
    if not args.torch_python:
        return "not run"
    result = timed([args.torch_python, "-c", TORCH_ONNX, pt2, out], timeout=args.torch_timeout)
    clean(out)
    if result is None:
        return f"> {args.torch_timeout} s (stopped)"
    if result[0] != 0:
        return f"failed (exit {result[0]})"
    return f"{result[1]:.1f} s, {gib(result[4])}"


def bench_graphs(args, work, names, title):
    print(f"\n{title}\n")
    row(["program", "file", "JSON", "pt2onnx wall", "pt2onnx peak RSS", "RSS / JSON byte", "torch.onnx"])
    row(["---"] * 7)
    for name in names:
        pt2 = args.models / f"{name}.pt2"
        if not pt2.exists():
            row([name, "(missing)", "", "", "", "", ""])
            continue
        out = work / f"{name}.onnx"
        results = []
        for _ in range(args.runs):
            results.append(timed([args.pt2onnx, "-q", pt2, "-o", out]))
            if results[-1][0] != 0:
                raise SystemExit(f"pt2onnx failed on {pt2}")
            clean(out)
        wall = statistics.median(r[1] for r in results)
        rss = statistics.median(r[4] for r in results)
        js = json_bytes(pt2)
        row([name, gib(pt2.stat().st_size), gib(js), f"{wall:.2f} s", gib(rss), f"{rss / js:.1f}",
             torch_onnx(args, pt2, work / f"{name}.torch.onnx")])


def check_llm(args, work):
    """pt2onnx's LLM in ONNX Runtime against torch's logits (7 tokens). The float32 twin: ONNX
    Runtime's CPU provider has no bfloat16 kernels (the bf16 model fails to load there, as torch.onnx's does)."""
    stem = "llm1b_float32"
    pt2 = args.models / f"{stem}.pt2"
    out = work / f"{stem}.onnx"
    subprocess.run([args.pt2onnx, "-q", pt2, "-o", out], check=True)
    code = f"""
import numpy as np, onnxruntime as ort
s = ort.InferenceSession({str(out)!r}, providers=["CPUExecutionProvider"])
ids = np.load({str(args.models / (stem + '_inputs.npz'))!r})["input_ids"]
want = np.load({str(args.models / (stem + '_expected.npz'))!r})["logits"]
got = s.run(None, {{s.get_inputs()[0].name: ids}})[0].astype(np.float32)
print(f"LLM (float32 twin) in ONNX Runtime vs torch eager, 7 tokens: max abs diff {{np.abs(got - want).max():.4g}}, "
      f"logits max {{np.abs(want).max():.3g}}, argmax agreement {{(got.argmax(-1) == want.argmax(-1)).mean():.3f}}")
"""
    subprocess.run([args.torch_python or sys.executable, "-c", code], check=True)
    clean(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pt2onnx", type=pathlib.Path, required=True)
    parser.add_argument("--models", type=pathlib.Path, default=pathlib.Path("/tmp/pt2onnx-scale"))
    parser.add_argument("--work", type=pathlib.Path)
    parser.add_argument("--torch-python", help="python with torch 2.15 + onnxscript, for torch.onnx")
    parser.add_argument("--torch-timeout", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", type=pathlib.Path, help="another pt2onnx build to time beside (linear)")
    parser.add_argument("--only", default="linear,deep,llm")
    parser.add_argument("--check-llm", action="store_true")
    args = parser.parse_args()
    args.pt2onnx = args.pt2onnx.resolve()
    work = args.work or args.models / "bench_out"
    work.mkdir(parents=True, exist_ok=True)
    only = args.only.split(",")
    if "linear" in only:
        bench_linear(args, work)
    if "deep" in only:
        bench_graphs(args, work, [f"deep_{n}" for n in (256, 1024, 4096, 16384)],
                     "Deep nets: N x (Linear(64, 64) + GELU + LayerNorm)")
    if "llm" in only:
        bench_graphs(args, work, ["llm1b"], "Llama-style LLM, 1.0 B parameters, bf16, dynamic sequence length")
    if args.check_llm:
        check_llm(args, work)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
