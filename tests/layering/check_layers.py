#!/usr/bin/env python3
"""Fails when a lower layer includes or depends on a higher one.

Layers, lowest first (docs/architecture.md):
  core        core/ (aten, archive, io, pt2, ir, onnx, tensor, ...)
  engines     runtime/ (the ONNX executor), reference/ (the ATen interpreter)
  verify      verify/, which compares the two engines
  translate   the translation engine
  ops         the op families
  passes      graph passes
  export      the export pipeline
  front ends  native/, wasm/

A file may include a project header, and a BUILD target may depend on a
label, of its own layer or a lower one; two folders of one layer (runtime/
and reference/, native/ and wasm/) never use each other.

The front ends (native/, wasm/) reach the layers below through export/'s
API only: besides export/ and their own folder they may include just the
core/ I/O-level edge types in FRONT_END_CORE_HEADERS (and depend on
//core:base, the target that holds them), so that every step of a
conversion lives in export/ and the CLI and the browser cannot drift.
Reads the sources only (no Bazel), so it runs anywhere in a second; the
same rules as a Bazel query are in tools/test.sh.

  python3 tests/layering/check_layers.py        # exit 1 and one line per violation
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

RANK = {"core": 0, "runtime": 1, "reference": 1, "verify": 2, "translate": 3, "ops": 4, "passes": 5,
        "export": 6, "native": 7, "wasm": 7}

FRONT_ENDS = ("native", "wasm")

# The core/ headers a front end may include: the edge types it hands to
# export/ or gets back (bytes, output sinks, input files) and the status
# helpers. Anything else of the layers below comes through export/.
FRONT_END_CORE_HEADERS = {
    "core/bytes.h",          # ByteSpan, AsBytes: what a front end reads
    "core/io/byte_sink.h",   # ByteSink: where a front end writes
    "core/io/input_file.h",  # InputFile, MemoryFile, FileSlice: the input it opens
    "core/status_macros.h",  # PT2ONNX_RETURN_IF_ERROR, PT2ONNX_ASSIGN_OR_RETURN
    "core/status_util.h",    # AnnotateStatus
}
FRONT_END_CORE_LABELS = {"//core:base"}  # the target holding those headers

# Per file, with the reason: the CLI checks the weights' CRC-32 while the
# kernel splices them from the input into the output (native/spliced_crc.h),
# which needs the zip entries and the CRC function, and nothing of export/.
FRONT_END_EXCEPTIONS = {
    "native/spliced_crc.h": {"core/archive/zip_reader.h"},
    "native/spliced_crc.cc": {"core/archive/crc32.h"},
    "native/BUILD": {"//core/archive"},
}

# The namespace of each room's code (its folder name), so a name says where
# it lives; export/ is the library's API, declared in pt2onnx itself, and
# core/'s subfolders each have their own under pt2onnx.
ROOM_NAMESPACE = {"core": "pt2onnx", "runtime": "pt2onnx::runtime", "reference": "pt2onnx::reference",
                  "verify": "pt2onnx::verify", "translate": "pt2onnx::translate", "ops": "pt2onnx::ops",
                  "passes": "pt2onnx::passes", "export": "pt2onnx", "native": "pt2onnx::native",
                  "wasm": "pt2onnx::wasm"}
NAMESPACE = re.compile(r"^namespace\s+(pt2onnx\b[\w:]*)\s*\{", re.M)  # others: third-party forward declarations

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LABEL = re.compile(r'"(//([A-Za-z0-9_/.-]*)(?::[^"]*)?)"')


def layer(path):
    top = path.split("/", 1)[0]
    return top if top in RANK else None


def front_end_violation(src, dst, allowed):
    """Why the front-end file `src` may not use `dst` (a header path or a
    label), or None; `allowed`: the core/ edge types for its kind."""
    a, b = layer(src), layer(dst.lstrip("/").split(":", 1)[0])
    if a not in FRONT_ENDS or b is None or b in ("export", a):
        return None
    if dst in allowed or dst in FRONT_END_EXCEPTIONS.get(src, ()):
        return None
    return f"front end {a} must use {b} through export/'s API (core/ only for the edge types in FRONT_END_CORE_HEADERS)"


def violation(src, dst):
    """Why `src` (a repo path) may not include `dst` (a repo path), or None."""
    return rank_violation(src, dst) or front_end_violation(src, dst, FRONT_END_CORE_HEADERS)


def rank_violation(src, dst):
    """Why `src` may not use `dst` by the order of the layers, or None."""
    a, b = layer(src), layer(dst)
    if a is None or b is None:
        return None
    if RANK[b] > RANK[a]:
        return f"{a} must not use the higher layer {b}"
    if RANK[b] == RANK[a] and a != b:
        return f"{a} must not use {b}, a folder of the same layer"
    return None


def label_violation(build, label):
    """Why the BUILD file `build` (package + "/BUILD") may not depend on
    `label` ("//core:base"), by the front-end rule, or None."""
    if label.split(":", 1)[0] in FRONT_END_EXCEPTIONS.get(build, ()):
        return None
    return front_end_violation(build, label, FRONT_END_CORE_LABELS)


def namespace_violation(path, namespace):
    """Why `path` may not open `namespace` (pt2onnx or one inside it), or None."""
    room = ROOM_NAMESPACE.get(layer(path) or "")
    if room is None or namespace == room or namespace.startswith(room + "::"):
        return None
    return f"code in {layer(path)}/ belongs in namespace {room}"


def sources():
    for top in RANK:
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                yield os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/")


def check():
    problems = []
    for path in sorted(sources()):
        full = os.path.join(ROOT, path)
        if path.endswith((".h", ".cc", ".inc")):
            with open(full, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for header in INCLUDE.findall(text):
                why = violation(path, header)
                if why:
                    problems.append(f'{path}: #include "{header}": {why}')
            for namespace in NAMESPACE.findall(text):
                why = namespace_violation(path, namespace)
                if why:
                    problems.append(f"{path}: namespace {namespace}: {why}")
        elif os.path.basename(path) in ("BUILD.bazel", "BUILD"):
            package = os.path.dirname(path)
            with open(full, encoding="utf-8") as f:
                for label, target in LABEL.findall(f.read()):
                    why = rank_violation(package + "/BUILD", target + "/x") or label_violation(
                        package + "/BUILD", label)
                    if why:
                        problems.append(f'{path}: depends on //{target}: {why}')
    return problems


def main():
    problems = check()
    for p in problems:
        print(p)
    print(f"layering: {len(problems)} violation(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
