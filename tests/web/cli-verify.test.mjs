// The node CLI's --verify, --verify-intermediates, --inputs, --verify-node-data
// and --report against the native CLI: the same exit codes, the same model
// bytes, the same report verification section and node data keys; a
// hand-made mismatch (inputs scaled past torch's absolute threshold) fails
// with exit 6 at the same first diverging node; bad flags are refused.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { readNpz, writeNpz } from "./npz.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";
import { assertSameAsCli, verificationSection } from "./verify-compare.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "cli.mjs"), "the npm package (bazel build //wasm:package)");

const dir = mkdtempSync(join(tmpdir(), "pt2onnx-cli-verify-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// Runs both CLIs with `flags`, each writing into its own folder (OUT in a flag stands for it).
function both(flags) {
  const runs = {};
  for (const [which, command, prefix] of [["native", CLI, []], ["node", process.execPath, [join(PACKAGE, "cli.mjs")]]]) {
    const out = join(dir, which);
    rmSync(out, { recursive: true, force: true });
    spawnSync("mkdir", ["-p", out]);
    const run = spawnSync(command, [...prefix, ...flags.map((f) => f.replaceAll("OUT", out))], { encoding: "utf8" });
    const read = (name, encoding = "utf8") => (existsSync(join(out, name)) ? readFileSync(join(out, name), encoding) : null);
    runs[which] = { status: run.status, stderr: run.stderr, read };
  }
  return runs;
}

const cnn = join(FIXTURES, "cnn", "model.pt2");

test("node CLI --verify-intermediates --verify-node-data --report: the native CLI's numbers, files and exit code", () => {
  const { native, node } = both([cnn, "-o", "OUT/m.onnx", "--verify-node-data=OUT/nd", "--report=OUT/r.md"]);
  assert.equal(native.status, 0, native.stderr);
  assert.equal(node.status, 0, node.stderr);
  assert.ok(node.read("m.onnx", null).equals(native.read("m.onnx", null)), "the model bytes differ");
  assertSameAsCli({ exitCode: node.status, report: node.read("r.md"),
    nodeData: { max_abs_diff: node.read("nd_max_abs_diff.json"), max_rel_diff: node.read("nd_max_rel_diff.json") } },
  { status: native.status, stderr: native.stderr, report: native.read("r.md"), absJson: native.read("nd_max_abs_diff.json"),
    relJson: native.read("nd_max_rel_diff.json") });
  assert.match(node.stderr, /verify: inputs the archive's/);
  assert.match(node.stderr,
    /\n {9}output linear +max_abs_diff \S+ +max_rel_diff \S+ +ok +float32: abs < 0\.005, rel < 0\.1 where abs >= 1e-05 \(torch\.onnx's\)\n/);
  assert.match(node.stderr, /verify: passed: 1 outputs within their dtype's thresholds \(float32: abs < 0\.005/);
  assert.match(node.stderr, /wrote report .*r\.md/);
});

test("node CLI --verify with default report path and seeded inputs, quiet", () => {
  const { native, node } = both([cnn, "-o", "OUT/m.onnx", "-q", "--verify", "--inputs", "seeded", "--report"]);
  assert.equal(node.status, 0, node.stderr);
  assert.equal(node.stderr, "");
  assertSameAsCli({ exitCode: node.status, report: node.read("m.report.md") },
    { status: native.status, stderr: native.stderr, report: native.read("m.report.md"), absJson: null });
});

test("node CLI: a hand-made mismatch fails with exit 6 at the native CLI's first diverging node", () => {
  // cnn's inputs times 1e5: the outputs reach 1e4..1e5, where float32 rounding alone passes torch's
  // absolute threshold (5e-3); the model is still written, the report says why.
  const inputs = readNpz(readFileSync(join(FIXTURES, "cnn", "inputs.npz")));
  for (const a of inputs) a.data = a.data.map((v) => v * 1e5);
  writeFileSync(join(dir, "scaled.npz"), writeNpz(inputs));
  const { native, node } = both([cnn, "-o", "OUT/m.onnx", "--verify", "--inputs", join(dir, "scaled.npz"),
    "--report=OUT/r.md"]);
  assert.equal(native.status, 6, native.stderr);
  assert.equal(node.status, 6, node.stderr);
  const first = /first diverging node: '([^']+)'/;
  assert.equal(node.stderr.match(first)?.[1], native.stderr.match(first)?.[1]);
  assert.equal(node.stderr.match(first)?.[1], "batch_norm");
  assert.match(node.stderr, /pt2onnx: error: verification failed: output 'linear'/);
  assert.match(node.stderr, /output linear .* FAIL /);
  assert.ok(node.read("m.onnx", null) !== null, "the model is written");
  const [mine, theirs] = [verificationSection(node.read("r.md")), verificationSection(native.read("r.md"))];
  assert.deepEqual(mine.rows.map((r) => [r.name, r.status]), theirs.rows.map((r) => [r.name, r.status]));
  assert.equal(mine.inputs, theirs.inputs);
});

test("node CLI --verify --report on a failed conversion: exit 5 and the report of the failure", () => {
  const { native, node } = both([join(FIXTURES, "unsupported_op", "model.pt2"), "-o", "OUT/m.onnx", "-q", "--verify",
    "--report=OUT/r.md"]);
  assert.equal(native.status, 5);
  assert.equal(node.status, 5, node.stderr);
  assert.equal(node.read("m.onnx"), null);
  const errors = (report) => report.slice(report.indexOf("## Error messages"), report.indexOf("## Exported program"));
  assert.match(node.read("r.md"), /❌ Translate to ONNX/);
  assert.equal(errors(node.read("r.md")), errors(native.read("r.md")));
});

test("node CLI: inputs that do not fit and bad verification flags exit as the native CLI", () => {
  const empty = join(dir, "empty.npz");
  writeFileSync(empty, writeNpz([{ name: "y", dtype: "float32", dims: [1], data: new Float32Array(1) }]));
  for (const flags of [
    ["--verify", "--inputs", empty],                       // names no input of the program: 4
    ["--verify", "--inputs", join(dir, "missing.npz")],    // cannot read it: 3
    ["--inputs", empty],                                    // without --verify: 2
    ["--verify", "--inputs"],                               // no value: 2
  ]) {
    const { native, node } = both([cnn, "-o", "OUT/m.onnx", "-q", ...flags]);
    assert.equal(node.status, native.status, `${flags.join(" ")}: ${node.stderr}`);
    assert.notEqual(node.status, 0, flags.join(" "));
    assert.equal(node.stderr.split(":")[0], "pt2onnx");
  }
  const node = (flags) => spawnSync(process.execPath, [join(PACKAGE, "cli.mjs"), ...flags], { encoding: "utf8" });
  let run = node([cnn, "-o", join(dir, "x.onnx"), "--report"]);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--report needs --verify in the node build/);
  run = node([cnn, "-o", join(dir, "x.onnx"), "--verify", "--translations", join(dir, "lib.onnxlib")]);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--verify with --translations needs the native pt2onnx/);
  run = node(["apply-weights", join(dir, "a.onnx"), "--from", cnn, "-o", join(dir, "b.onnx"), "--verify"]);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /unknown flag '--verify'/);
  assert.match(node(["--help"]).stdout, /--verify-intermediates/);
});
