"""pt2onnx's optimized models against torch.onnx's (optimize=True), side by side. Figures, not a test.

    bazel build --config=opt //native:pt2onnx
    /path/to/venv/bin/python tools/bench/optimizer_vs_torch_onnx.py [--only a,b] [--runs 20] [--json out.json]
        [--keep DIR]

The venv needs torch, onnx, onnxscript and onnxruntime. Models: every tests/fixtures/models/<name>/ (the real-
model zoo) and every tier-1 fixture tests/fixtures/<name>/ that has a model.pt2 and an inputs.npz.

Per model and converter:
  nodes        nodes of the main graph (pt2onnx: also the count before optimization, "translated")
  init KiB     bytes of the initializers' data
  file KiB     the .onnx file plus its external data, if any
  ORT ms       ONNX Runtime CPU, 1 intra-op thread, graph optimizations at ORT's default level,
               median of --runs runs after 3 warm-up runs, on the fixture's inputs.npz; the
               two models take turns run by run (interleaved), so machine load hits both alike
  convert s    pt2onnx: wall time of the CLI process; torch.onnx: torch.export.load + export + save
The outputs of both models are compared with each other before timing (max abs diff shown).

Rechecks: on a loaded machine a latency ratio (ours / torch) within ~10 % is mostly noise, and a burst of
load can spoil 20 runs, so a row where ours is slower (ratio above 1, up to --recheck-above) is timed again
with --recheck-runs interleaved runs and keeps those figures ("recheck" in JSON, "r" after the latency in
the table).

--keep DIR keeps both models per row as DIR/<name>/ours.onnx and torch.onnx (to compare them) and reuses
a kept torch.onnx model (and its recorded convert time) when it is newer than the .pt2: torch.onnx's
export takes most of the run's time.
"""
import argparse
import contextlib
import io
import json
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import onnx
import onnxruntime as ort

ROOT = pathlib.Path(__file__).resolve().parents[2]


def model_folders(only):
    folders = sorted(p for p in (ROOT / "tests/fixtures/models").iterdir() if (p / "model.pt2").is_file())
    folders += sorted(p for p in (ROOT / "tests/fixtures").iterdir()
                      if (p / "model.pt2").is_file() and (p / "inputs.npz").is_file())
    if only:
        folders = [f for f in folders if f.name in only]
    return folders


def onnx_sizes(path):
    model = onnx.load(str(path), load_external_data=False)
    init_bytes = 0
    for t in model.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            init_bytes += int({e.key: e.value for e in t.external_data}.get("length", 0))
        else:
            init_bytes += len(t.raw_data) or onnx.numpy_helper.to_array(t).nbytes
    file_bytes = path.stat().st_size
    data = pathlib.Path(str(path) + ".data")
    if data.exists():
        file_bytes += data.stat().st_size
    return len(model.graph.node), init_bytes, file_bytes


def ort_session(path, inputs):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    values = list(inputs.values())
    feeds = {n: inputs[n] if n in inputs else values[k] for k, n in enumerate(names)}
    return session, feeds


def ort_interleaved(paths, inputs, runs):
    """Median ms and outputs per model; the models take turns run by run (which one goes first
    alternates), so load on the machine falls on both alike. The session created first runs up to 2 %
    slower (seen comparing a model with itself): half the runs are timed on sessions created in
    the other order."""
    times = {key: [] for key in paths}
    outputs = {}
    for creation_order in (list(paths), list(paths)[::-1]):
        sessions = {key: ort_session(paths[key], inputs) for key in creation_order}
        for key, (session, feeds) in sessions.items():
            for _ in range(3):
                outputs[key] = session.run(None, feeds)
        order = [(key, sessions[key]) for key in paths]
        for round_index in range((runs + 1) // 2):
            for key, (session, feeds) in (order if round_index % 2 == 0 else order[::-1]):
                start = time.perf_counter()
                session.run(None, feeds)
                times[key].append((time.perf_counter() - start) * 1e3)
        del sessions, order
    return {key: float(np.median(t)) for key, t in times.items()}, outputs


def convert_pt2onnx(exe, pt2, out):
    start = time.perf_counter()
    result = subprocess.run([str(exe), str(pt2), "-o", str(out), "--print-pass-stats"], capture_output=True,
                            text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip().splitlines()[-1])
    translated = re.search(r"nodes: (\d+) translated", result.stderr)
    return seconds, int(translated.group(1)) if translated else None


def convert_torch_onnx_cached(pt2, out, keep):
    """torch.onnx's export, or the one kept from an earlier run if it is newer than the .pt2."""
    if keep is None:
        return convert_torch_onnx(pt2, out)
    kept = keep / pt2.parent.name / "torch.onnx"
    record = kept.with_suffix(".json")
    if kept.is_file() and record.is_file() and kept.stat().st_mtime > pt2.stat().st_mtime:
        shutil.copyfile(kept, out)
        if pathlib.Path(str(kept) + ".data").exists():
            shutil.copyfile(str(kept) + ".data", str(out) + ".data")
        return json.loads(record.read_text())["convert_s"]
    seconds = convert_torch_onnx(pt2, out)
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out, kept)
    if pathlib.Path(str(out) + ".data").exists():
        shutil.copyfile(str(out) + ".data", str(kept) + ".data")
    record.write_text(json.dumps({"convert_s": seconds}))
    return seconds


