// inspect() from the ES module under node returns exactly what the native
// CLI prints for `--inspect --json`, for static, dynamic, legacy and
// unsupported programs; bad files reject with the CLI's code and message.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { inspect, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const fixture = (name) => join(FIXTURES, name, "model.pt2");
const cliInspect = (path, ...flags) =>
  spawnSync(CLI, [path, "--inspect", "--json", ...flags], { encoding: "utf8" });

const CASES = [
  ["named_dims", {}],
  ["derived_dims", {}],
  ["dynamic_batch_seq", {}],
  ["ops/dyn_arange_positions", {}],
  ["ops/dyn_view_new_zeros", { opset: 23 }],
  ["gpt_block", {}],
  ["mlp_dict_list_torch27", {}],
  ["cnn_torch28", { opset: 18 }],
  ["unsupported_aten_op", {}],
  ["unsupported_op", {}],
];

for (const [name, options] of CASES) {
  test(`inspect(${name}, ${JSON.stringify(options)}) equals the CLI's --inspect --json`, async () => {
    const flags = options.opset === undefined ? [] : ["--opset", String(options.opset)];
    const cli = cliInspect(fixture(name), ...flags);
    assert.equal(cli.status, 0, cli.stderr);
    const got = await inspect(new Uint8Array(readFileSync(fixture(name))), options);
    assert.deepEqual(got, JSON.parse(cli.stdout));
  });
}

test("inspect() takes a Blob too, and lists symbols in input order", async () => {
  const got = await inspect(new Blob([readFileSync(fixture("named_dims"))]));
  const meta = JSON.parse(readFileSync(join(FIXTURES, "named_dims", "meta.json"), "utf8"));
  assert.deepEqual(got.symbols.map((s) => s.name),
    [meta.dynamic.x["0"], meta.dynamic.x["1"], meta.dynamic.z["0"], meta.dynamic.z["1"]]);
  assert.deepEqual(got.inputs[0].dims[1].range, { min: 2, max: 512 });
});

test("unreadable files reject with the CLI's exit code and message", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-inspect-"));
  try {
    const cnn = readFileSync(fixture("cnn"));
    for (const bytes of [Buffer.from("hello, not a zip"), Buffer.concat([Buffer.from("PK\x03\x04"), Buffer.alloc(64)]),
                         cnn.subarray(0, cnn.length >> 1), readFileSync(fixture("cnn_torch25"))]) {
      const path = join(dir, "bad.pt2");
      writeFileSync(path, bytes);
      const cli = cliInspect(path);
      assert.equal(cli.status, 4);
      const error = await inspect(new Uint8Array(bytes)).then(() => null, (e) => e);
      assert.ok(error instanceof ConversionError, String(error));
      assert.equal(error.code, "invalid_input");
      assert.equal(error.exitCode, cli.status);
      assert.equal(`pt2onnx: error: ${error.message}\n`, cli.stderr);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("inspect() checks its arguments", async () => {
  const bytes = new Uint8Array(readFileSync(fixture("cnn")));
  for (const [input, options, needle] of [
    ["model.pt2", {}, /takes a File, Blob, ArrayBuffer or Uint8Array/],
    [bytes, { dimNames: {} }, /unknown inspect\(\) option 'dimNames'/],
    [bytes, { opset: 17 }, /options.opset must be an integer from 18 to 23/],
  ]) {
    await assert.rejects(inspect(input, options), (e) => e instanceof ConversionError &&
      e.code === "usage" && needle.test(e.message));
  }
});
