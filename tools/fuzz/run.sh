#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (clang 14 + ASan + UBSan).
#   tools/fuzz/run.sh [--seconds N] [--runs R --seed S] [--jobs J] [--parallel P] [--workdir DIR] [--min-runs M] [target ...]
# Targets: zip_reader program_json unpickler pipeline (default: all), N seconds
# each (default 60). Corpora grow in DIR/corpus/<target> (default
# /tmp/pt2onnx-fuzz), seeded from the fixtures and tests/fuzz/corpus; a crash
# or hang stops the target and leaves DIR/artifacts/<target>/crash-* (or
# timeout-*, oom-*): copy it into tests/fuzz/regressions/<target>/, where
# //tests/fuzz:<target>_replay replays it, and fix the bug.
# --runs and --seed make a run reproducible (the CI smoke: a fixed seed, at
# most R inputs per target, a fresh workdir); --seconds still caps it.
# --jobs runs J fuzzing processes per target; --parallel runs P targets at a
# time (default 1; the CI smoke runs 2, one per core).
# Prints the executions of each target and the total; a target that executed
# fewer than M inputs (default 100) fails the run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

seconds=60
runs=-1
seed=0
jobs=1
parallel=1
min_runs=100
workdir=/tmp/pt2onnx-fuzz
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --min-runs) min_runs=$2; shift 2 ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(zip_reader program_json unpickler pipeline)

labels=()
for t in "${targets[@]}"; do labels+=("//tests/fuzz:${t}_fuzzer"); done
bazel build --config=fuzz --color=no --curses=no "${labels[@]}" >&2
BIN=$(bazel info --config=fuzz bazel-bin 2>/dev/null)
mkdir -p "$workdir/bin"
for t in "${targets[@]}"; do cp -f "$BIN/tests/fuzz/${t}_fuzzer" "$workdir/bin/"; done

seeds_for() {
  case "$1" in
    zip_reader|pipeline) find tests/fixtures -name model.pt2 -size -400k ;;
    program_json) echo tests/fuzz/corpus/program_json ;;
    unpickler) echo tests/fuzz/corpus/unpickler ;;
  esac
}

# Stop at the first report, except RapidJSON's known overflow (see .bazelrc).
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$ROOT/tests/fuzz/ubsan_suppressions.txt"

# fuzz TARGET: one target's run in its own folder DIR/run/TARGET (libFuzzer
# writes its -jobs logs to the working directory), its exit status in
# DIR/run/TARGET.rc; the report below reads both.
fuzz() {
  local t=$1
  local corpus="$workdir/corpus/$t" artifacts="$workdir/artifacts/$t" rundir="$workdir/run/$t"
  rm -rf "$rundir"
  mkdir -p "$corpus" "$artifacts" "$rundir"
  if [ -z "$(ls -A "$corpus")" ]; then
    for s in $(seeds_for "$t"); do
      if [ -d "$s" ]; then cp -f "$s"/* "$corpus/"; else cp -f "$s" "$corpus/$(echo "$s" | tr / _)"; fi
    done
  fi
  local extra=()
  # pipeline: its structure-aware mutator edits the program JSON; the
  # dictionary serves its byte-level edits of the JSON text.
  [ "$t" = program_json ] || [ "$t" = pipeline ] && extra+=(-dict="$ROOT/tests/fuzz/program_json.dict")
  [ "$t" = pipeline ] && extra+=(-max_len=1048576)
  local rc=0
  (cd "$rundir" && "$workdir/bin/${t}_fuzzer" "$corpus" -max_total_time="$seconds" -runs="$runs" -seed="$seed" -timeout=20 -rss_limit_mb=3072 \
    -jobs="$jobs" -workers="$jobs" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "${extra[@]}" >"$workdir/$t.log" 2>&1) || rc=$?
  echo "$rc" >"$workdir/run/$t.rc"
}

# Up to --parallel targets at a time (each fuzzer process is single-threaded).
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz "$t" &
  running=$((running + 1))
done
wait

total=0
status=0
for t in "${targets[@]}"; do
  artifacts="$workdir/artifacts/$t"
  log="$workdir/$t.log"
  rc=$(cat "$workdir/run/$t.rc" 2>/dev/null || echo "no exit status")
  # (executed, not runs: runs is the --runs option, the same for every target)
  # With -jobs, each job's stats are in its fuzz-<n>.log and the main log repeats them.
  stats=("$log")
  compgen -G "$workdir/run/$t/fuzz-*.log" >/dev/null && stats=("$workdir/run/$t"/fuzz-*.log)
  executed=$(grep -h 'stat::number_of_executed_units' "${stats[@]}" 2>/dev/null | awk '{s += $2} END {print s + 0}')
  total=$((total + executed))
  echo "$t: $executed executions in ${seconds}s (exit $rc; log $log)"
  if [ "$rc" != 0 ] || [ -n "$(ls -A "$artifacts")" ]; then
    echo "$t: FINDING in $artifacts" >&2
    # The report itself, so a CI log that keeps no files still says what broke.
    grep -h -A 40 -m 1 -E '^==[0-9]+==|runtime error:|ERROR: libFuzzer' "$log" "$workdir/run/$t"/fuzz-*.log 2>/dev/null |
      head -n 60 >&2 || true
    status=1
  elif [ "$executed" -lt "$min_runs" ]; then
    # A target that ran (almost) nothing checked nothing: no stats line, a
    # fuzzer that exits at once, an empty corpus.
    echo "$t: only $executed executions (at least $min_runs expected); see $log" >&2
    status=1
  fi
done
echo "total: $total executions"
exit $status
