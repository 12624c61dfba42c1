#!/usr/bin/env bash
# One idempotent set-up for pt2onnx on Debian 12 (bookworm), offline apart from Debian's archive and PyPI.
#
#   tools/setup.sh            # everything: Debian packages, source tarballs, Python test tools
#
# What it installs:
#   * Debian packages: Bazel 4.2.3 (bazel-bootstrap) + Debian's rule repos, protoc/libprotobuf 3.21.12,
#     googletest, RapidJSON (header-only JSON parser), Emscripten 3.1.6 (wasm build), Node (tests),
#     Chromium + Liberation fonts (headless browser tests of the web page).
#   * Source tarballs into third_party/src/ (ignored by git and Bazel): onnx 1.21.0 (PyPI source
#     distribution, checked against its SHA-256), XNNPACK 2024-11 and pthreadpool 2024-06 (trixie),
#     abseil 20220623.1 and protobuf 3.21.12 (bookworm). Bazel reads them as local repositories.
#   * A Python virtual environment in .venv/ with onnx + onnxruntime + numpy + pytest (the independent
#     checkers used by the end-to-end tests). torch is NOT installed here; see tools/fixtures/.
#   * .bazelrc.machine: Bazel's sandboxes in /dev/shm when it is a tmpfs with room (faster builds).
#   * tests/web/node_modules: playwright-core (npm ci of tests/web/package-lock.json), which drives the
#     system Chromium (no browser is downloaded), TypeScript (checks the package's .d.ts) and esbuild
#     (bundles the package README's example page).
# Each step is skipped when its result is already present, so re-running costs a few seconds.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/third_party/src"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

log() { printf '[setup] %s\n' "$*" >&2; }

# ---- Debian packages -------------------------------------------------------------------------------
DEB_PACKAGES=(
  bazel-bootstrap bazel-platforms bazel-rules-cc bazel-rules-java bazel-rules-proto bazel-skylib
  protobuf-compiler libprotobuf-dev googletest libgtest-dev rapidjson-dev
  libfxdiv-dev libcpuinfo-dev
  emscripten python3-venv xz-utils
  chromium fonts-liberation
  # --config=asan/ubsan use gcc's libasan/libubsan; --config=fuzz uses clang 14 and its libFuzzer.
  clang-14 libclang-rt-14-dev lld-14
)
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- Source tarballs --------------------------------------------------------------------------------
# name|suite|source package=version|tarball|extracted folder
SOURCES=(
  "abseil|bookworm|abseil/bookworm|abseil_20220623.1.orig.tar.gz|abseil-20220623.1"
  "protobuf|bookworm|protobuf/bookworm|protobuf_3.21.12.orig.tar.gz|protobuf-3.21.12"
  "xnnpack|trixie|xnnpack=0.0~git20241108.4ea82e5-2|xnnpack_0.0~git20241108.4ea82e5.orig.tar.xz|xnnpack-20241108"
  "pthreadpool|trixie|pthreadpool=0.0~git20240616.560c60d-1|pthreadpool_0.0~git20240616.560c60d.orig.tar.xz|pthreadpool-20240616"
)
mkdir -p "$SRC"
need_fetch=0
for s in "${SOURCES[@]}"; do
  IFS='|' read -r _ _ _ _ dir <<<"$s"
  [ -f "$SRC/$dir/.extracted" ] || need_fetch=1
done
if [ $need_fetch = 1 ]; then
  URI=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$URI" ] || URI=http://deb.debian.org/debian
  ST=$(mktemp -d)
  trap 'rm -rf "$ST"' EXIT
  mkdir -p "$ST/lists/partial" "$ST/dl"
  printf 'deb-src %s bookworm main\ndeb-src %s trixie main\n' "$URI" "$URI" >"$ST/sources.list"
  A=(-o "Dir::Etc::SourceList=$ST/sources.list" -o "Dir::Etc::SourceParts=-" -o "Dir::State::Lists=$ST/lists")
  log "reading Debian source lists (isolated apt state)"
  apt-get "${A[@]}" update -qq
  for s in "${SOURCES[@]}"; do
    IFS='|' read -r name _ pkgver tarball dir <<<"$s"
    [ -f "$SRC/$dir/.extracted" ] && continue
    log "fetching $tarball"
    # Trixie's .dsc/.debian.tar.xz answer 404 on this mirror; only the .orig tarball is used.
    (cd "$ST/dl" && apt-get "${A[@]}" source --download-only "$pkgver" >/dev/null 2>&1 || true)
    [ -s "$ST/dl/$tarball" ] || { echo "setup: could not download $tarball ($pkgver)" >&2; exit 1; }
    rm -rf "${SRC:?}/$dir" "$ST/x"
    mkdir -p "$ST/x"
    tar -xf "$ST/dl/$tarball" -C "$ST/x"
    # Most tarballs have one top-level folder; XNNPACK's has none.
    if [ "$(ls "$ST/x" | wc -l)" = 1 ] && [ -d "$ST/x/$(ls "$ST/x")" ]; then
      mv "$ST/x/$(ls "$ST/x")" "$SRC/$dir"
    else
      mv "$ST/x" "$SRC/$dir"
    fi
    touch "$SRC/$dir/.extracted"
  done
