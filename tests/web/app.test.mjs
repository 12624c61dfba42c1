// The page's option parsing, number formatting, count explanations and zip
// writer (web/format.mjs, web/counts.mjs, web/zip.mjs), without a browser.
import assert from "node:assert/strict";
import { test } from "node:test";
import { explainCounts } from "../../web/counts.mjs";
import {
  checkNameCount, defaultOnnxName, formatBytes, formatCount, formatDuration, formatRange, fullModelName, graphOnlyName,
  parseNameList, parseOutputName, uniqueNames,
} from "../../web/format.mjs";
import { crc32, zipBlobs } from "../../web/zip.mjs";

test("byte sizes use binary units and three significant digits", () => {
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(1024), "1.00 KiB");
  assert.equal(formatBytes(46758048), "44.6 MiB");
  assert.equal(formatBytes(3221722649), "3.00 GiB");
  assert.equal(formatBytes(1048575), "1.00 MiB");  // not "1024 KiB"
});

test("counts and durations", () => {
  assert.equal(formatCount(999), "999");
  assert.equal(formatCount(29696), "29.7 k");
  assert.equal(formatCount(11689512), "11.7 M");
  assert.equal(formatCount(999600), "1.00 M");
  assert.equal(formatDuration(0.2), "1 ms");
  assert.equal(formatDuration(840), "840 ms");
  assert.equal(formatDuration(1250), "1.25 s");
  assert.equal(formatDuration(125000), "2 min 05 s");
});

test("name lists: empty keeps the program's names; blanks and repeats are refused", () => {
  assert.deepEqual(parseNameList(""), { value: undefined });
  assert.deepEqual(parseNameList(" a , b "), { value: ["a", "b"] });
  assert.match(parseNameList("a,,b").error, /Name 2 of 3 is empty/);
  assert.match(parseNameList("a, a").error, /given twice/);
});

test("ranges, output names and unique zip names", () => {
  assert.equal(formatRange({ min: 2, max: 512 }), "[2, 512]");
  assert.equal(formatRange({ min: 0, max: null }), "[0, ∞)");
  assert.equal(formatRange(null), "derived");
  assert.equal(defaultOnnxName("cnn.pt2"), "cnn.onnx");
  assert.deepEqual(parseOutputName(""), { value: undefined });
  assert.deepEqual(parseOutputName(" resnet "), { value: "resnet.onnx" });
  assert.deepEqual(parseOutputName("a.onnx"), { value: "a.onnx" });
  assert.match(parseOutputName("dir/a.onnx").error, /without folders/);
  assert.deepEqual(uniqueNames(["a.onnx", "a.onnx", "a.onnx.data", "b.onnx"]),
    ["a.onnx", "a (2).onnx", "a.onnx.data", "b.onnx"]);
});

test("a graph-only result has its own name, and gets the full one back when its weights are applied", () => {
  assert.equal(graphOnlyName("cnn.pt2"), "cnn.graph.onnx");
  assert.equal(graphOnlyName("model"), "model.graph.onnx");
  assert.equal(fullModelName("cnn.graph.onnx"), "cnn.onnx");
  assert.equal(fullModelName("cnn.onnx"), "cnn.onnx");
});

test("more names than the inspected program has inputs or outputs is said before converting", () => {
  const inputs = [{ name: "x" }, { name: "mask" }];
  assert.equal(checkNameCount(undefined, inputs, "input"), undefined);
  assert.equal(checkNameCount(["a", "b"], inputs, "input"), undefined);
  assert.equal(checkNameCount(["a"], inputs, "input"), undefined);  // a prefix is allowed
  assert.equal(checkNameCount(["a", "b", "c"], inputs, "input"),
    "3 names for a program that has 2 inputs (x, mask): remove 1 name.");
  assert.equal(checkNameCount(["a", "b"], [{ name: "y" }], "output"),
    "2 names for a program that has 1 output (y): remove 1 name.");
  assert.equal(checkNameCount(["a"], [], "output"), "1 name for a program that has no outputs: remove 1 name.");
});

test("the result's counts are explained against the inspection's", () => {
  const summary = { fxNodes: 363, onnxNodesTranslated: 420, onnxNodes: 188, initializerBytes: 527 * 1024,
    passes: [
      { name: "constant_folding", nodesRemoved: 200, nodesAdded: 0, weightBytesRemoved: 0, weightBytesAdded: 0 },
      { name: "conv_batchnorm_folding", nodesRemoved: 32, nodesAdded: 0, weightBytesRemoved: 48 * 1024,
        weightBytesAdded: 0 },
    ] };
  const inspection = { fxNodes: 393, weights: [{ bytes: 700 * 1024 }, { bytes: 75 * 1024 }] };
  const why = explainCounts(summary, inspection);
  assert.match(why.nodes, /393 FX nodes: 363 in its main graph and 30 inside the subgraphs of its control flow/);
  assert.equal(why.optimizer, "Translation gave 420 ONNX nodes, the optimizer left 188: constant_folding " +
    "(computed ahead of time) −200, conv_batchnorm_folding (batch norms folded into their convolutions) −32.");
  // 527 + 48 = 575 KiB written by translation, of the 775 KiB the .pt2 holds.
  assert.match(why.weights, /^Translation wrote 575 KiB of the 775 KiB of weights in the \.pt2 /);
  assert.match(why.weights, /tied weights/);
  assert.match(why.weights, /The optimizer then changed the weights to 527 KiB: conv_batchnorm_folding .* −48\.0 KiB\.$/);
  // Nothing to explain: nothing said.
  const same = explainCounts({ fxNodes: 10, onnxNodesTranslated: 12, onnxNodes: 12, initializerBytes: 100, passes: [] },
    { fxNodes: 10, weights: [{ bytes: 100 }] });
  assert.deepEqual(same, { nodes: null, optimizer: null, weights: null });
  // A module without per-pass figures: the totals alone.
  assert.equal(explainCounts({ ...summary, passes: undefined }, null).optimizer,
    "Translation gave 420 ONNX nodes, the optimizer left 188.");
  // Without an inspection (a batch) only the optimizer's part.
  assert.equal(explainCounts(summary, null).nodes, null);
  assert.equal(explainCounts(summary, null).weights, null);
});

test("the zip writer's archive is read back by python's zipfile, CRCs included", async () => {
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { spawnSync } = await import("node:child_process");
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  const big = new Uint8Array(9 << 20).map((_, i) => (i * 31) & 0xff);  // over one CRC chunk
  const zip = await zipBlobs([{ name: "a.onnx", blob: new Blob(["hello"]) },
    { name: "dossier/é.onnx.data", blob: new Blob([big]) }]);
  const path = join(mkdtempSync(join(tmpdir(), "pt2onnx-zip-")), "r.zip");
  writeFileSync(path, new Uint8Array(await zip.arrayBuffer()));
  const check = spawnSync("python3", ["-c", `import zipfile,sys
z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None
print([(i.filename, i.file_size, i.compress_type) for i in z.infolist()])`, path], { encoding: "utf8" });
  assert.equal(check.status, 0, check.stderr);
  assert.equal(check.stdout.trim(), `[('a.onnx', 5, 0), ('dossier/é.onnx.data', ${9 << 20}, 0)]`);
});
