// Weights apart from the graph in the ES module: convert({ includeWeights:
// false }) then applyWeights() gives a direct conversion's bytes, equal to
// the native CLI's `apply-weights`; weights that do not fit are refused.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { applyWeights, convert, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const SWAP = join(FIXTURES, "weight_swap");
const bytesOf = async (blob) => Buffer.from(await blob.arrayBuffer());
const read = (path) => new Uint8Array(readFileSync(path));

// The native CLI's apply-weights on `graph` (bytes) with `pt2`.
function nativeApply(graph, pt2, flags = []) {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-apply-"));
  try {
    writeFileSync(join(dir, "graph.onnx"), graph);
    const out = join(dir, "m.onnx");
    const run = spawnSync(CLI, ["apply-weights", "-q", join(dir, "graph.onnx"), "--from", pt2, "-o", out, ...flags],
      { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    return { onnx: readFileSync(out), data: existsSync(`${out}.data`) ? readFileSync(`${out}.data`) : null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ROUND_TRIPS = [
  [join(SWAP, "base.pt2"), join(SWAP, "finetuned.pt2"), {}],
  [join(SWAP, "base.pt2"), join(SWAP, "finetuned.pt2"), { externalData: "always" }],
  [join(SWAP, "folded_base.pt2"), join(SWAP, "folded_finetuned.pt2"), {}],
  [join(SWAP, "folded_base.pt2"), join(SWAP, "folded_finetuned.pt2"), { optimize: false }],
  [join(FIXTURES, "gpt_block", "model.pt2"), join(FIXTURES, "gpt_block", "model.pt2"), { opset: 23 }],
];

for (const [base, tuned, options] of ROUND_TRIPS) {
  for (const asInputs of [false, true]) {
    const name = `${base.split("/").slice(-2).join("/")} -> ${tuned.split("/").pop()} ${JSON.stringify(options)}` +
      (asInputs ? " weightsAsInputs" : "");
    test(`no weights + applyWeights = direct conversion = native apply-weights: ${name}`, async () => {
      const { externalData, ...graphOptions } = options;
      const graph = await convert(read(base), { ...graphOptions, includeWeights: false, weightsAsInputs: asInputs,
        outputName: "graph.onnx" });
      assert.equal(graph.data, null);
      const graphBytes = await bytesOf(graph.onnx);
      const applyOptions = { outputName: "m.onnx" };
      if (externalData) applyOptions.externalData = externalData;
      if (options.optimize === false) applyOptions.optimize = false;
      const applied = await applyWeights(new Blob([graphBytes], { type: "" }), read(tuned), applyOptions);
      assert.equal(applied.onnxName, "m.onnx");
      const direct = runCli(tuned, "m.onnx", { ...options, ...(asInputs ? {} : {}) },
        asInputs ? ["--weights-as-inputs"] : []);
      assert.equal(direct.status, 0, direct.stderr);
      assert.ok((await bytesOf(applied.onnx)).equals(direct.onnx), "applied bytes differ from a direct conversion");
      const native = nativeApply(graphBytes, tuned, [
        ...(externalData === "always" ? ["--external-data"] : []),
        ...(options.optimize === false ? ["--no-optimize"] : [])]);
      assert.ok(native.onnx.equals(direct.onnx), "native apply-weights differs");
      if (direct.data === null) {
        assert.equal(applied.data, null);
      } else {
        assert.equal(applied.dataName, "m.onnx.data");
        assert.ok((await bytesOf(applied.data)).equals(direct.data), "data bytes differ");
      }
      assert.match(applied.report, /^converting model\.pt2 at opset \d+ for its weights/);
    });
  }
}

const REFUSED = [
  ["wider.pt2", true, /differ in dtype or shape.*'fc1\.weight'/s],
  ["half.pt2", true, /differ in dtype or shape.*FLOAT16\[16, 8\]/s],
  ["wider.pt2", false, /declares no dtype or shape/],
  ["renamed.pt2", false, /uses 4 weight\(s\) the \.pt2 does not have.*'fc1\.weight'/s],
  ["renamed.pt2", true, /the \.pt2 has 4 weight\(s\) the model does not use.*'first\.weight'/s],
];

for (const [other, asInputs, message] of REFUSED) {
  test(`applyWeights refuses ${other}${asInputs ? " (weights as inputs)" : ""} with the CLI's message`, async () => {
    const graph = await convert(read(join(SWAP, "base.pt2")), { includeWeights: false, weightsAsInputs: asInputs });
    const file = new File([read(join(SWAP, other))], other);
    await assert.rejects(applyWeights(graph.onnx, file), (e) => {
      assert.ok(e instanceof ConversionError);
      assert.equal(e.code, "invalid_input");
      assert.equal(e.exitCode, 4);
      assert.match(e.message, /the weights of .* do not fit/);
      assert.match(e.message, message);
      return true;
    });
  });
}

test("applyWeights refuses what is not an ONNX model, and bad arguments", async () => {
  await assert.rejects(applyWeights(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), read(join(SWAP, "base.pt2"))),
    (e) => e.code === "invalid_input" && /not an ONNX model/.test(e.message));
  await assert.rejects(applyWeights("graph.onnx", read(join(SWAP, "base.pt2"))), (e) => e.code === "usage");
  const graph = await convert(read(join(SWAP, "base.pt2")), { includeWeights: false });
  await assert.rejects(applyWeights(graph.onnx, read(join(SWAP, "base.pt2")), { includeWeights: false }),
    (e) => e.code === "usage" && /unknown applyWeights\(\) option 'includeWeights'/.test(e.message));
});

test("node CLI apply-weights writes the native CLI's bytes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-node-apply-"));
  try {
    const graph = join(dir, "graph.onnx");
    const nodeCli = join(PACKAGE, "cli.mjs");
    const base = join(SWAP, "folded_base.pt2");
    const tuned = join(SWAP, "folded_finetuned.pt2");
    let run = spawnSync(process.execPath, [nodeCli, "-q", "--no-weights", base, "-o", graph], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    run = spawnSync(process.execPath, [nodeCli, "apply-weights", "-q", graph, "--from", tuned, "-o", join(dir, "m.onnx")],
      { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const native = nativeApply(readFileSync(graph), tuned);
    assert.ok(readFileSync(join(dir, "m.onnx")).equals(native.onnx));
    run = spawnSync(process.execPath, [nodeCli, "apply-weights", graph, "--from", join(SWAP, "wider.pt2"), "-o",
      join(dir, "x.onnx")], { encoding: "utf8" });
    assert.equal(run.status, 4, run.stderr);
    assert.match(run.stderr, /do not fit/);
    assert.ok(!existsSync(join(dir, "x.onnx")));
    run = spawnSync(process.execPath, [nodeCli, "apply-weights", graph, "-o", join(dir, "x.onnx")], { encoding: "utf8" });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--from OTHER\.pt2/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
