// convert() builds its result's Blobs when they are first read: the same Blob on every read, the CLI's bytes,
// and an input array changed after the call does not change them (the parts are taken during it).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convert } = await import(join(PACKAGE, "pt2onnx.mjs"));

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
