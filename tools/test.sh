#!/usr/bin/env bash
# The one test command (README "Quick start"; CI runs it via .ci/run):
#   1. set-up (idempotent): Debian packages, source tarballs, Python checkers
#   2. the native build in the optimized mode `bazel run` builds for users
#      (--config=opt, so a quick start's objects serve here): every target but
#      the test suites, and the CLI, onnxrun, refrun and the broken-translation
#      CLI of that build copied to out/bin
#   3. the core, engine, ops, export and runtime suites compiled to WebAssembly
#      (from the package's own -O3 objects: tools/toolchain/wasm/node_test.bzl),
#      run under node
#   4. PyTorch's OpInfo samples (tests/e2e/test_opinfo.py), each outcome
#      asserted against its table; then end-to-end (pytest tests/e2e): every
#      fixture converted by the optimized CLI at every opset, checked by onnx's
#      checker and run in ONNX Runtime, the executor and the reference
#      interpreter against torch's recorded outputs
#   5. the WebAssembly package: its ES-module API under node, and the page in
#      headless Chromium, both checked byte for byte against the CLI; the
#      hostile inputs through the wasm module (tests/web/hostile.test.mjs)
#   6. the clang 14 ASan + UBSan build, in one Bazel run: the fuzz targets and,
#      with step 7, its CLIs and googletest suites; then a fuzz smoke: each
#      libFuzzer target for FUZZ_SECONDS (15) seconds, seed 1, then every hostile input of
#      the suite (13,000+ dim-sweep variants, hostile archives, regressions)
#      once through that sanitized pipeline (tools/fuzz/replay_hostile.sh)
#   7. sanitizers: every googletest suite (bazel test //tests/...) and the e2e
#      suite, built with --config=asan_ubsan (clang 14's ASan + UBSan over all
#      code, the fuzz build's objects); any sanitizer report fails the run. The
#      googletest suites run natively only here: a third build of them
#      (optimized) would add minutes to CI and check less. The e2e tests
#      marked opt_only (tests/e2e/conftest.py: the opset sweep, the dim sweep,
#      the op-type listing) are left to step 4: their sanitized counterpart
#      already ran (the default opset here, the dim sweep in step 6). XNNPACK
#      and pthreadpool are compiled without instrumentation, the test sources
#      at -O0 without coverage hooks (.bazelrc)
# Every step is timed and its tests counted (tools/test_report.py): a summary
# of passed / failed / skipped tests and wall time per step closes the run,
# pass or fail, and a skip not listed in tests/expected_skips.json (or a
# listed one that stopped skipping) fails its step.
# Options: --no-wasm skips steps 3 and 5, --no-fuzz step 6, --no-sanitizers
# step 7 (quick local runs; the googletest suites then run optimized after
# step 2). --sanitizers runs only step 7, with each config in
# SANITIZER_CONFIGS (default asan_ubsan; "asan ubsan" = gcc's two apart, two
# full builds; "sanitize" = gcc's two over pt2onnx's code only).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

BAZEL_FLAGS=(--color=no --curses=no)
# The native build users run (.bazelrc: `bazel run` builds with --config=opt).
NATIVE=--config=opt

# Step accounting: step NAME "what it does" closes the previous step (its wall
# time, ok: set -e got past it) and opens the next; the EXIT trap closes the
# last one (FAILED when the run stops on an error) and prints the summary.
# NAME keys tests/expected_skips.json. Stdlib python3 only: .venv comes later.
REPORTS=$(mktemp -d)
SUMMARY="$REPORTS/summary.jsonl"
STEP=""
STEP_START=0
fuzzdir=""
report() { python3 tools/test_report.py "$@"; }
finish_step() {
  [ -n "$STEP" ] || return 0
  report timed "$SUMMARY" "$STEP" "$1" "$(awk -v a="$STEP_START" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')"
  STEP=""
}
step() {
  finish_step ok
  STEP=$1
  STEP_START=$(date +%s.%N)
  printf '\n=== %s: %s\n' "$1" "$2"
}
on_exit() {
  local rc=$?
  finish_step "$([ "$rc" = 0 ] && echo ok || echo FAILED)"
  report print "$SUMMARY"
  rm -rf "$REPORTS"
  [ -z "$fuzzdir" ] || rm -rf "$fuzzdir"
  exit "$rc"
}
trap on_exit EXIT

