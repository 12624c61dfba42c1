// The CLI and the JS package, given the same files, agree in every mode:
// convert (the model's bytes, or the same exit code and message), inspect
// with --translations (the same JSON, the library's operator supported),
// verify (the same verdict and node data; a file the checks every
// conversion runs refuse is refused by both with the same message) and
// apply-weights (the same bytes, or the same refusal). Both front ends hand
// each mode to export/, so a disagreement here is a front end doing a step
// of its own.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { after, test } from "node:test";
import { CLI, FIXTURES, PACKAGE, REPO, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { applyWeights, convert, inspect, verify, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const PYTHON = process.env.PYTHON ?? join(REPO, ".venv", "bin", "python");
const LIBRARY = join(REPO, "examples", "translations", "mylib.onnxlib");
const CUSTOM = join(FIXTURES, "unsupported_op", "model.pt2");
const SWAP = join(FIXTURES, "weight_swap");
const fixture = (name) => join(FIXTURES, name, "model.pt2");
const read = (path) => new Uint8Array(readFileSync(path));
// A File named as the CLI is given the path (its file name).
const file = (path) => new File([readFileSync(path)], basename(path));

const DIR = mkdtempSync(join(tmpdir(), "pt2onnx-modes-"));
after(() => rmSync(DIR, { recursive: true, force: true }));

// The cnn fixture with its output declared 1x11 where its operators compute
// 1x10: it translates, then the shape check every conversion runs refuses it.
const REFUSED = join(DIR, "refused.pt2");
{
  const made = spawnSync(PYTHON, [join(REPO, "tests", "web", "make_refused_model.py"), REFUSED], { encoding: "utf8" });
  assert.equal(made.status, 0, made.stderr);
}

// `pt2onnx ...args` run in `cwd` (where the inputs are, so that messages
// name them as the JS side does: by file name): exit code, stdout, and the
// message of its error line.
function cli(cwd, ...args) {
  const run = spawnSync(CLI, args.map(String), { cwd, encoding: "utf8" });
  const line = run.stderr.split("\n").find((l) => l.startsWith("pt2onnx: error: "));
  return { status: run.status, stdout: run.stdout, stderr: run.stderr,
    message: line === undefined ? null : line.slice("pt2onnx: error: ".length) };
}

// A JS call's value, or its refusal as { status, message } (the CLI's exit
// code and the first line of the message, as the CLI prints it).
async function js(promise) {
  try {
    return { status: 0, value: await promise };
  } catch (e) {
    assert.ok(e instanceof ConversionError, String(e?.stack ?? e));
    return { status: e.exitCode, message: e.message.split("\n")[0] };
  }
}

function assertSameRefusal(cliRun, jsRun) {
  assert.notEqual(cliRun.status, 0, "the CLI accepted what this case refuses");
  assert.equal(jsRun.status, cliRun.status, `JS: ${jsRun.message}\nCLI: ${cliRun.stderr}`);
  assert.equal(jsRun.message, cliRun.message);
}

const CONVERT_CASES = [
  ["cnn", fixture("cnn"), [], {}],
  ["gpt_block at opset 23", fixture("gpt_block"), ["--opset", 23], { opset: 23 }],
  ["dynamic_batch_seq, renamed dim", fixture("dynamic_batch_seq"), ["--dim-name", "s0=batch"],
    { dimNames: { s0: "batch" } }],
  ["the custom operator with its library", CUSTOM, ["--translations", LIBRARY], { translations: read(LIBRARY) }],
  ["the custom operator without it (unsupported)", CUSTOM, [], {}],
  ["a file the shape check refuses", REFUSED, [], {}],
  ["not a .pt2", LIBRARY, [], {}],
];

for (const [label, input, flags, options] of CONVERT_CASES) {
  test(`convert agrees: ${label}`, async () => {
    const out = join(DIR, "convert.onnx");
    rmSync(out, { force: true });
    const native = cli(dirname(input), basename(input), "-o", out, "-q", ...flags);
    const wasm = await js(convert(file(input), { ...options, outputName: "convert.onnx" }));
    if (native.status !== 0) return assertSameRefusal(native, wasm);
    assert.equal(wasm.status, 0, wasm.message);
    assert.ok(Buffer.from(await wasm.value.onnxBytes()).equals(readFileSync(out)), "model bytes differ");
  });
}

const INSPECT_CASES = [
  ["the custom operator with --translations", CUSTOM, ["--translations", LIBRARY], { translations: read(LIBRARY) }],
  ["the custom operator without", CUSTOM, [], {}],
  ["gpt_block at opset 18", fixture("gpt_block"), ["--opset", 18], { opset: 18 }],
  ["a file the shape check refuses (inspect reads it)", REFUSED, [], {}],
  ["not a .pt2", LIBRARY, [], {}],
];

for (const [label, input, flags, options] of INSPECT_CASES) {
  test(`inspect agrees: ${label}`, async () => {
    const native = cli(dirname(input), basename(input), "--inspect", "--json", ...flags);
    const wasm = await js(inspect(file(input), options));
    if (native.status !== 0) return assertSameRefusal(native, wasm);
    assert.equal(wasm.status, 0, wasm.message);
    const described = JSON.parse(native.stdout);
    assert.deepEqual(wasm.value, described);
    if (options.translations !== undefined) {
      // The library's operator counts as supported in both.
      const custom = described.ops.filter((op) => op.key.startsWith("mylib::"));
      assert.ok(custom.length > 0 && custom.every((op) => op.supported), JSON.stringify(described.ops));
    }
  });
}

const VERIFY_CASES = [
  ["cnn", fixture("cnn"), [], {}],
  ["gpt_block, seeded, intermediates", fixture("gpt_block"), ["--inputs", "seeded", "--verify-intermediates"],
    { inputs: "seeded", intermediates: true }],
  ["the custom operator with its library", CUSTOM, ["--translations", LIBRARY], { translations: read(LIBRARY) }],
  ["the custom operator without it (unsupported)", CUSTOM, [], {}],
  ["a file the shape check refuses", REFUSED, [], {}],
];

for (const [label, input, flags, options] of VERIFY_CASES) {
  test(`verify agrees: ${label}`, async () => {
    const nodeData = join(DIR, "nd");
    for (const suffix of ["_max_abs_diff.json", "_max_rel_diff.json"]) rmSync(nodeData + suffix, { force: true });
    const native = cli(dirname(input), basename(input), "-o", join(DIR, "verify.onnx"), "-q", "--verify",
      `--verify-node-data=${nodeData}`, ...flags);
    const wasm = await js(verify(file(input), { ...options, intermediates: true }));
    if (native.status !== 0) return assertSameRefusal(native, wasm);
    assert.equal(wasm.status, 0, wasm.message);
    assert.equal(wasm.value.exitCode, 0, wasm.value.message);
    assert.ok(wasm.value.passed);
    // The same values compared, every one passing in both; the numbers are
    // within the two builds' float noise (verify.test.mjs compares them).
    const results = (json) => Object.values(JSON.parse(json))[0].results;
    const mine = results(wasm.value.nodeData.max_abs_diff);
    const theirs = results(readFileSync(`${nodeData}_max_abs_diff.json`, "utf8"));
    assert.deepEqual(Object.keys(mine), Object.keys(theirs));
    assert.ok(Object.keys(mine).length > 0);
  });
}

// A graph without weights, written by the CLI, gets another .pt2's weights
// (copied beside it: the messages name both files).
const GRAPH = join(DIR, "graph.onnx");
{
  const made = cli(DIR, join(SWAP, "base.pt2"), "-o", GRAPH, "-q", "--no-weights");
  assert.equal(made.status, 0, made.stderr);
}

const APPLY_CASES = [
  ["fine-tuned weights", join(SWAP, "finetuned.pt2"), [], {}],
  ["fine-tuned weights apart", join(SWAP, "finetuned.pt2"), ["--external-data"], { externalData: "always" }],
  ["weights that do not fit (wider)", join(SWAP, "wider.pt2"), [], {}],
  ["weights of another dtype (half)", join(SWAP, "half.pt2"), [], {}],
];

for (const [label, weights, flags, options] of APPLY_CASES) {
  test(`apply-weights agrees: ${label}`, async () => {
    const out = join(DIR, "applied.onnx");
    rmSync(out, { force: true });
    rmSync(`${out}.data`, { force: true });
    copyFileSync(weights, join(DIR, basename(weights)));
    const native = cli(DIR, "apply-weights", "-q", "graph.onnx", "--from", basename(weights), "-o", "applied.onnx",
      ...flags);
    const wasm = await js(applyWeights(file(GRAPH), file(weights), { ...options, outputName: "applied.onnx" }));
    if (native.status !== 0) return assertSameRefusal(native, wasm);
    assert.equal(wasm.status, 0, wasm.message);
    assert.ok(Buffer.from(await wasm.value.onnxBytes()).equals(readFileSync(out)), "model bytes differ");
    const data = await wasm.value.dataBytes();
    assert.equal(data === null, !existsSync(`${out}.data`));
    if (data !== null) assert.ok(Buffer.from(data).equals(readFileSync(`${out}.data`)), "data bytes differ");
  });
}

test("the refused file is refused for its shapes, after translating (the case above is that check's)", () => {
  const native = cli(DIR, REFUSED, "-o", join(DIR, "r.onnx"), "-q");
  assert.equal(native.status, 4, native.stderr);
  assert.match(native.message, /metadata contradicts its operators/);
});
