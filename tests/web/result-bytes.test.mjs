// A result's onnxBytes() / dataBytes(): the output's bytes as a Uint8Array without a Blob, the CLI's bytes
// whether or not the Blob was read first, a fresh array on every call; in node, and on a page through the
// module's worker (a small File read whole, a File over 1 MiB whose weights are File.slice() parts, and
// applyWeights(), whose result crosses with its Blobs built).
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

const CASES = [["cnn", {}], ["gpt_block", { externalData: "always" }]];
// Over the 1 MiB a worker reads whole: its weights are parts cut from the File.
const LARGE = join(FIXTURES, "models", "tv_r2plus1d", "model.pt2");

for (const [name, options] of CASES) {
  test(`onnxBytes() and dataBytes() are the CLI's bytes, before and after the Blob: ${name} ${JSON.stringify(options)}`,
    async () => {
      const path = join(FIXTURES, name, "model.pt2");
      const input = new Uint8Array(readFileSync(path));
      const result = await convert(input, { ...options, outputName: "m.onnx" });
      input.fill(0);  // the caller reuses its buffer before reading the result
      const cli = runCli(path, "m.onnx", options);
      assert.equal(cli.status, 0, cli.stderr);
      const first = await result.onnxBytes();
      assert.ok(first instanceof Uint8Array);
      assert.ok(Buffer.from(first).equals(cli.onnx), "onnxBytes() before the Blob");
      first.fill(0);  // the caller's own copy
      assert.ok(Buffer.from(await result.onnxBytes()).equals(cli.onnx), "a second call");
      assert.ok(Buffer.from(await result.onnx.arrayBuffer()).equals(cli.onnx), "the Blob");
      assert.ok(Buffer.from(await result.onnxBytes()).equals(cli.onnx), "onnxBytes() after the Blob");
      if (cli.data) {
        assert.ok(Buffer.from(await result.dataBytes()).equals(cli.data), "dataBytes() before the Blob");
        assert.ok(Buffer.from(await result.data.arrayBuffer()).equals(cli.data));
        assert.ok(Buffer.from(await result.dataBytes()).equals(cli.data), "dataBytes() after the Blob");
      } else {
        assert.equal(await result.dataBytes(), null);
      }
      assert.deepEqual(Object.keys(result).filter((k) => k.endsWith("Bytes")), [], "methods are not enumerable");
    });
}

test("through the page's worker: onnxBytes()/dataBytes() of convert(File) and applyWeights() are the CLI's bytes",
  async () => {
    const page = await harness.openPage();
    await page.evaluate(() => {
      const input = Object.assign(document.createElement("input"), { type: "file", id: "f", hidden: true });
      document.body.append(input);
    });
    await page.evaluate(() => {
      window.b64 = (bytes) => {
        let text = "";
        for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
        return btoa(text);
      };
    });
    for (const [path, options] of [...CASES.map(([n, o]) => [join(FIXTURES, n, "model.pt2"), o]),
      [LARGE, {}], [LARGE, { externalData: "always" }]]) {
      await page.setInputFiles("#f", path);
      const got = await page.evaluate(async (options) => {
        const { convert } = await import("./pt2onnx/pt2onnx.mjs");
        const file = document.getElementById("f").files[0];
        const result = await convert(file, { ...options, outputName: "m.onnx" });
        const onnx = await result.onnxBytes();
        const data = await result.dataBytes();
        const again = new Uint8Array(await result.onnx.arrayBuffer());
        return {
          isArray: onnx instanceof Uint8Array,
          onnx: b64(onnx),
          afterBlob: b64(await result.onnxBytes()),
          blob: b64(again),
          data: data === null ? null : b64(data),
        };
      }, options);
      const cli = runCli(path, "m.onnx", options);
      assert.equal(cli.status, 0, cli.stderr);
      const label = `${path.split("/").slice(-2).join("/")} ${JSON.stringify(options)}`;
      assert.ok(got.isArray, label);
      for (const key of ["onnx", "afterBlob", "blob"]) {
        assert.ok(Buffer.from(got[key], "base64").equals(cli.onnx), `${label}: ${key} differs from the CLI's model`);
      }
      if (cli.data) assert.ok(Buffer.from(got.data, "base64").equals(cli.data), `${label}: data differs`);
      else assert.equal(got.data, null, label);
    }

    // applyWeights() on Files: the worker sends the result with its Blobs; the accessors read them.
    const pt2 = join(FIXTURES, "gpt_block", "model.pt2");
    await page.setInputFiles("#f", pt2);
    const applied = await page.evaluate(async () => {
      const { applyWeights, convert } = await import("./pt2onnx/pt2onnx.mjs");
      const file = document.getElementById("f").files[0];
      const graph = await convert(file, { includeWeights: false });
      const result = await applyWeights(new File([await graph.onnxBytes()], "graph.onnx"), file,
        { outputName: "m.onnx" });
      return { onnx: b64(await result.onnxBytes()), data: await result.dataBytes() };
    });
    const direct = runCli(pt2, "m.onnx");
    assert.equal(direct.status, 0, direct.stderr);
    assert.ok(Buffer.from(applied.onnx, "base64").equals(direct.onnx), "applyWeights().onnxBytes() differs");
    assert.equal(applied.data, null);
  });
