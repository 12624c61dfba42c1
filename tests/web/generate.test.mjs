// generate() and `npx pt2onnx verify-generation`: greedy generation through
// a converted export folder in the executor compiled to WebAssembly gives
// torch's model.generate() tokens (recorded by the fixture generator), the
// native CLI's tokens for the static --kv-cache form, and the native CLI's
// exit codes and messages.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readNpz } from "./npz.mjs";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convertFolder, generate, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const EXPORTS = join(FIXTURES, "hf_exports");
const FOLDERS = readdirSync(EXPORTS).filter((name) => existsSync(join(EXPORTS, name, "export.json")));
const read = (path) => new Uint8Array(readFileSync(path));
const record = (name) => JSON.parse(readFileSync(join(EXPORTS, name, "generation.json"), "utf8"));
const KEPT = new Set(["export.json", "config.json", "generation_config.json"]);

function sourceFolder(name) {
  const folder = join(EXPORTS, name);
  return new Map(readdirSync(folder).filter((f) => KEPT.has(f) || f.endsWith(".pt2")).map((f) => [f, read(join(folder, f))]));
}

async function converted(name, options = {}) {
  const result = await convertFolder(sourceFolder(name), options);
  return new Map(result.files.map(({ name: file, blob }) => [file, blob]));
}

function nativeTokens(folder, prompt, tokens) {
  const run = spawnSync(CLI, ["verify-generation", folder, "--tokens", String(tokens), "--prompt", prompt.join(",")],
    { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim().split(/\s+/).map(Number);
}

test("generate: every committed export folder", () => assert.ok(FOLDERS.length >= 5, FOLDERS.join(", ")));

for (const name of FOLDERS) {
  test(`generate(${name}) gives torch's tokens and last logits`, async () => {
    const rec = record(name);
    const files = await converted(name);
    // An encoder-decoder export (Whisper) takes the encoder's output, recorded by the generator.
    const inputs = rec.fixed_inputs ? { inputs: read(join(EXPORTS, name, rec.fixed_inputs)) } : {};
    const { tokens, lastLogits } = await generate(files, { prompt: rec.prompt_ids, tokens: rec.new_tokens, ...inputs });
    assert.deepEqual(tokens, rec.tokens);
    const [want] = readNpz(readFileSync(join(EXPORTS, name, "generation.npz")));
    assert.equal(lastLogits.length, want.data.length);
    const worst = Math.max(...[...lastLogits].map((v, i) => Math.abs(v - want.data[i]) / (1e-4 + 1e-4 * Math.abs(want.data[i]))));
    assert.ok(worst <= 1, `last logits differ from torch's: ${worst} x the tolerance`);
  });
}

test("generate() of a static --kv-cache folder equals the native CLI's 16 tokens", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-gen-"));
  try {
    for (const name of ["qwen3", "gemma3"]) {
      const rec = record(name);
      const out = join(dir, name);
      const run = spawnSync(CLI, [join(EXPORTS, name), "-o", out, "-q", "--opset", "24"], { encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      const expected = nativeTokens(out, rec.prompt_ids, 16);
      const files = await converted(name, { opset: 24, kvCache: "static" });
      const { tokens } = await generate(files, { prompt: rec.prompt_ids, tokens: 16 });
      assert.deepEqual(tokens, expected, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("generate() refuses what it cannot run, with the CLI's codes", async () => {
  const files = await converted("qwen3");
  const refused = async (input, options, code, pattern) => {
    await assert.rejects(generate(input, options), (e) => {
      assert.ok(e instanceof ConversionError, String(e));
      assert.equal(e.code, code, e.message);
      assert.match(e.message, pattern);
      return true;
    });
  };
  const without = (file) => new Map([...files].filter(([f]) => f !== file));
  await refused(without("decode.onnx"), {}, "io", /decode\.onnx/);
  await refused(without("export.json"), {}, "io", /export\.json/);
  await refused(sourceFolder("qwen3"), {}, "invalid_input", /not 'onnx'/);
  await refused(files, { prompt: [] }, "usage", /options\.prompt/);
  await refused(files, { tokens: 0 }, "usage", /options\.tokens/);
  await refused(files, { temperature: 1 }, "usage", /unknown generate\(\) option 'temperature'/);
  await refused(files, { inputs: "x.npz" }, "usage", /options\.inputs/);
  await refused(files, { inputs: new Uint8Array([1, 2, 3]) }, "invalid_input", /inputs: /);
  // Whisper without its encoder output: the input is named.
  await refused(await converted("whisper"), {}, "invalid_input", /encoder_outputs\.last_hidden_state/);
});

test("npx pt2onnx verify-generation: the native CLI's output and exit codes", () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-gen-cli-"));
  try {
    const rec = record("qwen3");
    const out = join(dir, "qwen3");
    const run = spawnSync(CLI, [join(EXPORTS, "qwen3"), "-o", out, "-q"], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const node = (...args) => spawnSync(process.execPath, [join(PACKAGE, "cli.mjs"), "verify-generation", ...args],
      { encoding: "utf8" });
    const ids = rec.prompt_ids.join(",");
    const ok = node(out, "--tokens", String(rec.new_tokens), "--prompt", ids, "--expect", rec.tokens.join(","));
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(ok.stdout.trim().split(" ").map(Number), rec.tokens);
    const wrong = [...rec.tokens];
    wrong[2] = (wrong[2] + 1) % 96;
    const differs = node(out, "--tokens", String(rec.new_tokens), "--prompt", ids, "--expect", wrong.join(","));
    assert.equal(differs.status, 6, differs.stderr);
    assert.match(differs.stderr, /differ from --expect at position 2/);
    assert.equal(node(join(dir, "absent"), "--tokens", "2").status, 3);
    for (const args of [[out, "--tokens", "0"], [out, "--prompt", "a,b"], [out, "--tokens", "2", "--expect", "1"],
      [out, "--save-logits", "x.npz"], []]) {
      assert.equal(node(...args).status, 2, args.join(" "));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