fi

# onnx 1.21.0 (opsets <= 26): no Debian suite has it, so its PyPI source distribution, which carries the
# C++ sources (onnx/defs, checker.cc, shape_inference). The download is kept in third_party/src/.downloads
# and checked against the SHA-256 PyPI publishes, so a re-run or a re-extraction reads no network.
ONNX_DIR=onnx-1.21.0
ONNX_SDIST=onnx-1.21.0.tar.gz
ONNX_SHA256=4d8b67d0aaec5864c87633188b91cc520877477ec0254eda122bef8be43cd764
if [ ! -f "$SRC/$ONNX_DIR/.extracted" ]; then
  DL="$SRC/.downloads"
  mkdir -p "$DL"
  if ! echo "$ONNX_SHA256  $DL/$ONNX_SDIST" | sha256sum -c --status 2>/dev/null; then
    log "fetching $ONNX_SDIST (PyPI source distribution)"
    PY=python3
    [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
    rm -f "$DL/$ONNX_SDIST"
    $PY -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
      -d "$DL" onnx==1.21.0 >/dev/null 2>&1 || true
    echo "$ONNX_SHA256  $DL/$ONNX_SDIST" | sha256sum -c --status ||
      { echo "setup: $ONNX_SDIST is missing or its SHA-256 differs (pip download onnx==1.21.0)" >&2; exit 1; }
  fi
  rm -rf "${SRC:?}/$ONNX_DIR" "$SRC/.x-$ONNX_DIR"
  mkdir -p "$SRC/.x-$ONNX_DIR"
  tar -xzf "$DL/$ONNX_SDIST" -C "$SRC/.x-$ONNX_DIR"
  mv "$SRC/.x-$ONNX_DIR/$ONNX_DIR" "$SRC/$ONNX_DIR"
  rm -rf "$SRC/.x-$ONNX_DIR"
  touch "$SRC/$ONNX_DIR/.extracted"
fi

# XNNPACK's microkernel lists for Bazel, generated from its CMake files (not committed).
XNN_LISTS="$ROOT/third_party/xnnpack/xnnpack_srcs.bzl"
if [ ! -s "$XNN_LISTS" ] || [ "$ROOT/third_party/xnnpack/gen_xnnpack_srcs.py" -nt "$XNN_LISTS" ]; then
  log "generating third_party/xnnpack/xnnpack_srcs.bzl"
  python3 "$ROOT/third_party/xnnpack/gen_xnnpack_srcs.py" "$SRC/xnnpack-20241108" "$XNN_LISTS"
fi

# ---- Bazel settings of this machine ----------------------------------------------------------------
# Bazel builds each action in a sandbox of symlinks to its inputs; on a virtual disk creating and
# deleting those trees took about half of a cold build (XNNPACK's 1,000 small compiles: 4 min 19 s on
# disk, 2 min 2 s in RAM). .bazelrc imports this file: the sandboxes go to /dev/shm when it is a
# writable tmpfs with room (a few MiB at a time), and stay in Bazel's output base otherwise.
MACHINE_RC="$ROOT/.bazelrc.machine"
machine_rc="# Written by tools/setup.sh for this machine (not committed)."
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 {print $4}')" -ge 262144 ]; then
  machine_rc="$machine_rc
build --sandbox_base=/dev/shm"
fi
if [ ! -f "$MACHINE_RC" ] || [ "$(cat "$MACHINE_RC")" != "$machine_rc" ]; then
  log "writing .bazelrc.machine"
  printf '%s\n' "$machine_rc" >"$MACHINE_RC"
fi

# ---- Python test tools ------------------------------------------------------------------------------
VENV="$ROOT/.venv"
REQ="$ROOT/tools/requirements-test.txt"
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQ" "$VENV/.requirements"; then
  log "creating Python environment .venv (onnx, onnxruntime, numpy, pytest, pytest-xdist)"
  PY=python3
  [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
  $PY -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$VENV/.requirements"
fi

# ---- Browser test tools -----------------------------------------------------------------------------
# --ignore-scripts: playwright-core must not fetch a browser of its own; tests use /usr/bin/chromium.
WEB="$ROOT/tests/web"
if [ ! -d "$WEB/node_modules/playwright-core" ] || ! cmp -s "$WEB/package-lock.json" "$WEB/node_modules/.setup-lock"; then
  command -v npm >/dev/null || { echo "setup: npm (Node.js 20 or newer) is needed for the browser tests" >&2; exit 1; }
  log "installing browser test tools in tests/web/node_modules (playwright-core)"
  (cd "$WEB" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$WEB/package-lock.json" "$WEB/node_modules/.setup-lock"
fi

log "ready"
