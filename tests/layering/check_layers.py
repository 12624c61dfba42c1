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

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LABEL = re.compile(r'"//([A-Za-z0-9_/.-]*)(?::[^"]*)?"')


def layer(path):
    top = path.split("/", 1)[0]
    return top if top in RANK else None


def violation(src, dst):
    """Why `src` (a repo path) may not use `dst` (a repo path), or None."""
    a, b = layer(src), layer(dst)
    if a is None or b is None:
        return None
    if RANK[b] > RANK[a]:
        return f"{a} must not use the higher layer {b}"
    if RANK[b] == RANK[a] and a != b:
        return f"{a} must not use {b}, a folder of the same layer"
    return None


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
                for header in INCLUDE.findall(f.read()):
                    why = violation(path, header)
                    if why:
                        problems.append(f'{path}: #include "{header}": {why}')
        elif os.path.basename(path) in ("BUILD.bazel", "BUILD"):
            package = os.path.dirname(path)
            with open(full, encoding="utf-8") as f:
                for target in LABEL.findall(f.read()):
                    why = violation(package + "/BUILD", target + "/x")
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
