// Runs the native CLI to get the reference bytes the wasm build must match.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "./paths.mjs";

// CLI flags for the API's options (the subset tests use).
export function cliFlags(options = {}) {
  const flags = [];
  if (options.opset !== undefined) flags.push("--opset", String(options.opset));
  if (options.externalData === "always") flags.push("--external-data");
  if (options.externalData === "never") flags.push("--no-external-data");
  if (options.inputNames) flags.push("--input-names", options.inputNames.join(","));
  if (options.outputNames) flags.push("--output-names", options.outputNames.join(","));
  for (const [sym, name] of Object.entries(options.dimNames ?? {})) flags.push("--dim-name", `${sym}=${name}`);
  if (options.optimize === false) flags.push("--no-optimize");
  if (options.kvCache !== undefined) flags.push("--kv-cache", options.kvCache);
  return flags;
}

// { status, stderr, onnx: Buffer | null, data: Buffer | null } for `pt2onnx input -o dir/outputName`
// (plus `extraFlags`).
export function runCli(input, outputName, options = {}, extraFlags = []) {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-cli-"));
  try {
    const out = join(dir, outputName);
    const run = spawnSync(CLI, [input, "-o", out, "-q", ...cliFlags(options), ...extraFlags], { encoding: "utf8" });
    return {
      status: run.status,
      stderr: run.stderr,
      onnx: existsSync(out) ? readFileSync(out) : null,
      data: existsSync(`${out}.data`) ? readFileSync(`${out}.data`) : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
