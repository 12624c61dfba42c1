// The ES module API under node: same bytes as the native CLI for the same
// options, the same error codes and messages, a usable summary.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { realModels } from "./models.mjs";
import { fixtureOptions } from "./runtime-fixtures.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convert, refusedOps, supportedOps, version, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const fixture = (name) => join(FIXTURES, name, "model.pt2");
const bytesOf = async (blob) => Buffer.from(await blob.arrayBuffer());

const CASES = [
  ["cnn", {}],
  ["cnn", { externalData: "always" }],
  ["resnet18_shaped", { opset: 18 }],
  ["gpt_block", { opset: 23, externalData: "always" }],
  ["dynamic_batch_seq", { dimNames: { s54: "batch" }, inputNames: ["tokens"] }],
  ["mlp_dict_list", { outputNames: ["y0"], optimize: false }],
  ["decomposed_cnn", {}],
  ["strided_weights", {}],
  ["dtypes", {}],
  ["cnn_torch27", {}],
  ["cnn_torch28", { externalData: "always" }],
  ["mlp_dict_list_torch27", { opset: 19 }],
  ["mlp_dict_list_torch28", {}],
];

for (const [name, options] of CASES) {
  test(`${name} ${JSON.stringify(options)} matches the CLI byte for byte`, async () => {
    const input = readFileSync(fixture(name));
    const expected = runCli(fixture(name), "model.onnx", options);
    assert.equal(expected.status, 0, expected.stderr);
    const stages = new Set();
    const result = await convert(new Uint8Array(input), {
      ...options, outputName: "model.onnx", onProgress: ({ stage }) => stages.add(stage) });
    assert.ok((await bytesOf(result.onnx)).equals(expected.onnx), "model bytes differ");
    if (expected.data === null) {
      assert.equal(result.data, null);
      assert.equal(result.dataName, null);
    } else {
      assert.equal(result.dataName, "model.onnx.data");
      assert.ok((await bytesOf(result.data)).equals(expected.data), "data bytes differ");
    }
    assert.ok(stages.has("read") && stages.has("translate") && stages.has("write"), [...stages].join());
  });
}

// Every program of the per-operator zoo: the wasm build must write exactly the
// CLI's bytes for all of them, not only for the tier-1 models above.
test("every per-operator fixture matches the CLI byte for byte", async () => {
  const { readdirSync, existsSync } = await import("node:fs");
  const zoo = join(FIXTURES, "ops");
  const names = readdirSync(zoo).filter((n) => existsSync(join(zoo, n, "model.pt2")));
  assert.ok(names.length > 100, `only ${names.length} zoo fixtures found`);
  const mismatched = [];
  for (const name of names) {
    const path = join(zoo, name, "model.pt2");
    const options = fixtureOptions(JSON.parse(readFileSync(join(zoo, name, "meta.json"), "utf8")));
    const expected = runCli(path, "model.onnx", options);
    assert.equal(expected.status, 0, `${name}: ${expected.stderr}`);
    const result = await convert(readFileSync(path), { ...options, outputName: "model.onnx" });
    if (!(await bytesOf(result.onnx)).equals(expected.onnx)) mismatched.push(name);
  }
  assert.deepEqual(mismatched, []);
});

// The real-model zoo: byte-identical output for every model that converts; the
// ones still blocked by missing operators fail as the CLI does, naming them.
test("every real-model fixture matches the CLI (bytes, or the same unsupported operators)", async () => {
  const models = realModels();
  assert.ok(models.length >= 40, `only ${models.length} real-model fixtures found`);
  const problems = [];
  for (const { name, path, blockedBy } of models) {
    const expected = runCli(path, "model.onnx");
    if (blockedBy.length === 0) {
      assert.equal(expected.status, 0, `${name}: ${expected.stderr}`);
      const result = await convert(readFileSync(path), { outputName: "model.onnx" });
      if (!(await bytesOf(result.onnx)).equals(expected.onnx)) problems.push(`${name}: bytes differ`);
      continue;
    }
    assert.equal(expected.status, 5, `${name}: the CLI should refuse ${blockedBy.join(", ")}`);
    const error = await rejection(convert(readFileSync(path), { outputName: "model.onnx" }));
    if (!(error instanceof ConversionError) || error.code !== "unsupported") {
      problems.push(`${name}: expected an unsupported-operator error, got ${error}`);
      continue;
    }
    const ops = error.unsupportedOps.map((op) => op.split(" ")[0]);  // "aten::x.default x3 (first at ...)"
    for (const op of blockedBy) {
      if (!ops.includes(op)) problems.push(`${name}: ${op} not among the unsupported ops ${ops.join(", ")}`);
    }
  }
  assert.deepEqual(problems, []);
});

test("a Blob with a file name gives the CLI's default output name", async () => {
  const file = new File([readFileSync(fixture("cnn"))], "cnn.pt2");
  const result = await convert(file);
  assert.equal(result.onnxName, "cnn.onnx");
  const expected = runCli(fixture("cnn"), "cnn.onnx");
  assert.ok((await bytesOf(result.onnx)).equals(expected.onnx));
});

test("progress goes through the stages in order, translation node by node", async () => {
  const events = [];
  await convert(readFileSync(fixture("gpt_block")), { onProgress: (p) => events.push(p) });
  const stages = events.map((e) => e.stage).filter((s, i, all) => s !== all[i - 1]);
  assert.deepEqual(stages, ["read", "translate", "optimize", "write"]);
  const translate = events.filter((e) => e.stage === "translate").map((e) => e.fraction);
  assert.ok(translate.length > 10, `only ${translate.length} translate events`);
  assert.deepEqual(translate, [...translate].sort((a, b) => a - b));
  assert.equal(translate[0], 0);
  assert.equal(translate.at(-1), 1);
});

