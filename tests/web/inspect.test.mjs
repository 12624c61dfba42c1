// inspect() from the ES module under node (and in Chromium, from a page's main
// thread through the worker) returns exactly what the native CLI prints for
// `--inspect --json`, for static, dynamic, legacy and unsupported programs;
// bad files reject with the CLI's code and message.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { launchBrowser, startServer } from "./browser.mjs";
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
    [bytes, { opset: 17 }, /options.opset must be an integer from 18 to 26/],
  ]) {
    await assert.rejects(inspect(input, options), (e) => e instanceof ConversionError &&
      e.code === "usage" && needle.test(e.message));
  }
});

test("inspect(File) on a page's main thread runs in the worker and equals the CLI's JSON", async () => {
  const server = await startServer(PACKAGE);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(new URL("pt2onnx.mjs", server.url).href);  // any same-origin document will do
    for (const name of ["named_dims", "unsupported_aten_op"]) {
      const base64 = readFileSync(fixture(name)).toString("base64");
      const got = await page.evaluate(async (b64) => {
        const { inspect } = await import("/pt2onnx.mjs");
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const workers = [];
        const RealWorker = window.Worker;
        window.Worker = class extends RealWorker {
          constructor(...args) { super(...args); workers.push(String(args[0])); }
        };
        try {
          return { info: await inspect(new File([bytes], "model.pt2")), workers };
        } finally {
          window.Worker = RealWorker;
        }
      }, base64);
      const cli = cliInspect(fixture(name));
      assert.deepEqual(got.info, JSON.parse(cli.stdout));
      // One worker for the page: started by the first call, reused by the next.
      assert.equal(got.workers.length, name === "named_dims" ? 1 : 0, "one worker for the page");
      if (got.workers.length) assert.match(got.workers[0], /pt2onnx-worker\.mjs$/);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