# The googletest cases of the test targets TARGETS run under the bazel flags
# FLAGS, counted from their test.log: count_gtest STEP "FLAGS" TARGETS...
count_gtest() {
  local name=$1 flags=$2
  shift 2
  local logs
  # shellcheck disable=SC2086
  logs=$(bazel info "${BAZEL_FLAGS[@]}" $flags bazel-testlogs)
  report gtest "$SUMMARY" "$name" "$logs" "$@"
}

# The test targets `bazel test PATTERN` runs (manual ones excluded, as bazel test does).
test_targets() {
  bazel query "${BAZEL_FLAGS[@]}" "tests($1) except attr(tags, 'manual', $1)"
}

# pytest over the e2e suite, two workers when pytest-xdist is there (setup installs it);
# the slowest tests are listed, to see where CI's time goes. e2e NAME ARGS...: counted as step NAME.
e2e() {
  local name=$1 workers=() rc=0
  shift
  .venv/bin/python -c "import xdist" 2>/dev/null && workers=(-n 2)
  .venv/bin/python -m pytest -q -p no:cacheprovider --durations=20 --junitxml="$REPORTS/junit.xml" \
    "${workers[@]}" "$@" || rc=$?
  report junit "$SUMMARY" "$name" "$REPORTS/junit.xml" || rc=1
  return "$rc"
}