test("summary describes the model", async () => {
  const input = readFileSync(fixture("dynamic_batch_seq"));
  const symbol = (await convert(input)).summary.inputs[0].shape[0];
  assert.match(symbol, /^s\d+$/);
  const { summary, report, warnings } = await convert(input, { dimNames: { [symbol]: "batch" } });
  assert.equal(summary.opset, 20);
  assert.equal(summary.layout, "PT2 archive");
  assert.match(summary.torchVersion, /^2\.15/);
  assert.match(summary.schemaVersion, /^8\.\d+$/);
  assert.ok(summary.inputs.length >= 1);
  assert.equal(summary.inputs[0].dtype, "float32");
  assert.equal(summary.inputs[0].shape[0], "batch");
  assert.ok(summary.parameters > 0);
  assert.ok(summary.initializerBytes >= summary.parameters * 4);
  const nodes = Object.values(summary.opHistogram).reduce((a, b) => a + b, 0);
  assert.equal(nodes, summary.onnxNodes);
  assert.ok(summary.fxNodes > 0);
  assert.ok(summary.onnxNodesTranslated >= summary.onnxNodes);
  assert.match(report, /translated \d+ FX nodes/);
  assert.match(report, /wrote model\.onnx/);
  assert.ok(Array.isArray(warnings));
});

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail("expected the conversion to fail");
}

test("a corrupt file fails like the CLI: invalid_input, exit code 4, same message", async () => {
  const bytes = readFileSync(fixture("cnn"));
  const truncated = bytes.subarray(0, bytes.length - 100);
  const e = await rejection(convert(truncated));
  assert.ok(e instanceof ConversionError);
  assert.equal(e.code, "invalid_input");
  assert.equal(e.exitCode, 4);
  const { writeFileSync, mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const path = join(mkdtempSync(join(tmpdir(), "pt2onnx-bad-")), "bad.pt2");
  writeFileSync(path, truncated);
  const cli = runCli(path, "bad.onnx");
  assert.equal(cli.status, e.exitCode);
  assert.equal(cli.stderr.trim(), `pt2onnx: error: ${e.message}`);
  assert.equal(cli.onnx, null);
});

test("a torch 2.5 file gets the CLI's advice to re-export", async () => {
  const e = await rejection(convert(readFileSync(fixture("cnn_torch25"))));
  const cli = runCli(fixture("cnn_torch25"), "old.onnx");
  assert.equal(e.exitCode, cli.status);
  assert.equal(cli.stderr.trim(), `pt2onnx: error: ${e.message}`);
  assert.match(e.message, /re-export/);
});

test("not a zip at all", async () => {
  const e = await rejection(convert(new TextEncoder().encode("hello, not a model")));
  assert.equal(e.code, "invalid_input");
  assert.match(e.message, /not a \.pt2 file/);
});

test("unsupported operators are listed", async () => {
  const e = await rejection(convert(readFileSync(fixture("unsupported_aten_op"))));
  assert.equal(e.code, "unsupported");
  assert.equal(e.exitCode, 5);
  assert.ok(e.unsupportedOps.length >= 1);
  for (const op of e.unsupportedOps) assert.match(op, /^aten::\S+ x\d+ \(first at node '/);
  assert.match(e.message, /No ONNX file was written/);
});

test("bad options are usage errors", async () => {
  const input = readFileSync(fixture("cnn"));
  for (const [options, needle] of [
    [{ opset: 17 }, /opset must be an integer from 18 to 26/],
    [{ externalData: "yes" }, /externalData/],
    [{ inputNames: ["a", ""] }, /inputNames/],
    [{ opsett: 20 }, /unknown option 'opsett'/],
    [{ dimNames: { s0: 3 } }, /dimNames/],
  ]) {
    const e = await rejection(convert(input, options));
    assert.equal(e.code, "usage", JSON.stringify(options));
    assert.equal(e.exitCode, 2);
    assert.match(e.message, needle);
  }
  const e = await rejection(convert("model.pt2"));
  assert.equal(e.code, "usage");
});

test("a name clash is reported as in the CLI", async () => {
  const input = readFileSync(fixture("cnn"));
  const e = await rejection(convert(input, { outputNames: ["x"] }));
  const cli = runCli(fixture("cnn"), "x.onnx", { outputNames: ["x"] });
  assert.equal(e.exitCode, cli.status);
  assert.equal(cli.stderr.trim(), `pt2onnx: error: ${e.message}`);
});

test("supportedOps and version agree with the CLI and package.json", async () => {
  const { spawnSync } = await import("node:child_process");
  const listed = spawnSync(CLI, ["--list-ops"], { encoding: "utf8" }).stdout.trim().split("\n");
  assert.deepEqual(await supportedOps(), listed);
  const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
  assert.equal(version, pkg.version);
  const cliVersion = spawnSync(CLI, ["--version"], { encoding: "utf8" }).stdout.trim();
  assert.equal(cliVersion, `pt2onnx ${version}`);
});

test("refusedOps agrees with the CLI's --list-refused and gives every refusal a reason", async () => {
  const { spawnSync } = await import("node:child_process");
  const listed = spawnSync(CLI, ["--list-refused"], { encoding: "utf8" }).stdout.trim().split("\n");
  const refused = await refusedOps();
  assert.deepEqual(refused.map(({ op, reason }) => `${op}\t${reason}`), listed);
  assert.ok(refused.some(({ op }) => op === "aten::linalg_eig.default"));
  for (const { op, reason } of refused) assert.ok(reason.length > 20, `${op} has no reason`);
});