def convert_torch_onnx(pt2, out):
    import torch
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.load(str(pt2))
        args, kwargs = ep.example_inputs if ep.example_inputs is not None else ((), {})
        program = torch.onnx.export(ep, args, kwargs=kwargs, dynamo=True, optimize=True, verbose=False)
        program.save(str(out))
    return time.perf_counter() - start


def max_diff(a_outputs, b_outputs):
    worst = 0.0
    for a, b in zip(a_outputs, b_outputs):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return float("inf")
        if a.size and a.dtype.kind in "fc":
            worst = max(worst, float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64)), initial=0)))
        elif a.size and not np.array_equal(a, b):
            return float("inf")
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated folder names")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--pt2onnx", type=pathlib.Path, default=ROOT / "bazel-bin/native/pt2onnx")
    parser.add_argument("--json", type=pathlib.Path, help="also write the rows as JSON")
    parser.add_argument("--keep", type=pathlib.Path, help="keep both models here; reuse kept torch.onnx models")
    parser.add_argument("--recheck-above", type=float, default=float("inf"),
                        help="time again rows whose latency ratio ours/torch is in (1, this] (default: every one)")
    parser.add_argument("--recheck-runs", type=int, default=200, help="interleaved runs of a recheck")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    only = {s for s in args.only.split(",") if s}
    rows = []
    header = ("| model | nodes pt2onnx (translated) | nodes torch.onnx | init KiB ours / torch | "
              "file KiB ours / torch | ORT ms ours / torch | convert s ours / torch | max diff |")
    print(header)
    print("|" + "---|" * 8)
    for folder in model_folders(only):
        inputs = dict(np.load(folder / "inputs.npz"))
        row = {"model": folder.name}
        with tempfile.TemporaryDirectory() as tmp:
            ours, theirs = pathlib.Path(tmp) / "ours.onnx", pathlib.Path(tmp) / "torch.onnx"
            try:
                row["ours_convert_s"], row["ours_translated"] = convert_pt2onnx(args.pt2onnx, folder / "model.pt2", ours)
                row["ours_nodes"], row["ours_init"], row["ours_file"] = onnx_sizes(ours)
            except Exception as error:  # noqa: BLE001 - a row per model, whatever fails
                row["ours_error"] = str(error)[:120]
            try:
                row["torch_convert_s"] = convert_torch_onnx_cached(folder / "model.pt2", theirs, args.keep)
                row["torch_nodes"], row["torch_init"], row["torch_file"] = onnx_sizes(theirs)
            except Exception as error:  # noqa: BLE001
                row["torch_error"] = str(error).strip().splitlines()[-1][:120] if str(error).strip() else repr(error)
            runnable = {side: path for side, path in (("ours", ours), ("torch", theirs))
                        if f"{side}_nodes" in row}
            try:
                medians, outs = ort_interleaved(runnable, inputs, args.runs)
                for side, ms in medians.items():
                    row[f"{side}_ms"] = ms
                if len(outs) == 2:
                    row["max_diff"] = max_diff(outs["ours"], outs["torch"])
                    if 1.0 < medians["ours"] / medians["torch"] <= args.recheck_above:
                        medians, _ = ort_interleaved(runnable, inputs, args.recheck_runs)
                        row["recheck"] = {"first_ours_ms": row["ours_ms"], "first_torch_ms": row["torch_ms"],
                                          "runs": args.recheck_runs}
                        for side, ms in medians.items():
                            row[f"{side}_ms"] = ms
            except Exception as error:  # noqa: BLE001
                row["ort_error"] = str(error)[:120]
            if args.keep is not None and "ours_nodes" in row:
                (args.keep / folder.name).mkdir(parents=True, exist_ok=True)
                for path in pathlib.Path(tmp).glob("ours.onnx*"):
                    shutil.copyfile(path, args.keep / folder.name / path.name)
        rows.append(row)

        def pair(key, scale=1.0, fmt="{:.0f}"):
            a = row.get(f"ours_{key}")
            b = row.get(f"torch_{key}")
            show = lambda v: "—" if v is None else fmt.format(v / scale)
            return f"{show(a)} / {show(b)}"

        ours_nodes = "error" if "ours_error" in row else f"{row['ours_nodes']} ({row.get('ours_translated')})"
        torch_nodes = "error" if "torch_error" in row else str(row["torch_nodes"])
        diff = row.get("max_diff")
        print(f"| {folder.name} | {ours_nodes} | {torch_nodes} | {pair('init', 1024, '{:.1f}')} | "
              f"{pair('file', 1024, '{:.1f}')} | {pair('ms', 1, '{:.3f}')}{' r' if 'recheck' in row else ''} | {pair('convert_s', 1, '{:.2f}')} | "
              f"{'—' if diff is None else f'{diff:.2g}'} |", flush=True)
        for side in ("ours", "torch"):
            if f"{side}_error" in row:
                print(f"  {side} error: {row[f'{side}_error']}", file=sys.stderr, flush=True)
    both = [r for r in rows if "ours_nodes" in r and "torch_nodes" in r]
    fewer = sum(r["ours_nodes"] <= r["torch_nodes"] for r in both)
    timed = [r for r in both if "ours_ms" in r and "torch_ms" in r]
    faster = sum(r["ours_ms"] <= r["torch_ms"] for r in timed)
    print(f"\nnodes <= torch.onnx: {fewer}/{len(both)}; ORT latency <= torch.onnx: {faster}/{len(timed)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