# The CLIs the sanitized e2e step runs.
SANITIZED_BINARIES=(//native:pt2onnx //native:onnxrun //native:refrun //tests/verify:pt2onnx_broken)

# sanitized CONFIG: every googletest suite under --config=CONFIG, then the
# CLI, onnxrun, refrun and the broken-translation CLI of that build over the
# whole e2e suite. Reports go to files (a test that expects a non-zero exit
# would otherwise hide one); any report fails the step. Fuzz regressions are
# replayed by the googletest step (//tests/fuzz:*_replay).
sanitized() {
  local cfg=$1
  local suppress="$ROOT/tests/fuzz/ubsan_suppressions.txt"
  step "$cfg googletest" "googletest suites (bazel test --config=$cfg //tests/...)"
  local rc=0
  bazel build "${BAZEL_FLAGS[@]}" --config="$cfg" "${SANITIZED_BINARIES[@]}"
  bazel test "${BAZEL_FLAGS[@]}" --config="$cfg" --build_tests_only \
    --test_env=ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    --test_env=UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$suppress" \
    //tests/... || rc=$?
  # shellcheck disable=SC2046
  count_gtest "$cfg googletest" "--config=$cfg" $(test_targets //tests/...) || rc=1
  [ "$rc" = 0 ]
  local bin
  bin=$(bazel info "${BAZEL_FLAGS[@]}" --config="$cfg" bazel-bin)
  mkdir -p "out/$cfg"
  cp -f "$bin/native/pt2onnx" "$bin/native/onnxrun" "$bin/native/refrun" \
        "$bin/tests/verify/pt2onnx_broken" "out/$cfg/"
  local reports
  reports=$(mktemp -d)
  step "$cfg e2e" "end-to-end under the sanitizers"
  ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan" \
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan:suppressions=$suppress" \
    PT2ONNX_BIN="$ROOT/out/$cfg/pt2onnx" ONNXRUN_BIN="$ROOT/out/$cfg/onnxrun" \
    REFRUN_BIN="$ROOT/out/$cfg/refrun" PT2ONNX_BROKEN_BIN="$ROOT/out/$cfg/pt2onnx_broken" \
    e2e "$cfg e2e" tests/e2e --ignore=tests/e2e/test_opinfo.py -m "not opt_only"
  if [ -n "$(ls -A "$reports")" ]; then
    echo "$cfg: sanitizer reports during the e2e suite:" >&2
    head -n 40 "$reports"/* >&2
    exit 1
  fi
  rm -rf "$reports"
}

wasm=1
fuzz=1
sanitizers=1
for arg in "$@"; do
  case "$arg" in
    --no-wasm) wasm=0 ;;
    --no-fuzz) fuzz=0 ;;
    --no-sanitizers) sanitizers=0 ;;
    --sanitizers)
      bash tools/setup.sh
      for cfg in ${SANITIZER_CONFIGS:-asan_ubsan}; do sanitized "$cfg"; done
      exit 0 ;;
    *) echo "usage: tools/test.sh [--no-wasm] [--no-fuzz] [--no-sanitizers] | --sanitizers" >&2; exit 2 ;;
  esac
done

step setup "Debian packages, source tarballs, Python checkers (tools/setup.sh)"
bash tools/setup.sh

step layering "no lower layer uses a higher one (tests/layering, bazel query); the manual against the tree (tests/docs)"
rc=0
.venv/bin/python -m pytest -q -p no:cacheprovider --junitxml="$REPORTS/junit.xml" tests/layering tests/docs || rc=$?
report junit "$SUMMARY" layering "$REPORTS/junit.xml" || rc=1
[ "$rc" = 0 ]
# The same rules on the build graph (tests/layering/check_layers.py): each
# folder depends on nothing of its own layer or above. A failing query stops
# the run, with Bazel's message on stderr (never read as "no bad dependency").
for rule in "//core/...:runtime reference verify translate ops passes export native wasm" \
            "//runtime/...:reference verify translate ops passes export native wasm" \
            "//reference/...:runtime verify translate ops passes export native wasm" \
            "//verify/...:translate ops passes export native wasm" \
            "//translate/...:ops passes export native wasm" \
            "//ops/... + //passes/...:export native wasm" \
            "//export/...:native wasm" "//native/...:wasm" "//wasm/...:native"; do
  from=${rule%%:*}; above=""
  for pkg in ${rule#*:}; do above="$above + //$pkg/..."; done
  if ! bad=$(bazel query "${BAZEL_FLAGS[@]}" "deps($from) intersect (${above# + })"); then
    echo "layering: bazel query over $from failed" >&2; exit 1
  fi
  if [ -n "$bad" ]; then echo "layering: $from depends on $bad" >&2; exit 1; fi
done

# Copy the CLI out of bazel-bin at once: a later --config=wasm build repoints
# the bazel-bin symlink.
# The binaries and packages by name, not //...: a cc_library named on the command line also builds
# its shared library, from a second, position-independent compile of every source.
step build "the optimized build (bazel build $NATIVE of every cc_binary, the wasm package, the page); the CLI, onnxrun, refrun and the broken-translation CLI copied to out/bin"
opt_query='kind(cc_binary, //...) except attr(tags, manual, //...)'
[ "$wasm" = 0 ] || opt_query="$opt_query + //wasm:package + //wasm:npm_pack + //web:site"
opt_targets=$(bazel query "${BAZEL_FLAGS[@]}" "$opt_query")
# shellcheck disable=SC2086
bazel build "${BAZEL_FLAGS[@]}" "$NATIVE" $opt_targets
mkdir -p out/bin
BIN=$(bazel info "${BAZEL_FLAGS[@]}" "$NATIVE" bazel-bin)
cp -f "$BIN/native/pt2onnx" out/bin/pt2onnx
cp -f "$BIN/native/onnxrun" out/bin/onnxrun
cp -f "$BIN/native/refrun" out/bin/refrun
cp -f "$BIN/tests/verify/pt2onnx_broken" out/bin/pt2onnx_broken

if [ "$sanitizers" = 0 ]; then
  step googletest "the C++ tests, optimized (bazel test $NATIVE //...)"
  rc=0
  bazel test "${BAZEL_FLAGS[@]}" "$NATIVE" --build_tests_only //... || rc=$?
  # shellcheck disable=SC2046
  count_gtest googletest "$NATIVE" $(test_targets //...) || rc=1
  [ "$rc" = 0 ]
fi

if [ "$wasm" = 1 ]; then
  step "wasm package" "WebAssembly package, page and npm pack"
  bazel build "${BAZEL_FLAGS[@]}" "$NATIVE" //wasm:package //wasm:npm_pack //web:site
  rm -rf out/wasm out/web
  mkdir -p out/wasm out/web
  cp -rL "$BIN/wasm/package" out/wasm/package
  cp -L "$BIN/wasm/pt2onnx.tgz" out/wasm/pt2onnx.tgz
  cp -rL "$BIN/web/site" out/web/site
fi

if [ "$wasm" = 1 ]; then
  # NAME_wasm (tools/toolchain/wasm/node_test.bzl): each cc_test of these
  # suites built through the package's transition, so from the objects the
  # package step just compiled; only the tests themselves compile and link.
  # (bazel test --config=wasm //tests/ops/... still runs them the old way.)
  step "wasm googletest" "core, engine, ops, export and runtime tests compiled to WebAssembly, under node"
  wasm_tests=$(bazel query "${BAZEL_FLAGS[@]}" 'attr(tags, wasm_node_test, //tests/...)')
  [ -n "$wasm_tests" ] || { echo "no wasm_node_test targets found" >&2; exit 1; }
  rc=0
  # shellcheck disable=SC2086
  bazel test "${BAZEL_FLAGS[@]}" "$NATIVE" $wasm_tests || rc=$?
  # shellcheck disable=SC2086
  count_gtest "wasm googletest" "$NATIVE" $wasm_tests || rc=1
  [ "$rc" = 0 ]
fi

# PyTorch's OpInfo samples, each with its outcome asserted against
# tests/fixtures/opinfo/expected_outcomes.json, with the optimized binaries (the
# sanitized e2e step leaves them out: 1,800 samples, four engines each).
step opinfo "PyTorch's OpInfo samples: convert, ONNX Runtime, executor, reference interpreter (tests/e2e/test_opinfo.py)"
PT2ONNX_BIN="$ROOT/out/bin/pt2onnx" ONNXRUN_BIN="$ROOT/out/bin/onnxrun" REFRUN_BIN="$ROOT/out/bin/refrun" \
  e2e opinfo tests/e2e/test_opinfo.py
.venv/bin/python tools/update_opinfo_outcomes.py --summary

step e2e "fixtures through the optimized CLI at every opset: onnx checker, ONNX Runtime, executor, reference"
PT2ONNX_BIN="$ROOT/out/bin/pt2onnx" ONNXRUN_BIN="$ROOT/out/bin/onnxrun" REFRUN_BIN="$ROOT/out/bin/refrun" \
  PT2ONNX_BROKEN_BIN="$ROOT/out/bin/pt2onnx_broken" e2e e2e tests/e2e --ignore=tests/e2e/test_opinfo.py

if [ "$wasm" = 1 ]; then
  step node "WebAssembly API under node, and the page in headless Chromium (node --test)"
  rc=0
  # Two test files at a time (node's default is one less than the cores: one here); each
  # starts its own Chromium and server (port 0) and writes only under its own temporaries.
  # The longest file (page.test.mjs: every real model through the page, about 2 minutes)
  # first, so the other files share the second core while it runs instead of after it.
  node_files=(tests/web/page.test.mjs)
  for f in tests/web/*.test.mjs; do [ "$f" = tests/web/page.test.mjs ] || node_files+=("$f"); done
  node --test --test-concurrency=2 --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$REPORTS/node.tap" "${node_files[@]}" || rc=$?
  report tap "$SUMMARY" node "$REPORTS/node.tap" || rc=1
  [ "$rc" = 0 ]
  step "wasm fixtures" "every fixture converted and run in the wasm executor against torch's outputs"
  node tests/web/run-all-fixtures.mjs
fi

# Last: the fuzz targets and the sanitized suites build with clang (a
# different toolchain), in one Bazel build: the fuzz targets, and with the
# sanitizers the CLIs and every googletest suite (--config=fuzz only adds the
# fuzz targets' libFuzzer mains, so step 7 finds all of it built). One build
# keeps both cores busy where three would each end on a lone compile or link.
if [ "$fuzz" = 1 ]; then
  step "sanitized build" "clang 14 ASan + UBSan (bazel build --config=fuzz): the fuzz targets$([ "$sanitizers" = 1 ] && echo ", the CLIs and the googletest suites")"
  sanitized_targets=(//tests/fuzz:zip_reader_fuzzer //tests/fuzz:program_json_fuzzer //tests/fuzz:unpickler_fuzzer
                     //tests/fuzz:pipeline_fuzzer)
  if [ "$sanitizers" = 1 ]; then
    # shellcheck disable=SC2207
    sanitized_targets+=("${SANITIZED_BINARIES[@]}" $(test_targets //tests/...))
  fi
  bazel build "${BAZEL_FLAGS[@]}" --config=fuzz "${sanitized_targets[@]}"
  # Reproducible: a fixed seed and a fresh corpus seeded from the fixtures
  # (long runs with random seeds and a growing corpus: tools/fuzz/run.sh).
  fuzzdir=$(mktemp -d)
  step fuzz "each libFuzzer target for ${FUZZ_SECONDS:-15} s, seed 1, two at a time (tools/fuzz/run.sh)"
  tools/fuzz/run.sh --seconds "${FUZZ_SECONDS:-15}" --seed 1 --parallel 2 --workdir "$fuzzdir"
  step "hostile replay" "hostile inputs through the sanitized pipeline (tools/fuzz/replay_hostile.sh)"
  tools/fuzz/replay_hostile.sh --workdir "$fuzzdir"
fi

if [ "$sanitizers" = 1 ]; then
  sanitized asan_ubsan
fi
