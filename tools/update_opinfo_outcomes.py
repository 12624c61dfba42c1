#!/usr/bin/env python3
"""Runs every OpInfo sample (tests/fixtures/opinfo) and rewrites its table of expected outcomes.

    tools/update_opinfo_outcomes.py [-j N] [--check] [--summary [--markdown]] [--only OP,...]
        [--pt2onnx out/bin/pt2onnx] [--onnxrun out/bin/onnxrun] [--refrun out/bin/refrun]

Each sample (one program of an operator's multi-model model.pt2) is converted by the CLI at the default
opset and run in ONNX Runtime (`ort`), in pt2onnx's executor (`onnxrun`); the program itself runs in
the ATen reference interpreter (`refrun`). Every engine's outputs are compared with torch's eager
outputs: count, dtype, shape, NaN and infinity positions, values within the dtype's tolerance (only
dtype and shape for random operators). The samples where anything differs are written to
tests/fixtures/opinfo/expected_outcomes.json with, per engine, what happened (`convert`: the exit code
and the unsupported operators or the message; `ort`/`onnxrun`/`refrun`: the failure or the first
mismatch). tests/e2e/test_opinfo.py asserts exactly these outcomes, so the table must follow the
converter: run this after adding a translation, a kernel or a reference kernel, and commit the table
(it only shrinks when coverage grows). A `why` written by hand into an entry is kept while the outcome
stays the same (an ONNX Runtime gap, no CPU kernel for a valid model's op and dtype, gets its `why`
written). --check exits 1 when the table is stale; --summary prints the coverage figures of the
committed table without running anything (--markdown: per dtype, as a table). Only the float32 samples
are swept over opsets (SWEEP_DTYPE). The tests import the checking code from here.
"""
import argparse
import atexit
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
OPINFO = ROOT / "tests" / "fixtures" / "opinfo"
INDEX = OPINFO / "index.json"
TABLE = OPINFO / "expected_outcomes.json"
DEFAULT_OPSET = 20
# The sweep: the lowest and highest opsets pt2onnx writes and torch.onnx's fusion opset (23), converted
# and run in ONNX Runtime only (the opset-dependent translations: Split/Squeeze/Reduce* axes as inputs,
# new operators such as IsInf types, Attention/RMSNormalization at 23, Swish, CumProd and BitCast above).
SWEEP_OPSETS = (18, 23, 26)
SWEEP_ENGINES = ("convert", "ort")
# Only the float32 samples are swept: the opset-dependent choices are the translations', which float32
# exercises, and sweeping every dtype would double the suite's time (CI is close to its limit).
SWEEP_DTYPE = "float32"
ENGINES = ("convert", "ort", "onnxrun", "refrun")
COMMENT = (
    "Expected outcomes of the OpInfo samples (tests/fixtures/opinfo) that do not convert and match torch "
    "everywhere, by operator/program, at the default opset: per engine (convert: the CLI; ort: ONNX Runtime; "
    "onnxrun: pt2onnx's executor; refrun: the ATen reference interpreter on the program) what happens "
    "instead. tests/e2e/test_opinfo.py asserts each outcome exactly, so a listed sample that starts passing "
    "fails the test too: rewrite the table with tools/update_opinfo_outcomes.py (it keeps a hand-written "
    "`why` while the outcome is unchanged). opset_sweep: where a sample's conversion or ONNX Runtime outcome at "
    "another opset differs from the default opset's, that outcome.")

