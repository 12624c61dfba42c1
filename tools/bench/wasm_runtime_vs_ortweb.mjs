#!/usr/bin/env node
// Benchmark: the package's WebAssembly executor (run / createSession) against
// onnxruntime-web's wasm backend (SIMD, 1 thread) under node, on the same
// .onnx bytes and inputs. Figures, not a test.
//
//   npm install --ignore-scripts --prefix /some/dir onnxruntime-web   # outside the repository
//   node tools/bench/wasm_runtime_vs_ortweb.mjs --ort-web /some/dir/node_modules/onnxruntime-web \
//       [--runs 20] [--extra OUT_DIR]
//
// Models: the resnet18_shaped and gpt_block fixtures, plus every OUT_DIR/<name>/model.pt2 (+ inputs.npz)
// from tools/bench/make_runtime_bench_models.py. Each .pt2 is converted by the package's convert()
// (the CLI's bytes); both runtimes get the same model, sessions are created once, 3 warm-up runs,
// then the median of --runs runs. Outputs are compared before timing.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readNpz } from "../../tests/web/npz.mjs";
import { FIXTURES, PACKAGE, requireBuilt } from "../../tests/web/paths.mjs";

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(flag("--runs", "20"));
const ORT_WEB = flag("--ort-web", null);
const EXTRA = flag("--extra", null);
if (!ORT_WEB) {
  console.error("usage: node tools/bench/wasm_runtime_vs_ortweb.mjs --ort-web DIR/node_modules/onnxruntime-web " +
    "[--runs N] [--extra OUT_DIR]");
  process.exit(2);
}
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build --config=wasm //wasm:package)");
const ours = await import(join(PACKAGE, "pt2onnx.mjs"));
const ort = await import(join(ORT_WEB, "dist", "ort.wasm.min.mjs"));
ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
ort.env.wasm.wasmPaths = join(ORT_WEB, "dist") + "/";

const folders = [join(FIXTURES, "resnet18_shaped"), join(FIXTURES, "gpt_block")];
if (EXTRA) {
  for (const name of readdirSync(EXTRA).sort()) {
    if (existsSync(join(EXTRA, name, "model.pt2"))) folders.push(join(EXTRA, name));
  }
}

const ORT_TYPES = { float32: "float32", int64: "int64", int32: "int32", bool: "bool", float64: "float64", uint8: "uint8" };

async function median(fn) {
  for (let i = 0; i < 3; ++i) await fn();
  const times = [];
  for (let i = 0; i < RUNS; ++i) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

console.log(`onnxruntime-web ${ort.env.versions?.web ?? "?"} (wasm, SIMD, 1 thread) vs pt2onnx ${ours.version} ` +
  `wasm executor under node ${process.version}; median of ${RUNS} runs after 3 warm-up runs; ms`);
console.log(`${"model".padEnd(16)} ${"ours".padStart(10)} ${"ORT-web".padStart(10)} ${"ours/ORT".padStart(9)}  max |diff|`);
for (const folder of folders) {
  const name = folder.split("/").pop();
  const converted = await ours.convert(new Uint8Array(readFileSync(join(folder, "model.pt2"))));
  const model = new Uint8Array(await converted.onnx.arrayBuffer());
  const inputs = Object.fromEntries(readNpz(readFileSync(join(folder, "inputs.npz"))).map((t) => [t.name, t]));
  const session = await ours.createSession(model);
  const ortSession = await ort.InferenceSession.create(model, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
  const feeds = Object.fromEntries(Object.entries(inputs).map(([k, t]) => [k,
    new ort.Tensor(ORT_TYPES[t.dtype], t.dtype === "bool" ? Uint8Array.from(t.data) : t.data, t.dims)]));
  const a = session.runSync(inputs);
  const b = await ortSession.run(feeds);
  let diff = 0;
  for (const [i, key] of Object.keys(a).entries()) {
    const x = a[key].data, y = b[ortSession.outputNames[i]].data;
    for (let j = 0; j < x.length; ++j) diff = Math.max(diff, Math.abs(Number(x[j]) - Number(y[j])));
  }
  const t1 = await median(async () => session.runSync(inputs));
  const t2 = await median(async () => ortSession.run(feeds));
  console.log(`${name.padEnd(16)} ${t1.toFixed(3).padStart(10)} ${t2.toFixed(3).padStart(10)} ` +
    `${(t1 / t2).toFixed(2).padStart(9)}  ${diff.toExponential(2)}`);
  session.release();
  await ortSession.release();
}
