#!/usr/bin/env bash
# The one test command (README "Quick start"; CI runs it via .ci/run):
#   1. set-up (idempotent): Debian packages, source tarballs, Python checkers
#   2. native build + every googletest suite          (bazel test //...)
#   3. the core and ops suites compiled to WebAssembly and run under node
#   4. end-to-end: every fixture converted by the CLI, checked by onnx's
#      checker and run in ONNX Runtime against torch's recorded outputs
#   5. the WebAssembly package: its ES-module API under node, and the page in
#      headless Chromium, both checked byte for byte against the CLI
# Options: --no-wasm skips steps 3 and 5 (quick local runs).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

wasm=1
for arg in "$@"; do
  case "$arg" in
    --no-wasm) wasm=0 ;;
    *) echo "usage: tools/test.sh [--no-wasm]" >&2; exit 2 ;;
  esac
done

bash tools/setup.sh

step() { printf '\n=== %s\n' "$*"; }
BAZEL_FLAGS=(--color=no --curses=no)

step "native build and C++ tests"
bazel test "${BAZEL_FLAGS[@]}" //...

# Copy the CLI out of bazel-bin at once: a later --config=wasm build repoints
# the bazel-bin symlink.
mkdir -p out/bin
bazel build "${BAZEL_FLAGS[@]}" //native:pt2onnx //native:onnxrun
BIN=$(bazel info "${BAZEL_FLAGS[@]}" bazel-bin 2>/dev/null)
cp -f "$BIN/native/pt2onnx" out/bin/pt2onnx
cp -f "$BIN/native/onnxrun" out/bin/onnxrun

if [ "$wasm" = 1 ]; then
  step "WebAssembly package, page and npm pack"
  bazel build "${BAZEL_FLAGS[@]}" //wasm:package //wasm:npm_pack //web:site
  rm -rf out/wasm out/web
  mkdir -p out/wasm out/web
  cp -rL "$BIN/wasm/package" out/wasm/package
  cp -L "$BIN/wasm/pt2onnx.tgz" out/wasm/pt2onnx.tgz
  cp -rL "$BIN/web/site" out/web/site
fi

if [ "$wasm" = 1 ]; then
  step "WebAssembly: core and ops tests under node"
  bazel test "${BAZEL_FLAGS[@]}" --config=wasm //tests/core/... //tests/ops/... //tests/runtime/...
fi

step "end-to-end: fixtures through the CLI, onnx checker, ONNX Runtime"
PT2ONNX_BIN="$ROOT/out/bin/pt2onnx" ONNXRUN_BIN="$ROOT/out/bin/onnxrun" .venv/bin/python -m pytest -q -p no:cacheprovider tests/e2e

if [ "$wasm" = 1 ]; then
  step "WebAssembly API under node, and the page in headless Chromium"
  node --test tests/web/
fi
