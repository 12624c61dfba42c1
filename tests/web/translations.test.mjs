// Custom translations in the JS API and the node CLI: options.translations
// (the bytes of an ONNX function library) converts the custom-operator
// fixture to the native CLI's exact bytes, inlined or kept as a local
// function; clashes with built-ins need overrideBuiltins; inspect() counts the
// library's operators as supported; bad options and libraries are usage errors.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { reluAsNegLibrary } from "./libraries.mjs";
import { readNpz } from "./npz.mjs";
import { CLI, FIXTURES, PACKAGE, REPO, requireBuilt } from "./paths.mjs";
import { mismatch } from "./runtime-fixtures.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convert, inspect, run, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const LIBRARY_PATH = join(REPO, "examples", "translations", "mylib.onnxlib");
const LIBRARY = new Uint8Array(readFileSync(LIBRARY_PATH));
const CUSTOM = join(FIXTURES, "unsupported_op");
const RELU = join(FIXTURES, "ops", "relu", "model.pt2");
const bytesOf = async (blob) => Buffer.from(await blob.arrayBuffer());
const rejection = (promise) => promise.then(() => assert.fail("expected a rejection"), (e) => e);

for (const [label, options, flags] of [
  ["inlined", {}, []],
  ["as local functions", { translationsAsFunctions: true }, ["--translations-as-functions"]],
  ["opset 23", { opset: 23 }, []],
]) {
  test(`translations (${label}): the custom operator converts to the CLI's bytes`, async () => {
    const expected = runCli(join(CUSTOM, "model.pt2"), "model.onnx", options.opset ? { opset: options.opset } : {},
      ["--translations", LIBRARY_PATH, ...flags]);
    assert.equal(expected.status, 0, expected.stderr);
    const result = await convert(readFileSync(join(CUSTOM, "model.pt2")),
      { ...options, translations: LIBRARY, outputName: "model.onnx" });
    assert.ok((await bytesOf(result.onnx)).equals(expected.onnx), "model bytes differ");
  });
}

test("translations: an ArrayBuffer and an array of libraries work too; the result runs as torch did " +
     "(local functions too: run() inlines them)", async () => {
  const buffer = LIBRARY.buffer.slice(LIBRARY.byteOffset, LIBRARY.byteOffset + LIBRARY.byteLength);
  for (const options of [{ translations: buffer }, { translations: [LIBRARY] },
    { translations: LIBRARY, translationsAsFunctions: true }]) {
    const result = await convert(readFileSync(join(CUSTOM, "model.pt2")), options);
    const inputs = Object.fromEntries(readNpz(readFileSync(join(CUSTOM, "inputs.npz"))).map((t) => [t.name, t]));
    const expected = readNpz(readFileSync(join(CUSTOM, "expected.npz")));
    const outputs = Object.values(await run(new Uint8Array(await result.onnx.arrayBuffer()), inputs));
    assert.equal(mismatch(outputs[0], expected[0], "y", 1e-5, 1e-4), null);
  }
});

test("translations: without the library the operator is unsupported", async () => {
  const error = await rejection(convert(readFileSync(join(CUSTOM, "model.pt2"))));
  assert.ok(error instanceof ConversionError);
  assert.equal(error.code, "unsupported");
  assert.ok(error.unsupportedOps.some((op) => op.startsWith("mylib::weird_op.default")), error.unsupportedOps.join());
});

test("translations: a clash with a built-in is a usage error unless overrideBuiltins", async () => {
  const library = reluAsNegLibrary();
  const error = await rejection(convert(readFileSync(RELU), { translations: library }));
  assert.equal(error.code, "usage");
  assert.equal(error.exitCode, 2);
  assert.match(error.message, /^translations\[0\]: .*conflicts with pt2onnx's own translation/);
  const result = await convert(readFileSync(RELU), { translations: library, overrideBuiltins: true,
    outputName: "model.onnx" });
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-lib-"));
  const path = join(dir, "relu.onnxlib");
  (await import("node:fs")).writeFileSync(path, library);
  const expected = runCli(RELU, "model.onnx", {}, ["--translations", path, "--override"]);
  assert.equal(expected.status, 0, expected.stderr);
  assert.ok((await bytesOf(result.onnx)).equals(expected.onnx));
});

test("translations: bad values and bad libraries are usage errors", async () => {
  const input = readFileSync(join(CUSTOM, "model.pt2"));
  for (const [options, pattern] of [
    [{ translations: "mylib.onnxlib" }, /options\.translations must be the bytes/],
    [{ translations: [LIBRARY, 3] }, /options\.translations must be the bytes/],
    [{ translations: LIBRARY, overrideBuiltins: "yes" }, /options\.overrideBuiltins must be a boolean/],
    [{ translationsAsFunctions: true }, /translationsAsFunctions needs a library/],
    [{ translations: new Uint8Array([0xff, 0xff, 1]) }, /^translations\[0\]: .*translation library/],
  ]) {
    const error = await rejection(convert(input, options));
    assert.ok(error instanceof ConversionError, String(error));
    assert.equal(error.code, "usage", error.message);
    assert.match(error.message, pattern);
  }
});

test("inspect(): the library's operators count as supported", async () => {
  const input = readFileSync(join(CUSTOM, "model.pt2"));
  const without = await inspect(input);
  const withLibrary = await inspect(input, { translations: LIBRARY });
  const listed = (info) => JSON.stringify(info.unsupported ?? info.unsupportedOps ?? []);
  assert.match(listed(without), /mylib::weird_op\.default/);
  assert.doesNotMatch(listed(withLibrary), /mylib::weird_op\.default/);
});

test("node CLI: --translations (and --translations-as-functions) write the native CLI's bytes", () => {
  const bin = join(PACKAGE, "cli.mjs");
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-lib-"));
  for (const extra of [[], ["--translations-as-functions"]]) {
    const native = join(dir, "native.onnx");
    const node = join(dir, "node.onnx");
    const args = (out) => [join(CUSTOM, "model.pt2"), "-o", out, "-q", "--translations", LIBRARY_PATH, ...extra];
    assert.equal(spawnSync(CLI, args(native), { encoding: "utf8" }).status, 0);
    const run = spawnSync(process.execPath, [bin, ...args(node)], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(readFileSync(node).equals(readFileSync(native)), extra.join(" "));
  }
  // Errors as the native CLI: a library that is no ONNX model, a missing file, the flag alone.
  const junk = join(dir, "junk.onnxlib");
  (spawnSync("sh", ["-c", `printf 'not a model' > '${junk}'`]));
  for (const flags of [["--translations", junk], ["--translations", join(dir, "nope.onnxlib")],
    ["--translations-as-functions"]]) {
    const args = [join(CUSTOM, "model.pt2"), "-o", join(dir, "x.onnx"), "-q", ...flags];
    const native = spawnSync(CLI, args, { encoding: "utf8" });
    const node = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
    assert.equal(node.status, native.status, `${flags.join(" ")}: ${node.stderr}`);
    assert.ok(!existsSync(join(dir, "x.onnx")));
  }
});
