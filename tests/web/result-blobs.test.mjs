// convert() builds its result's Blobs when they are first read: the same Blob on every read, the CLI's bytes,
// and an input array changed after the call does not change them (the parts are taken during it).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { pageHarness } from "./page-harness.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convert } = await import(join(PACKAGE, "pt2onnx.mjs"));
const harness = pageHarness();

for (const [name, options] of [["cnn", {}], ["gpt_block", { externalData: "always" }]]) {
  test(`result Blobs are built once, from the input as it was: ${name} ${JSON.stringify(options)}`, async () => {
    const path = join(FIXTURES, name, "model.pt2");
    const input = new Uint8Array(readFileSync(path));
    const result = await convert(input, { ...options, outputName: "m.onnx" });
    input.fill(0);  // the caller reuses its buffer before reading the result
    assert.equal(result.onnx, result.onnx);
    assert.equal(result.data, result.data);
    const cli = runCli(path, "m.onnx", options);
    assert.equal(cli.status, 0, cli.stderr);
    assert.ok(Buffer.from(await result.onnx.arrayBuffer()).equals(cli.onnx));
    if (cli.data) assert.ok(Buffer.from(await result.data.arrayBuffer()).equals(cli.data));
    else assert.equal(result.data, null);
  });
}

// On a page a File is converted in the module's worker, which sends the result's parts back (not Blobs):
// the Blobs are still built on first read, once, with the CLI's bytes; a worker call that only reads the
// summary builds none.
test("through the page's worker: parts cross, Blobs are built on the page on first read", async () => {
  const page = await harness.openPage();
  for (const [name, options] of [["cnn", {}], ["gpt_block", { externalData: "always" }]]) {
    const path = join(FIXTURES, name, "model.pt2");
    const got = await page.evaluate(async ({ b64, options }) => {
      const { convert } = await import("./pt2onnx/pt2onnx.mjs");
      const file = new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], "m.pt2");
      const summaryOnly = await convert(file, options);
      const result = await convert(file, options);
      const base64 = async (blob) => {
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let text = "";
        for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
        return btoa(text);
      };
      return {
        names: [summaryOnly.onnxName, summaryOnly.dataName],
        nodes: summaryOnly.summary.onnxNodes,
        same: result.onnx === result.onnx && result.data === result.data,
        onnx: await base64(result.onnx),
        data: result.data === null ? null : await base64(result.data),
      };
    }, { b64: readFileSync(path).toString("base64"), options });
    const cli = runCli(path, "m.onnx", options);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(got.names, ["m.onnx", cli.data ? "m.onnx.data" : null]);
    assert.ok(got.nodes > 0);
    assert.ok(got.same, "the same Blob on every read");
    assert.ok(Buffer.from(got.onnx, "base64").equals(cli.onnx), `${name}: model bytes differ`);
    if (cli.data) assert.ok(Buffer.from(got.data, "base64").equals(cli.data), `${name}: data bytes differ`);
    else assert.equal(got.data, null);
  }
});
