#!/usr/bin/env python3
"""Benchmark: a multi-GB exported program through pt2onnx (and torch.onnx).

    /path/to/torch-venv/bin/python tools/bench/large_model.py --pt2onnx out/bin/pt2onnx \
        [--layers 12 --width 8192] [--torch-onnx] [--workdir /tmp/pt2onnx-large]

`--layers 1024 --width 64` gives a deep, small program instead (graph size
rather than weight size).

Builds an MLP of `--layers` Linear(width, width) layers (12 x 8192^2 fp32 =
3.2 GB of weights), exports it with torch.export.export + torch.export.save,
then converts it with pt2onnx and reports wall time, peak resident memory and
peak *anonymous* memory (RSS minus the memory-mapped input, i.e. what the
converter itself allocated), and checks the ONNX model (external data, written
automatically above 1.5 GiB) against torch in ONNX Runtime. With --torch-onnx
it also times torch.onnx.export(dynamo=True) on the same program, side by side.
Needs torch (fixture-generation environment); not part of the test suite.
"""
import argparse
import os
import pathlib
import subprocess
import threading
import time


def watch_memory(pid, peaks, stop):
    """Polls /proc/<pid>/status for VmRSS and RssAnon peaks (kB)."""
    while not stop.is_set():
        try:
            fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
            peaks["rss"] = max(peaks["rss"], int(fields["VmRSS"].split()[0]))
            peaks["anon"] = max(peaks["anon"], int(fields["RssAnon"].split()[0]))
        except (OSError, KeyError, ValueError):
            pass
        time.sleep(0.005)


def run_measured(cmd):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peaks = {"rss": 0, "anon": 0}
    stop = threading.Event()
    watcher = threading.Thread(target=watch_memory, args=(proc.pid, peaks, stop))
    watcher.start()
    out, err = proc.communicate()
    stop.set()
    watcher.join()
    return proc.returncode, time.perf_counter() - start, peaks, err


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pt2onnx", required=True)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--width", type=int, default=8192)
    parser.add_argument("--workdir", default="/tmp/pt2onnx-large")
    parser.add_argument("--torch-onnx", action="store_true")
    args = parser.parse_args()

    import numpy as np
    import torch

    work = pathlib.Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    pt2 = work / "large.pt2"
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(args.width, args.width) for _ in range(args.layers)])
    with torch.no_grad():
        for layer in model:
            layer.weight.mul_(0.5)
    x = torch.randn(2, args.width)
    t0 = time.perf_counter()
    ep = torch.export.export(model.eval(), (x,))
    torch.export.save(ep, str(pt2))
    print(f"exported + saved {pt2.stat().st_size / 2**30:.2f} GiB in {time.perf_counter() - t0:.1f} s")
    with torch.no_grad():
        expected = model(x).numpy()
    del model

    out = work / "large.onnx"
    code, seconds, peaks, err = run_measured([args.pt2onnx, str(pt2), "-o", str(out), "-q"])
    if code != 0:
        raise SystemExit(f"pt2onnx failed ({code}): {err}")
    data = pathlib.Path(str(out) + ".data")
    print(f"pt2onnx: {seconds:.2f} s, peak RSS {peaks['rss'] / 2**20:.2f} GiB "
          f"(peak anonymous {peaks['anon'] / 1024:.0f} MiB; the rest is the mmapped input), "
          f"model {out.stat().st_size / 2**20:.2f} MiB + data "
          f"{(data.stat().st_size if data.exists() else 0) / 2**30:.2f} GiB")

    import onnxruntime as ort
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    (actual,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    diff = float(np.max(np.abs(actual - expected)))
    print(f"ONNX Runtime vs torch: max abs diff {diff:.2e}")
    del session

    if args.torch_onnx:
        script = (
            "import sys, time, torch\n"
            "ep = torch.export.load(sys.argv[1])\n"
            "t = time.perf_counter()\n"
            "torch.onnx.export(ep, (torch.randn(2, %d),), sys.argv[2], dynamo=True)\n"
            "print(time.perf_counter() - t)\n" % args.width)
        code, seconds, peaks, err = run_measured(
            [os.sys.executable, "-c", script, str(pt2), str(work / "torch.onnx")])
        status = "ok" if code == 0 else f"failed ({err.strip().splitlines()[-1] if err.strip() else code})"
        print(f"torch.onnx (load + export + save): {seconds:.2f} s, peak RSS "
              f"{peaks['rss'] / 2**20:.2f} GiB, {status}")


if __name__ == "__main__":
    main()
