// kvCache: "static" (--kv-cache static) in JavaScript: convert(), convertFolder()
// and the node CLI write the native CLI's bytes; the option's values, its
// opset and verify() are checked as the native CLI checks them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convert, convertFolder, verify, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const QWEN3 = join(FIXTURES, "hf_exports", "qwen3");
const DECODE = join(QWEN3, "decode.pt2");
const read = (path) => new Uint8Array(readFileSync(path));
const bytesOf = async (blob) => Buffer.from(await blob.arrayBuffer());
const STATIC = { opset: 24, kvCache: "static" };

for (const [label, path] of [["qwen3 decode", DECODE], ["hf_llama_kv", join(FIXTURES, "models", "hf_llama_kv", "model.pt2")]]) {
  test(`convert(${label}, kvCache static) writes the native CLI's bytes`, async () => {
    const native = runCli(path, "model.onnx", STATIC);
    assert.equal(native.status, 0, native.stderr);
    const result = await convert(read(path), { ...STATIC, outputName: "model.onnx" });
    assert.ok((await bytesOf(result.onnx)).equals(native.onnx), "the static model differs from the CLI's");
    assert.ok(native.onnx.includes(Buffer.from("TensorScatter")) && native.onnx.includes(Buffer.from("pt2onnx.kv_cache")));
  });
}

test("convertFolder(kvCache static) and the node CLI write the native CLI's folder", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-kv-"));
  try {
    const runs = { native: [CLI], node: [process.execPath, join(PACKAGE, "cli.mjs")] };
    const outs = {};
    for (const [which, [command, ...prefix]] of Object.entries(runs)) {
      const out = join(dir, which);
      const run = spawnSync(command, [...prefix, QWEN3, "-o", out, "-q", "--opset", "24", "--kv-cache", "static"],
        { encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      outs[which] = new Map(readdirSync(out).sort().map((name) => [name, readFileSync(join(out, name))]));
    }
    const files = new Map(["export.json", "config.json", "prefill.pt2", "decode.pt2"]
      .filter((name) => existsSync(join(QWEN3, name))).map((name) => [name, read(join(QWEN3, name))]));
    const result = await convertFolder(files, STATIC);
    assert.deepEqual(result.files.map((f) => f.name).sort(), [...outs.native.keys()]);
    for (const { name, blob } of result.files) {
      assert.ok((await bytesOf(blob)).equals(outs.native.get(name)), `convertFolder: ${name} differs`);
      assert.ok(outs.node.get(name).equals(outs.native.get(name)), `node CLI: ${name} differs`);
    }
    assert.ok(outs.native.get("decode.onnx").includes(Buffer.from("TensorScatter")));
    assert.ok(!outs.native.get("prefill.onnx").includes(Buffer.from("TensorScatter")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("kvCache is checked as the CLI checks --kv-cache", async () => {
  const refused = async (promise, code, pattern) => {
    await assert.rejects(promise, (e) => {
      assert.ok(e instanceof ConversionError, String(e));
      assert.equal(e.code, code, e.message);
      assert.match(e.message, pattern);
      return true;
    });
  };
  await refused(convert(read(DECODE), { kvCache: "paged", opset: 24 }), "usage", /"dynamic" or "static"/);
  await refused(convert(read(DECODE), { kvCache: "static" }), "usage", /opset 24/);
  await refused(convert(read(join(FIXTURES, "gpt_block", "model.pt2")), STATIC), "unsupported",
    /no growing key\/value cache/);
  await refused(verify(read(DECODE), STATIC), "usage", /kvCache: "static" replaces/);
  const node = spawnSync(process.execPath, [join(PACKAGE, "cli.mjs"), DECODE, "-o", join(tmpdir(), "never.onnx"),
    "--kv-cache", "static"], { encoding: "utf8" });
  assert.equal(node.status, 2, node.stderr);
  assert.match(node.stderr, /--kv-cache static needs --opset 24/);
  // A dynamic cache is the default: the same bytes as no option.
  const plain = await convert(read(DECODE), { opset: 24 });
  const dynamic = await convert(read(DECODE), { opset: 24, kvCache: "dynamic" });
  assert.ok((await bytesOf(plain.onnx)).equals(await bytesOf(dynamic.onnx)));
});
