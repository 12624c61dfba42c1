// Compares a verify() result's report with the CLI's --verify report:
// the same inputs, values, dtypes, verdicts and first diverging node, and
// differences that agree within what the two builds' executors explain.
import assert from "node:assert/strict";

// The report's verification section: the inputs paragraph (source and one
// line per input: the same values must have been chosen) and the table rows.
export function verificationSection(report) {
  const start = report.indexOf("## Verification results");
  const end = report.indexOf("## Profiling result");
  assert.ok(start >= 0 && end > start, "no verification section in the report");
  const text = report.slice(start, end);
  const inputs = text.slice(0, text.indexOf("Histogram bins"));
  const rows = text.split("\n").filter((l) => l.startsWith("| `")).map((l) => {
    const [name, kind, abs, rel, absHist, relHist, expected, actual, status] = l.split(" | ").map((c) => c.replace(/^\| /, ""));
    const counts = (h) => h.split("` ")[1].split("/").map(Number);
    return { name, kind, abs: Number(abs), rel: Number(rel), absCount: counts(absHist).reduce((a, b) => a + b, 0),
      relCount: counts(relHist).reduce((a, b) => a + b, 0), expected, actual, status: status.replace(/ \|$/, "") };
  });
  const first = text.slice(text.indexOf("### First diverging node"));
  return { inputs, rows, first };
}

// Tolerance between the two builds' differences: the inputs, the reference
// interpreter's code and the comparison are the same, but the executor's
// XNNPACK kernels differ between x86 and wasm SIMD (summation order), so
// diffs near float32 rounding (1e-7) are not bit-identical; relative diffs
// of values near zero (|expected| + 1e-7 in the denominator) vary more.
const DIFF_TOLERANCE = 1e-5;
const REL_DIFF_TOLERANCE = 1e-2;  // a tenth of torch's threshold (0.1)

export function assertSameAsCli(result, cli) {
  assert.equal(result.exitCode, cli.status, cli.stderr);
  const mine = verificationSection(result.report);
  const theirs = verificationSection(cli.report);
  assert.equal(mine.inputs, theirs.inputs);
  assert.equal(mine.first, theirs.first);
  assert.equal(mine.rows.length, theirs.rows.length);
  mine.rows.forEach((row, i) => {
    const other = theirs.rows[i];
    for (const key of ["name", "kind", "absCount", "relCount", "expected", "actual", "status"]) {
      assert.equal(row[key], other[key], `${row.name}: ${key}`);
    }
    assert.ok(Math.abs(row.abs - other.abs) <= DIFF_TOLERANCE, `${row.name}: max_abs_diff ${row.abs} vs ${other.abs}`);
    assert.ok(Math.abs(row.rel - other.rel) <= REL_DIFF_TOLERANCE,
      `${row.name}: max_rel_diff ${row.rel} vs ${other.rel}`);
  });
  if (cli.absJson !== null) {
    // Model Explorer node data: the same keys (ONNX nodes) in the same order.
    const keys = (json) => Object.keys(Object.values(JSON.parse(json))[0].results);
    assert.deepEqual(keys(result.nodeData.max_abs_diff), keys(cli.absJson));
    assert.deepEqual(keys(result.nodeData.max_rel_diff), keys(cli.relJson));
  }
}

