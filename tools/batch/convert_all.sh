#!/usr/bin/env bash
# Converts a catalogue of .pt2 models with the pt2onnx CLI, each model a stateless job with one JSON record
# (the CLI's --json output) as its result. Resumable: a model whose record says ok is not converted again.
#
#   tools/batch/convert_all.sh [-j JOBS] [--retry-failed] LIST OUTDIR [-- PT2ONNX_FLAGS...]
#   tools/batch/convert_all.sh --one INDEX LIST OUTDIR [-- PT2ONNX_FLAGS...]   # one model (a batch engine's job)
#
# LIST: a file with one .pt2 path per line (blank lines and # comments skipped), or a folder (every *.pt2
# under it). Model number N (from 0, in LIST order) has the id of its path (folder separators as "__",
# without .pt2) and writes
#   OUTDIR/models/<id>.onnx (+ .onnx.data)   the output, written atomically by pt2onnx
#   OUTDIR/records/<id>.json                 its record: {"input", "ok", "exitCode", "code", "message", ...}
#   OUTDIR/logs/<id>.log                     pt2onnx's progress output
# At the end OUTDIR/summary.json counts the records by outcome; the exit status is 0 when every model
# converted, 1 otherwise. With --one, the status is 0 once a record is written, except when pt2onnx crashed
# (no record of its own; a batch engine may retry it). PT2ONNX (default: pt2onnx on PATH) is the converter: the native CLI or
# `npx pt2onnx`. JOBS defaults to the number of CPUs.
set -euo pipefail

usage() { sed -n '4,5p' "$0" | sed 's/^# *//' >&2; exit 2; }
PT2ONNX=${PT2ONNX:-pt2onnx}
jobs=$(nproc 2>/dev/null || echo 2)
retry=0
one=""
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    --retry-failed) retry=1; shift ;;
    --one) one=$2; shift 2 ;;
    -h|--help) usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
list=$1 outdir=$2
shift 2
[ "${1:-}" = "--" ] && shift
flags=("$@")

# The models, one path a line, in a stable order.
models() {
  if [ -d "$list" ]; then
    (cd "$list" && find . -name '*.pt2' -type f | sed 's|^\./||' | LC_ALL=C sort | sed "s|^|$list/|")
  else
    grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$list"
  fi
}

id_of() {
  local rel=$1
  [ -d "$list" ] && rel=${rel#"$list"/}
  rel=${rel%.pt2}
  rel=${rel#/}
  printf '%s' "${rel//\//__}"
}

# Converts model number $1; its record is written last, atomically, so a killed job leaves none.
convert_one() {
  local index=$1 input id record tmp rc
  input=$(models | sed -n "$((index + 1))p")
  [ -n "$input" ] || { echo "convert_all: no model number $index in $list" >&2; return 2; }
  id=$(id_of "$input")
  record="$outdir/records/$id.json"
  if [ -s "$record" ] && { [ $retry = 0 ] || grep -q '"ok":true' "$record"; }; then
    return 0  # done before (resumed run)
  fi
  mkdir -p "$outdir/models" "$outdir/records" "$outdir/logs"
  tmp="$record.tmp.$$"
  rc=0
  "$PT2ONNX" "$input" -o "$outdir/models/$id.onnx" --json "${flags[@]}" >"$tmp" 2>"$outdir/logs/$id.log" || rc=$?
  if [ ! -s "$tmp" ]; then
    # No record: the converter crashed or was killed (out of memory...). Say so in the same format.
    # (Exit 2 with no record: the flags after -- were refused.)
    printf '{"input":"%s","ok":false,"exitCode":%d,"code":"%s","message":"pt2onnx printed no record; see logs/%s.log","unsupportedOps":[]}\n' \
      "$(printf '%s' "$input" | sed 's/["\\]/\\&/g')" "$rc" "$([ $rc = 2 ] && echo usage || echo crashed)" "$id" >"$tmp"
  fi
  mv -f "$tmp" "$record"
  printf '%-8s %s\n' "$([ $rc = 0 ] && echo ok || echo "exit $rc")" "$input" >&2
  # A recorded outcome (converted, or refused: exit 2..5) is final; a crash is worth a retry.
  ! grep -q '"code":"crashed"' "$record"
}

if [ -n "$one" ]; then
  convert_one "$one"
  exit $?
fi

count=$(models | wc -l)
[ "$count" -gt 0 ] || { echo "convert_all: no .pt2 models in $list" >&2; exit 2; }
export -f convert_one models id_of
export list outdir retry PT2ONNX
FLAGS_Q=$(printf '%q ' "${flags[@]+"${flags[@]}"}")
export FLAGS_Q
seq 0 $((count - 1)) | xargs -P "$jobs" -I{} bash -c 'eval "flags=($FLAGS_Q)"; convert_one "$1"' _ {} || true

# The summary: every record in OUTDIR, by outcome (use one OUTDIR per LIST).
python3 - "$outdir" "$count" <<'PY' || exit 1
import json, pathlib, sys
outdir, expected = pathlib.Path(sys.argv[1]), int(sys.argv[2])
records = [json.loads(p.read_text()) for p in sorted((outdir / "records").glob("*.json"))]
by_code = {}
for r in records:
    code = "ok" if r.get("ok") else r.get("code", "unknown")
    by_code[code] = by_code.get(code, 0) + 1
summary = {"models": expected, "records": len(records), "ok": by_code.get("ok", 0),
           "failed": len(records) - by_code.get("ok", 0), "byCode": dict(sorted(by_code.items())),
           "failures": [{"input": r["input"], "code": r.get("code"), "exitCode": r.get("exitCode")}
                        for r in records if not r.get("ok")]}
(outdir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
print(json.dumps({k: summary[k] for k in ("models", "ok", "failed", "byCode")}))
sys.exit(0 if summary["ok"] == expected else 1)
PY
