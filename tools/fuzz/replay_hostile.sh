#!/usr/bin/env bash
# Every hostile input of the test suite, once, through the pipeline fuzz target
# built by tools/fuzz/run.sh (clang 14, ASan + UBSan over all code): the
# 13,195 dim/size-sweep variants of tests/e2e/test_dim_sweep.py, the e2e
# hostile archives and the issue's named edits (tests/web/make_hostile_cases.py,
# every variant) and the fuzz regression files. A sanitizer report stops the
# batch and is printed with the input that caused it.
#   tools/fuzz/replay_hostile.sh [--workdir DIR]     (after tools/fuzz/run.sh)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
workdir=/tmp/pt2onnx-fuzz
[ "${1:-}" = --workdir ] && workdir=$2
fuzzer="$workdir/bin/pipeline_fuzzer"
[ -x "$fuzzer" ] || { echo "replay_hostile: $fuzzer missing; run tools/fuzz/run.sh pipeline first" >&2; exit 2; }

cases=$(mktemp -d)
logs=$(mktemp -d)
trap 'rm -rf "$cases" "$logs"' EXIT
.venv/bin/python tests/web/make_hostile_cases.py "$cases" 1 >"$cases/list.json"
find "$cases" -name '*.pt2' >"$logs/inputs"
find tests/fuzz/regressions/pipeline tests/fuzz/regressions/zip_reader -type f ! -name README >>"$logs/inputs"

export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$ROOT/tests/fuzz/ubsan_suppressions.txt"
export ASAN_OPTIONS="detect_leaks=1"
total=$(wc -l <"$logs/inputs")
# A floor (13,426 sweep variants alone when it was set): a replay that found
# fewer inputs (a sweep or case writer that lost cases) checked less than it says.
min_inputs=13400
if [ "$total" -lt "$min_inputs" ]; then
  echo "replay_hostile: only $total hostile inputs (at least $min_inputs expected)" >&2
  exit 1
fi
# libFuzzer runs each file argument once; 400 per process. Each batch's log is
# kept: libFuzzer prints "Executed FILE" for every input it ran.
mkdir "$logs/batches"
set +e
xargs -P "$(nproc)" -n 400 -a "$logs/inputs" sh -c \
  'f=$1; shift; log=$(mktemp -p "$0/batches"); "$f" -rss_limit_mb=3072 -timeout=60 "$@" >"$log" 2>&1 || echo "$log" >>"$0/failed"' \
  "$logs" "$fuzzer"
set -e
if [ -s "$logs/failed" ]; then
  while read -r log; do
    grep -B1 -m1 -A14 'runtime error\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|deadly signal' "$log" | head -20
  done <"$logs/failed"
  echo "replay_hostile: sanitizer findings in $(wc -l <"$logs/failed") batch(es) of $total inputs" >&2
  exit 1
fi
executed=$(cat "$logs"/batches/* | grep -c '^Executed ' || true)
if [ "$executed" -ne "$total" ]; then
  echo "replay_hostile: libFuzzer executed $executed of $total inputs" >&2
  exit 1
fi
echo "replay_hostile: $total hostile inputs, no sanitizer finding"
