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
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readNpz } from "../../tests/web/npz.mjs";
import { benchFolders, importPackage, parseBenchArgs, TABLE_HEADER, tableRow } from "./ortweb_bench_setup.mjs";

const { runs: RUNS, ortWeb: ORT_WEB, extra: EXTRA } = parseBenchArgs("wasm_runtime_vs_ortweb.mjs");
const ours = await importPackage();
const ort = await import(join(ORT_WEB, "dist", "ort.wasm.min.mjs"));
ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
ort.env.wasm.wasmPaths = join(ORT_WEB, "dist") + "/";
const folders = benchFolders(EXTRA);

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
console.log(TABLE_HEADER);
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
  console.log(tableRow(name, t1, t2, diff));
  session.release();
  await ortSession.release();
}
