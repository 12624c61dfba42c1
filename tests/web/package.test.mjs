// The packed npm package (bazel build //wasm:npm_pack), installed the way a
// hub would install it, resolves by its name and converts like the CLI.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { FIXTURES, REPO, requireBuilt } from "./paths.mjs";

const TARBALL = process.env.PT2ONNX_TARBALL ?? join(REPO, "out", "wasm", "pt2onnx.tgz");
requireBuilt(TARBALL, "the packed package (bazel build //wasm:npm_pack)");

test("npm pack output installs and converts by package name", () => {
  const listing = spawnSync("tar", ["-tzf", TARBALL], { encoding: "utf8" }).stdout.trim().split("\n").sort();
  assert.deepEqual(listing, ["package/LICENSE", "package/README.md", "package/THIRD_PARTY_NOTICES", "package/cli-folder.mjs", "package/cli-generation.mjs", "package/cli-verify.mjs", "package/cli.mjs", "package/package.json", "package/pt2onnx-core.mjs",
    "package/pt2onnx-core.wasm", "package/pt2onnx-folder.mjs", "package/pt2onnx-generate.mjs", "package/pt2onnx-readers.mjs", "package/pt2onnx-results.mjs", "package/pt2onnx-run.mjs", "package/pt2onnx-verify.mjs",
    "package/pt2onnx-worker-calls.mjs",
    "package/pt2onnx-worker.mjs",
    "package/pt2onnx.d.ts", "package/pt2onnx.mjs"]);

  const app = mkdtempSync(join(tmpdir(), "pt2onnx-hub-"));
  const pkg = join(app, "node_modules", "pt2onnx");
  mkdirSync(pkg, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", TARBALL, "-C", pkg, "--strip-components=1"], { encoding: "utf8" });
  assert.equal(untar.status, 0, untar.stderr);
  const input = join(FIXTURES, "gpt_block", "model.pt2");
  writeFileSync(join(app, "convert.mjs"), `
    import { readFileSync, writeFileSync } from "node:fs";
    import { convert, version } from "pt2onnx";
    const r = await convert(readFileSync(${JSON.stringify(input)}), { outputName: "gpt.onnx" });
    writeFileSync("gpt.onnx", Buffer.from(await r.onnx.arrayBuffer()));
    console.log(version, r.onnxName);
  `);
  const run = spawnSync(process.execPath, ["convert.mjs"], { cwd: app, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^\d+\.\d+\.\d+ gpt\.onnx/);
  const expected = runCli(input, "gpt.onnx");
  assert.ok(readFileSync(join(app, "gpt.onnx")).equals(expected.onnx));
});

test("a missing .wasm is a 'load' error, and a later call retries", () => {
  const app = mkdtempSync(join(tmpdir(), "pt2onnx-hub-"));
  const pkg = join(app, "node_modules", "pt2onnx");
  mkdirSync(pkg, { recursive: true });
  spawnSync("tar", ["-xzf", TARBALL, "-C", pkg, "--strip-components=1"]);
  const wasm = join(pkg, "pt2onnx-core.wasm");
  writeFileSync(join(app, "retry.mjs"), `
    import { renameSync, readFileSync } from "node:fs";
    import { convert, ConversionError } from "pt2onnx";
    const input = readFileSync(${JSON.stringify(join(FIXTURES, "cnn", "model.pt2"))});
    renameSync(${JSON.stringify(wasm)}, ${JSON.stringify(`${wasm}.away`)});
    try {
      await convert(input);
      console.log("converted without the wasm?");
    } catch (e) {
      console.log(e instanceof ConversionError, e.code, e.exitCode, /pt2onnx-core/.test(e.message));
    }
    renameSync(${JSON.stringify(`${wasm}.away`)}, ${JSON.stringify(wasm)});
    const r = await convert(input);
    console.log(r.onnxName);
  `);
  const run = spawnSync(process.execPath, ["retry.mjs"], { cwd: app, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), "true load 1 true\nmodel.onnx");
});
