// wasm/js/pt2onnx.d.ts type-checks the documented usage and rejects misuse.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { REPO } from "./paths.mjs";

const TYPES = join(REPO, "tests", "web", "types");
const TSC = join(REPO, "tests", "web", "node_modules", "typescript", "bin", "tsc");
const tsc = (config) => spawnSync(process.execPath, [TSC, "-p", join(TYPES, config)], { encoding: "utf8" });

test("the README's embedding example compiles against pt2onnx.d.ts", () => {
  const run = tsc("tsconfig.json");
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test("wrong option types and inputs are compile errors, one per misuse", () => {
  const run = tsc("tsconfig.misuse.json");
  const errors = run.stdout.split("\n").filter((l) => l.includes("error TS"));
  assert.deepEqual(errors.map((l) => l.match(/misuse\.ts\((\d+),/)?.[1]), ["5", "6", "7"], run.stdout);
});