# Tolerances per dtype: rtol, and atol relative to the largest finite |value| torch produced (at least 1):
# a wrong translation is off by O(1) relative; float rounding of another summation order is not.
TOLERANCES = {"float16": (1e-2, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}


def load_index():
    return json.loads(INDEX.read_text())["ops"]


def load_table():
    return json.loads(TABLE.read_text())["samples"] if TABLE.exists() else {}


def load_sweep():
    """opset (str) -> sample -> outcome, where it differs from the default opset's."""
    return json.loads(TABLE.read_text()).get("opset_sweep", {}) if TABLE.exists() else {}


def sample_ids(index):
    """[(op, program)] of every committed sample, in index order."""
    return [(op, prog) for op, entry in index.items() for prog in entry.get("samples", {})]


def op_folder(op):
    return OPINFO / re.sub(r"[^A-Za-z0-9_.-]", "_", op)


def first_line(text, work=None):
    line = next((l.strip() for l in (text or "").splitlines() if l.strip()), "")
    if work is not None:
        line = line.replace(str(work), "<tmp>")
    line = line.replace(str(ROOT) + "/", "")
    return line if len(line) <= 240 else line[:240] + "..."


def tolerance(dtype, expected):
    rtol, atol = TOLERANCES.get(dtype.name if dtype.kind != "c" else
                                {"complex64": "float32", "complex128": "float64"}[dtype.name], (1e-4, 1e-5))
    finite = np.abs(expected[np.isfinite(expected)]) if expected.size else np.zeros(0)
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return rtol, atol * scale


def mismatch(actual, expected, random=False, complex_as_real=()):
    """None when the outputs agree with torch's, else the first difference (no numbers: the table must
    not depend on rounding). complex_as_real: indices of the outputs the engine marks as a complex value
    written as torch.view_as_real (see complex_outputs); torch's complex value is compared in that
    layout there, and only there."""
    if len(actual) != len(expected):
        return f"{len(actual)} outputs (torch: {len(expected)})"
    for i, (got, want) in enumerate(zip(actual, expected)):
        got = np.asarray(got)
        if i in complex_as_real and want.dtype.kind == "c":
            want = np.stack([want.real, want.imag], axis=-1)
        if got.dtype != want.dtype:
            return f"output {i}: dtype {got.dtype} (torch: {want.dtype})"
        if got.shape != want.shape:
            return f"output {i}: shape {list(got.shape)} (torch: {list(want.shape)})"
        if random or want.size == 0:
            continue
        if want.dtype.kind in "biu":
            if not np.array_equal(got, want):
                return f"output {i}: values"
            continue
        wide = np.complex128 if want.dtype.kind == "c" else np.float64
        g, w = got.astype(wide), want.astype(wide)
        if not np.array_equal(np.isnan(g), np.isnan(w)):
            return f"output {i}: NaN positions"
        rtol, atol = tolerance(want.dtype, w)
        infinite = np.isinf(w)
        if not np.array_equal(g[infinite], w[infinite]) or np.isinf(g[~infinite]).any():
            return f"output {i}: infinities"
        finite = np.isfinite(w)
        if (np.abs(g[finite] - w[finite]) > atol + rtol * np.abs(w[finite])).any():
            return f"output {i}: values"
    return None


# The model-level metadata_props entry naming the outputs written as torch.view_as_real (docs/cli.md).
COMPLEX_OUTPUTS_KEY = "pkg.pt2onnx.complex_outputs"


def complex_outputs(model):
    """Indices of the outputs an .onnx model marks as complex values written as torch.view_as_real."""
    import onnx
    proto = onnx.load(str(model), load_external_data=False)
    names = next((p.value.split(",") for p in proto.metadata_props if p.key == COMPLEX_OUTPUTS_KEY), [])
    return {i for i, out in enumerate(proto.graph.output) if out.name in names}


def complex_program_outputs(record):
    """Indices of a program's complex outputs (the index's output_dtypes): refrun writes them as
    torch.view_as_real, the rule the converter follows."""
    return {i for i, d in enumerate(record.get("output_dtypes") or []) if d.startswith("complex")}


class Sample:
    """One program of an operator's archive, with its inputs and torch's outputs."""

    def __init__(self, op, prog, record, data):
        self.op, self.prog, self.record = op, prog, record
        self.folder = op_folder(op)
        self.inputs = {n: data[f"{prog}.in.{n}"] for n in record["inputs"]}
        self.expected = [data[f"{prog}.out.{i}"] for i in range(record["outputs"])]
        self.random = bool(record.get("values_unchecked"))  # random draws, uninitialized memory

    @property
    def key(self):
        return f"{self.op}/{self.prog}"

    @property
    def dtype(self):
        return self.record.get("dtype", SWEEP_DTYPE)

    @property
    def swept(self):
        """Whether the opset sweep runs this sample (see SWEEP_DTYPE)."""
        return self.dtype == SWEEP_DTYPE


def op_samples(op, entry):
    with np.load(op_folder(op) / "data.npz") as npz:
        data = {k: npz[k] for k in npz.files}
    return [Sample(op, prog, record, data) for prog, record in entry.get("samples", {}).items()]


def run(cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True)


def convert(bins, sample, out, opset, work):
    """None when converted, else the reason: unsupported operators (exit 5) or the exit and message."""
    result = run([bins["pt2onnx"], sample.folder / "model.pt2", "--model", sample.prog, "-o", out, "-q",
                  "--opset", opset, "--json"])
    if result.returncode == 0:
        return None
    try:
        record = json.loads(result.stdout.splitlines()[0])
    except (IndexError, ValueError):
        record = {}
    # "aten::x.default x2 (first at node 'x')": the overload names the outcome, not where it sits.
    ops = sorted({line.split()[0] for line in record.get("unsupportedOps") or [] if line.split()})
    if result.returncode == 5 and ops:
        return "exit 5: unsupported " + ", ".join(sorted(ops))
    message = record.get("message") or result.stderr
    return f"exit {result.returncode}: {first_line(message, work)}"


# ONNX Runtime runs in a worker process of its own (one per thread, reused across samples): a crash
# inside it on one model (it has happened) is that sample's outcome, not the end of the run.
ORT_WORKER = r"""
import json, sys
import numpy as np
import onnxruntime as ort
options = ort.SessionOptions()
options.intra_op_num_threads = 1
options.log_severity_level = 3
for line in sys.stdin:
    job = json.loads(line)
    try:
        session = ort.InferenceSession(job["model"], options, providers=["CPUExecutionProvider"])
        with np.load(job["inputs"]) as npz:
            given = {k: npz[k] for k in npz.files}
        missing = [i.name for i in session.get_inputs() if i.name not in given]
        if missing:
            reply = {"error": f"model inputs {missing} are not the program's"}
        else:
            outputs = session.run(None, {i.name: given[i.name] for i in session.get_inputs()})
            np.savez(job["outputs"], **{f"o{n}": np.asarray(o) for n, o in enumerate(outputs)})
            reply = {"ok": True}
    except Exception as error:  # ONNX Runtime refuses or fails on the model
        reply = {"error": "fails: " + (str(error).strip().splitlines() or [""])[0]}
    print(json.dumps(reply), flush=True)
"""


class OrtWorker:
    """One ONNX Runtime process answering one model at a time; restarted after it dies."""

    def __init__(self):
        self.process = None

    def start(self):
        self.process = subprocess.Popen([sys.executable, "-c", ORT_WORKER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def run(self, model, inputs, outputs):
        """{"ok": True} or {"error": reason}."""
        if self.process is None or self.process.poll() is not None:
            self.start()
        job = json.dumps({"model": str(model), "inputs": str(inputs), "outputs": str(outputs)})
        try:
            self.process.stdin.write(job + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if line:
            return json.loads(line)
        code = self.process.wait()
        self.process = None
        return {"error": f"crashes (exit {code})"}

    def close(self):
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait()


_workers = threading.local()
_all_workers = []


def ort_worker():
    if not hasattr(_workers, "worker"):
        _workers.worker = OrtWorker()
        _all_workers.append(_workers.worker)
    return _workers.worker


@atexit.register
def _close_workers():
    for worker in _all_workers:
        worker.close()


def run_ort(model, inputs, sample, work, complex_as_real=()):
    out = work / "ort.npz"
    reply = ort_worker().run(model, inputs, out)
    if "error" in reply:
        return first_line(reply["error"], work)
    with np.load(out) as npz:
        actual = [npz[f"o{n}"] for n in range(len(npz.files))]
    return mismatch(actual, sample.expected, sample.random, complex_as_real)


def run_tool(cmd, out, sample, work, complex_as_real=()):
    result = run(cmd)
    if result.returncode != 0:
        return f"exit {result.returncode}: {first_line(result.stderr, work)}"
    with np.load(out) as npz:
        actual = [npz[k] for k in npz.files]
    return mismatch(actual, sample.expected, sample.random, complex_as_real)


def check_sample(bins, sample, opset=DEFAULT_OPSET, engines=ENGINES):
    """{engine: what happens} for the engines where the sample does not match torch ({} when it does)."""
    outcome = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        inputs = work / "inputs.npz"
        np.savez(inputs, **sample.inputs)
        model = work / "model.onnx"
        reason = convert(bins, sample, model, opset, work)
        if reason:
            outcome["convert"] = reason
        else:
            # Reading the model back costs as much as running it: only where torch's outputs are complex.
            marked = complex_outputs(model) if complex_program_outputs(sample.record) else set()
            if "ort" in engines:
                outcome["ort"] = run_ort(model, inputs, sample, work, marked)
            if "onnxrun" in engines:
                outcome["onnxrun"] = run_tool([bins["onnxrun"], model, "--inputs", inputs, "--outputs",
                                               work / "onnxrun.npz", "-q"], work / "onnxrun.npz", sample, work,
                                              marked)
        if "refrun" in engines:
            outcome["refrun"] = run_tool([bins["refrun"], sample.folder / "model.pt2", "--model", sample.prog,
                                          "--inputs", inputs, "--outputs", work / "refrun.npz", "-q"],
                                         work / "refrun.npz", sample, work,
                                         complex_program_outputs(sample.record))
    return {k: v for k, v in outcome.items() if v}


def sweep_expected(table, sweep, opset, key):
    """A sample's expected convert/ort outcome at a sweep opset: listed there, else the default opset's."""
    listed = sweep.get(str(opset), {}).get(key)
    if listed is not None:
        return comparable(listed)
    return {k: v for k, v in comparable(table.get(key)).items() if k in SWEEP_ENGINES}


def comparable(entry):
    return {k: v for k, v in (entry or {}).items() if k in ENGINES}


# ONNX Runtime's answer for a valid model whose operator it has no CPU kernel for at that dtype.
ORT_GAP = "fails: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation"
ORT_GAP_WHY = ("ONNX Runtime gap: the model is valid ONNX (the op's schema allows this dtype) but ONNX "
               "Runtime's CPU provider has no kernel for it (or for the contrib op its optimizer fuses it into)")


# ... and where a kernel exists but refuses the dtype at run time (ScatterND's float16 reductions).
ORT_GAP_AT_RUN = re.compile(r"fails: \[ONNXRuntimeError\] : 6 : RUNTIME_EXCEPTION : .* data type is not supported")


# ... and where ONNX Runtime's own graph optimizer fuses nodes into a contrib operator (FusedMatMul,
# QuickGelu) that has no kernel for the dtype (float64).
ORT_GAP_FUSED = "fails: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Failed to find kernel for com.microsoft."


def is_ort_gap(entry):
    ort = (entry or {}).get("ort", "")
    return ort.startswith((ORT_GAP, ORT_GAP_FUSED)) or bool(ORT_GAP_AT_RUN.match(ort))


def is_refused(entry):
    return (entry or {}).get("convert", "").startswith("exit 5")


def dtype_figures(index, table):
    """[(dtype, samples, right everywhere, refused with exit 5, ONNX Runtime gaps, other)] in index order."""
    rows = {}
    for op, entry in index.items():
        for prog, record in entry.get("samples", {}).items():
            row = rows.setdefault(record.get("dtype", SWEEP_DTYPE), [0, 0, 0, 0, 0])
            outcome = comparable(table.get(f"{op}/{prog}"))
            row[0] += 1
            column = (1 if not outcome else 2 if is_refused(outcome) else 3 if is_ort_gap(outcome) else 4)
            row[column] += 1
    return [(dtype, *row) for dtype, row in rows.items()]


def dtype_table(index, table):
    """dtype_figures as a Markdown table (README.md and docs/building.md show it)."""
    lines = ["| dtype | samples | right everywhere | refused (exit 5, reason in the table) | ONNX Runtime gaps | other |",
             "|---|---:|---:|---:|---:|---:|"]
    rows = dtype_figures(index, table)
    for dtype, *row in rows + [("all", *[sum(r[i] for r in rows) for i in range(1, 6)])]:
        samples, right = row[0], row[1]
        lines.append(f"| {dtype} | {samples} | {right} ({100.0 * right / max(samples, 1):.1f} %) | "
                     + " | ".join(str(n) for n in row[2:]) + " |")
    return "\n".join(lines)


def blocking_operators(table):
    """Unsupported operator -> number of samples whose conversion it blocks."""
    counts = collections.Counter()
    for entry in table.values():
        reason = entry.get("convert", "")
        if reason.startswith("exit 5: unsupported "):
            counts.update(reason[len("exit 5: unsupported "):].split(", "))
    return counts


def summary(index, table, sweep=None, top=15):
    ids = sample_ids(index)
    total = len(ids)
    converted = sum(1 for k in (f"{o}/{p}" for o, p in ids) if "convert" not in table.get(k, {}))
    ort_ok = sum(1 for k in (f"{o}/{p}" for o, p in ids)
                 if not {"convert", "ort"} & set(table.get(k, {})))
    all_ok = sum(1 for k in (f"{o}/{p}" for o, p in ids) if not comparable(table.get(k)))
    ops = [o for o, e in index.items() if e.get("samples")]
    blocked = {k.split("/", 1)[0] for k, v in table.items() if comparable(v)}
    ops_ok = sum(1 for o in ops if o not in blocked)
    pct = lambda n: f"{n} / {total} ({100.0 * n / max(total, 1):.1f} %)"  # noqa: E731
    lines = [
        f"OpInfo samples: {total} of {len(ops)} operators (opset {DEFAULT_OPSET})",
        f"  converted:                                             {pct(converted)}",
        f"  converted and matching torch in ONNX Runtime:          {pct(ort_ok)}",
        f"  ... and in the executor and the reference interpreter: {pct(all_ok)}",
        f"  operators with every sample right everywhere:          {ops_ok} / {len(ops)}",
    ]
    for opset, entries in sorted((sweep or {}).items()):
        lines.append(f"  opset {opset}: {len(entries)} samples with another conversion or ONNX Runtime outcome")
    if len(dtype_figures(index, table)) > 1:
        lines.append("  per dtype (samples: right everywhere / refused / ONNX Runtime gaps / other): " + ", ".join(
            f"{d} {n}: {r}/{x}/{g}/{o}" for d, n, r, x, g, o in dtype_figures(index, table)))
    blockers = blocking_operators(table).most_common(top)
    if blockers:
        lines.append("  top blocking operators (samples): " + ", ".join(f"{op} ({n})" for op, n in blockers))
    return "\n".join(lines)


def default_bins():
    def pick(name, env):
        return os.environ.get(env) or str(ROOT / "out" / "bin" / name)
    return {"pt2onnx": pick("pt2onnx", "PT2ONNX_BIN"), "onnxrun": pick("onnxrun", "ONNXRUN_BIN"),
            "refrun": pick("refrun", "REFRUN_BIN")}


def with_whys(table, old):
    entries = {}
    for key in sorted(table):
        entry = dict(table[key])
        previous = old.get(key)
        if previous and "why" in previous and comparable(previous) == entry:
            entry["why"] = previous["why"]
        elif is_ort_gap(entry):
            entry["why"] = ORT_GAP_WHY
        entries[key] = entry
    return entries


def render(table, old, sweep, old_sweep):
    def block(entries, pad):
        return ",\n".join(f"{pad}{json.dumps(k)}: {json.dumps(v)}" for k, v in entries.items())

    lines = ["{", f' "comment": {json.dumps(COMMENT)},', f' "opset": {DEFAULT_OPSET},', ' "samples": {',
             block(with_whys(table, old), "  "), " },", ' "opset_sweep": {']
    opsets = [str(o) for o in SWEEP_OPSETS]
    for n, opset in enumerate(opsets):
        entries = with_whys(sweep.get(opset, {}), old_sweep.get(opset, {}))
        lines += [f'  "{opset}": {{', block(entries, "   "), "  }" + ("," if n + 1 < len(opsets) else "")]
    lines += [" }", "}"]
    return "\n".join(l for l in lines if l) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    parser.add_argument("--summary", action="store_true", help="print the committed table's figures only")
    parser.add_argument("--markdown", action="store_true", help="with --summary: the per-dtype Markdown table too")
    parser.add_argument("--convert-only", action="store_true",
                        help="only convert (quick figures: converted, blocking operators); writes nothing")
    parser.add_argument("--only", default="", help="comma-separated operators (the others keep their entries)")
    bins = default_bins()
    for name, path in bins.items():
        parser.add_argument(f"--{name}", default=path)
    args = parser.parse_args()
    index, old, old_sweep = load_index(), load_table(), load_sweep()
    if args.summary:
        print(summary(index, old, old_sweep))
        if args.markdown:
            print(dtype_table(index, old))
        return 0
    bins = {name: getattr(args, name) for name in bins}
    for name, path in bins.items():
        if not pathlib.Path(path).exists():
            parser.error(f"{name} not found at {path}; build it (bazel build //native:{name}) and pass --{name}")
    only = {o.strip() for o in args.only.split(",") if o.strip()}
    unknown = only - set(index)
    if unknown:
        parser.error(f"not OpInfo operators of {INDEX.relative_to(ROOT)}: {sorted(unknown)}")
    table = {k: comparable(v) for k, v in old.items() if only and k.split("/", 1)[0] not in only}
    table = {k: v for k, v in table.items() if v}
    sweep = {str(o): {k: comparable(v) for k, v in old_sweep.get(str(o), {}).items()
                      if only and k.split("/", 1)[0] not in only} for o in SWEEP_OPSETS}

    def check_op(op):
        results = {}
        for s in op_samples(op, index[op]):
            if args.convert_only:
                results[s.key] = (check_sample(bins, s, DEFAULT_OPSET, ("convert",)), {})
                continue
            default = check_sample(bins, s)
            here = {k: v for k, v in default.items() if k in SWEEP_ENGINES}
            others = {o: check_sample(bins, s, o, SWEEP_ENGINES) for o in SWEEP_OPSETS} if s.swept else {}
            results[s.key] = (default, {o: v for o, v in others.items() if v != here})
        return results

    todo = [op for op, entry in index.items() if entry.get("samples") and (not only or op in only)]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for done, results in enumerate(pool.map(check_op, todo), 1):
            for key, (default, others) in results.items():
                if default:
                    table[key] = default
                for opset, outcome in others.items():
                    sweep[str(opset)][key] = outcome
            if done % 50 == 0:
                print(f"[opinfo] {done} / {len(todo)} operators", file=sys.stderr)
    if args.convert_only:
        print(summary(index, table).splitlines()[1])
        print(summary(index, table).splitlines()[-1])
        return 0
    text = render(table, old, sweep, old_sweep)
    if args.check:
        if text != (TABLE.read_text() if TABLE.exists() else ""):
            print(f"{TABLE.relative_to(ROOT)} is stale: run tools/update_opinfo_outcomes.py", file=sys.stderr)
            return 1
    else:
        TABLE.write_text(text)
    written = json.loads(text)
    print(summary(index, written["samples"], written["opset_sweep"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
