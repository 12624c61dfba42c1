// Hostile inputs in WebAssembly: the fuzz regression files, the e2e
// hostile-input cases and a sample of the dim/size sweep
// (make_hostile_cases.py writes them) go through the wasm module and the
// native CLI. The wasm build must fail with the CLI's exit code and message,
// or write the CLI's bytes; never crash (an aborted module is code
// "internal") and never succeed where the CLI refused (both run ONNX's
// arity check and strict shape inference on every model).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { CLI, PACKAGE, REPO, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convert, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const PYTHON = process.env.PYTHON ?? join(REPO, ".venv", "bin", "python");
// Every SWEEP_SAMPLE-th variant of the dim sweep (about 460 of its ~13,000).
const SWEEP_SAMPLE = process.env.SWEEP_SAMPLE ?? "29";

function makeCases(dir) {
  const run = spawnSync(PYTHON, [join(REPO, "tests", "web", "make_hostile_cases.py"), dir, SWEEP_SAMPLE],
    { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

async function wasmOutcome(bytes) {
  try {
    const result = await convert(bytes, { outputName: "model.onnx" });
    return { status: 0, onnx: Buffer.from(await result.onnx.arrayBuffer()) };
  } catch (e) {
    if (!(e instanceof ConversionError)) return { status: "thrown", message: String(e?.stack ?? e) };
    return { status: e.exitCode, code: e.code, message: e.message };
  }
}

test("hostile inputs fail in wasm as in the CLI (or convert to the same bytes)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-hostile-"));
  try {
    const cases = makeCases(dir);
    assert.ok(cases.length > 300, `only ${cases.length} cases`);
    const problems = [];
    let refused = 0;
    for (const { name, path } of cases) {
      // The browser build reads weights without their CRC, as the CLI with --no-crc.
      const cli = runCli(path, "model.onnx", {}, ["--no-crc"]);
      const wasm = await wasmOutcome(readFileSync(path));
      if (wasm.status === "thrown" || wasm.code === "internal") {
        problems.push(`${name}: wasm crashed: ${wasm.message}`);
      } else if (wasm.status !== cli.status) {
        problems.push(`${name}: wasm exit ${wasm.status}, CLI exit ${cli.status}: ${wasm.message ?? ""} | ${cli.stderr.trim()}`);
      } else if (cli.status === 0) {
        if (!wasm.onnx.equals(cli.onnx)) problems.push(`${name}: model bytes differ from the CLI's`);
      } else {
        ++refused;
        if (![4, 5].includes(cli.status)) problems.push(`${name}: CLI exit ${cli.status}: ${cli.stderr.trim()}`);
        if (cli.stderr.trim() !== `pt2onnx: error: ${wasm.message}`) {
          problems.push(`${name}: messages differ:\n  wasm: ${wasm.message}\n  cli:  ${cli.stderr.trim()}`);
        }
      }
    }
    console.log(`${cases.length} hostile inputs: ${refused} refused alike, ` +
      `${cases.length - refused} converted to the CLI's bytes`);
    assert.deepEqual(problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
