// verify() under node: the CLI's --verify in the wasm build. Passes on tier-1
// models and on control-flow fixtures and gives the CLI's numbers (the Model
// Explorer node data, %.9g, and the report's verification section,
// histograms included) for the same inputs: the archive's, seeded, an .npz,
// or typed arrays.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readNpz } from "./npz.mjs";
import { assertSameAsCli } from "./verify-compare.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { verify, MAX_VERIFY_BYTES } = await import(join(PACKAGE, "pt2onnx.mjs"));

// `pt2onnx model.pt2 --verify ...` run in the fixture's folder (so that an
// inputs file is named as verify() names it): exit code, stderr, report, and
// with intermediates the node data.
function cliVerify(folder, { intermediates = false, inputs } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-verify-"));
  try {
    const flags = ["model.pt2", "-o", join(dir, "m.onnx"), "-q", intermediates ? "--verify-intermediates" : "--verify",
      `--report=${join(dir, "report.md")}`];
    if (intermediates) flags.push(`--verify-node-data=${join(dir, "nd")}`);  // it implies intermediates
    if (inputs !== undefined) flags.push("--inputs", inputs);
    const run = spawnSync(CLI, flags, { cwd: folder, encoding: "utf8" });
    const read = (name) => { try { return readFileSync(join(dir, name), "utf8"); } catch { return null; } };
    return { status: run.status, stderr: run.stderr, report: read("report.md"),
      absJson: read("nd_max_abs_diff.json"), relJson: read("nd_max_rel_diff.json") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CASES = [
  ["cnn", {}],
  ["gpt_block", {}],
  ["gpt_block", { intermediates: true, inputs: "seeded" }],
  ["resnet18_shaped", {}],
  ["mlp_dict_list", { intermediates: true }],
  ["dynamic_batch_seq", { inputs: "inputs.npz" }],
  ["dtypes", { inputs: "seeded" }],
  // Control flow: the reference interpreter runs the branches and bodies.
  ["ops/cond_branches", { intermediates: true }],
  ["ops/cond_in_loop", {}],
  ["ops/scan_dim1_reverse", { intermediates: true }],
  ["ops/map_body", {}],
  // Half precision: bfloat16 / float16 outputs judged by their dtype's thresholds.
  ["half/qwen3_bf16", { inputs: "inputs.npz" }],
  ["half/mixed_casts", { intermediates: true, inputs: "inputs.npz" }],
  // Quantized: int8 weight-only linears, one logit of 4e-5 whose float32 noise (6e-6 between the engines) is
  // under relMinAbs, so its relative difference (0.14) is reported and not judged.
  ["quantized/torchao_llama_int8_weight_only", { inputs: "inputs.npz" }],
];

for (const [name, options] of CASES) {
  test(`verify() on ${name} ${JSON.stringify(options)} passes with the CLI's numbers`, async () => {
    const folder = join(FIXTURES, name);
    const cli = cliVerify(folder, options);
    assert.equal(cli.status, 0, cli.stderr);
    const stages = new Set();
    const inputs = options.inputs === "inputs.npz" ? new Uint8Array(readFileSync(join(folder, "inputs.npz")))
      : options.inputs;
    const result = await verify(new Uint8Array(readFileSync(join(folder, "model.pt2"))), {
      intermediates: options.intermediates, inputs, outputName: "m.onnx", onProgress: ({ stage }) => stages.add(stage) });
    assert.equal(result.passed, true, result.message);
    assert.ok(result.outputs.length > 0);
    for (const c of result.outputs) {
      assert.ok(c.passed && c.max_abs_diff < c.thresholds.maxAbsDiff, JSON.stringify(c));
      assert.ok(c.max_rel_diff < c.thresholds.maxRelDiff || c.max_abs_diff < c.thresholds.relMinAbs, JSON.stringify(c));
      assert.equal(c.thresholds.dtype, c.expected_dtype);
      if (c.expected_dtype === "float32") {
        assert.deepEqual([c.thresholds.maxAbsDiff, c.thresholds.maxRelDiff, c.thresholds.relMinAbs, c.thresholds.relFloor],
          [5e-3, 1e-1, 1e-5, 1e-7]);
      }
      if (c.expected_dtype === "bfloat16") {
        assert.equal(c.thresholds.maxAbsDiff, Infinity);
        assert.equal(c.thresholds.maxRelDiff, 0.125);
        assert.match(c.thresholds.text, /^rel < 0\.125 \(16 ulp\)/);
      }
      assert.equal(c.abs_diff_hist.length, 9);
      assert.equal(c.expected_dtype, c.actual_dtype);
    }
    assert.equal(result.intermediates.length > 0, !!options.intermediates);
    assert.deepEqual(result.histogramEdges, [0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 1e6]);
    assert.equal(result.firstDivergence, null);
    assert.ok(["read", "translate", "reference", "onnx", "compare"].every((s) => stages.has(s)), [...stages].join());
    assertSameAsCli(result, cli);
  });
}

test("verify() with typed arrays gives the numbers of the same values as an .npz", async () => {
  const folder = join(FIXTURES, "dynamic_batch_seq");
  const npz = readFileSync(join(folder, "inputs.npz"));
  const pt2 = new Uint8Array(readFileSync(join(folder, "model.pt2")));
  const tensors = {};
  for (const { name, dtype, dims, data } of readNpz(npz)) tensors[name.replace(/\.npy$/, "")] = { data, dims, dtype };
  const fromArrays = await verify(pt2, { inputs: tensors });
  const fromNpz = await verify(pt2, { inputs: new Uint8Array(npz) });
  assert.equal(fromArrays.passed, true);
  assert.equal(fromArrays.inputsSource, "the inputs option");
  assert.equal(fromArrays.nodeData.max_abs_diff, fromNpz.nodeData.max_abs_diff);
  assert.equal(fromArrays.nodeData.max_rel_diff, fromNpz.nodeData.max_rel_diff);
});

test("verify() refuses inputs that do not fit the program, as the CLI", async () => {
  const pt2 = new Uint8Array(readFileSync(join(FIXTURES, "cnn", "model.pt2")));
  await assert.rejects(verify(pt2, { inputs: { nope: { data: new Float32Array(1), dims: [1] } } }),
    (e) => e.code === "invalid_input" && /the inputs option has no array .x./.test(e.message));
  await assert.rejects(verify(pt2, { inputs: new Uint8Array([1, 2, 3]) }), (e) => e.code === "invalid_input");
  await assert.rejects(verify(pt2, { intermediates: "yes" }), (e) => e.code === "usage");
  await assert.rejects(verify(pt2, { externalData: "always" }), (e) => e.code === "usage" && /externalData/.test(e.message));
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(verify(pt2, { signal: controller.signal }), (e) => e.name === "AbortError");
});

test("verify() names its memory limit for a file over it, before reading it", async () => {
  class Huge extends Blob {
    get size() { return MAX_VERIFY_BYTES + 1; }
    arrayBuffer() { throw new Error("read"); }
  }
  assert.equal(MAX_VERIFY_BYTES, 1.5 * 1024 ** 3);
  await assert.rejects(verify(new Huge([])), (e) => e.code === "unsupported" && /1\.50 GiB limit/.test(e.message) &&
    /--verify/.test(e.message));
});
