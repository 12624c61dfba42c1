// Set-up shared by the two benchmarks of the package's executor against
// onnxruntime-web (wasm_runtime_vs_ortweb.mjs under node,
// wasm_runtime_vs_ortweb_chromium.mjs in Chromium): command line, the built
// package, the model folders and the table's rows.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, PACKAGE, requireBuilt } from "../../tests/web/paths.mjs";

// --runs N (default 20), --ort-web DIR (required), --extra OUT_DIR; exits 2 with the usage line otherwise.
export function parseBenchArgs(script) {
  const args = process.argv.slice(2);
  const flag = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const options = { runs: Number(flag("--runs", "20")), ortWeb: flag("--ort-web", null), extra: flag("--extra", null) };
  if (!options.ortWeb) {
    console.error(`usage: node tools/bench/${script} --ort-web DIR/node_modules/onnxruntime-web [--runs N] [--extra OUT_DIR]`);
    process.exit(2);
  }
  return options;
}

// The built npm package (wasm/js), imported.
export async function importPackage() {
  requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build --config=wasm //wasm:package)");
  return import(join(PACKAGE, "pt2onnx.mjs"));
}

// The resnet18_shaped and gpt_block fixtures, then every EXTRA/<name> holding a model.pt2 (from
// tools/bench/make_runtime_bench_models.py), by name.
export function benchFolders(extra) {
  const folders = [join(FIXTURES, "resnet18_shaped"), join(FIXTURES, "gpt_block")];
  if (extra) {
    for (const name of readdirSync(extra).sort()) {
      if (existsSync(join(extra, name, "model.pt2"))) folders.push(join(extra, name));
    }
  }
  return folders;
}

export const TABLE_HEADER =
  `${"model".padEnd(16)} ${"ours".padStart(10)} ${"ORT-web".padStart(10)} ${"ours/ORT".padStart(9)}  max |diff|`;

export function tableRow(name, ours, ort, diff) {
  return `${name.padEnd(16)} ${ours.toFixed(3).padStart(10)} ${ort.toFixed(3).padStart(10)} ` +
    `${(ours / ort).toFixed(2).padStart(9)}  ${diff.toExponential(2)}`;
}
