#!/usr/bin/env node
// Benchmark: the package's WebAssembly executor against onnxruntime-web's wasm
// backend (SIMD, 1 thread) inside headless Chromium (Debian's, driven by
// playwright-core from tests/web/node_modules), on the same .onnx bytes and
// inputs, side by side in one page. Figures, not a test.
//
//   npm install --ignore-scripts --prefix /some/dir onnxruntime-web   # outside the repository
//   node tools/bench/wasm_runtime_vs_ortweb_chromium.mjs --ort-web /some/dir/node_modules/onnxruntime-web \
//       [--runs 20] [--extra OUT_DIR]
//
// Models as in wasm_runtime_vs_ortweb.mjs (the resnet18_shaped and gpt_block fixtures plus every
// OUT_DIR/<name>/model.pt2 from tools/bench/make_runtime_bench_models.py), converted here by the
// package's convert(). The page is served from memory (a server on 127.0.0.1) with cross-origin isolation
// headers, so performance.now() ticks at 5 us rather than 100 us; each sample still times a batch of
// runs lasting >= 20 ms (a whole number of runs) and reports the time per run. Sessions are created
// once; 3 warm-up runs, then the median of --runs samples, alternating ours and ORT-web per sample so
// both see the same load. Outputs are compared before timing.
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { readNpz } from "../../tests/web/npz.mjs";
import { launchBrowser } from "../../tests/web/browser.mjs";
import { PACKAGE } from "../../tests/web/paths.mjs";
import { benchFolders, importPackage, parseBenchArgs, TABLE_HEADER, tableRow } from "./ortweb_bench_setup.mjs";

const { runs: RUNS, ortWeb: ORT_WEB, extra: EXTRA } = parseBenchArgs("wasm_runtime_vs_ortweb_chromium.mjs");
const ours = await importPackage();
const folders = benchFolders(EXTRA);

// Everything the page fetches, by path: the two runtimes' files and, per model, its bytes and inputs.
const files = new Map();
const models = [];
for (const folder of folders) {
  const name = folder.split("/").pop();
  const converted = await ours.convert(new Uint8Array(readFileSync(join(folder, "model.pt2"))));
  files.set(`/models/${name}/model.onnx`, Buffer.from(await converted.onnx.arrayBuffer()));
  const inputs = readNpz(readFileSync(join(folder, "inputs.npz")));
  inputs.forEach((t, i) => files.set(`/models/${name}/input${i}.bin`,
    Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)));
  models.push({ name, inputs: inputs.map((t) => ({ name: t.name, dtype: t.dtype, dims: t.dims })) });
}
const MIME = { ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
const lookup = (path) => {
  if (files.has(path)) return files.get(path);
  const serveFrom = (prefix, dir) => {
    if (!path.startsWith(prefix)) return null;
    const local = join(dir, path.slice(prefix.length));
    return existsSync(local) ? readFileSync(local) : null;
  };
  return serveFrom("/package/", PACKAGE) ?? serveFrom("/ort/", join(ORT_WEB, "dist"));
};
files.set("/index.html", Buffer.from("<!doctype html><title>executor benchmark</title>"));

// Runs in the page: both sessions on one model, outputs compared, then alternating timed samples.
async function benchInPage({ model, runs }) {
  const ours = await import("/package/pt2onnx.mjs");
  const ort = await import("/ort/ort.wasm.min.mjs");
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.wasmPaths = "/ort/";
  const ARRAYS = { float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
    uint8: Uint8Array, bool: Uint8Array };
  const fetchBytes = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());
  const bytes = await fetchBytes(`/models/${model.name}/model.onnx`);
  const inputs = {};
  const feeds = {};
  for (const [i, t] of model.inputs.entries()) {
    const raw = await fetchBytes(`/models/${model.name}/input${i}.bin`);
    const data = new ARRAYS[t.dtype](raw.buffer, 0, raw.byteLength / ARRAYS[t.dtype].BYTES_PER_ELEMENT);
    inputs[t.name] = { data, dims: t.dims };
    feeds[t.name] = new ort.Tensor(t.dtype, data, t.dims);
  }
  const session = await ours.createSession(bytes);
  const ortSession = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
  const a = session.runSync(inputs);
  const b = await ortSession.run(feeds);
  let diff = 0;
  for (const [i, key] of Object.keys(a).entries()) {
    const x = a[key].data, y = b[ortSession.outputNames[i]].data;
    for (let j = 0; j < x.length; ++j) diff = Math.max(diff, Math.abs(Number(x[j]) - Number(y[j])));
  }
  const runOurs = async () => session.runSync(inputs);
  const runOrt = async () => ortSession.run(feeds);
  // Runs per sample so that one sample lasts >= 20 ms, from the warm-up runs' time.
  const repsFor = async (fn) => {
    const start = performance.now();
    for (let i = 0; i < 3; ++i) await fn();
    const each = Math.max((performance.now() - start) / 3, 1e-3);
    return Math.max(1, Math.ceil(20 / each));
  };
  const repsOurs = await repsFor(runOurs);
  const repsOrt = await repsFor(runOrt);
  const sample = async (fn, reps) => {
    const start = performance.now();
    for (let i = 0; i < reps; ++i) await fn();
    return (performance.now() - start) / reps;
  };
  const tOurs = [], tOrt = [];
  for (let i = 0; i < runs; ++i) {
    tOurs.push(await sample(runOurs, repsOurs));
    tOrt.push(await sample(runOrt, repsOrt));
  }
  const median = (t) => t.sort((p, q) => p - q)[Math.floor(t.length / 2)];
  session.release();
  await ortSession.release();
  return { ours: median(tOurs), ort: median(tOrt), diff, isolated: self.crossOriginIsolated,
    ortVersion: ort.env.versions?.web ?? "?", oursVersion: ours.version, reps: [repsOurs, repsOrt] };
}

// A server on a free port of 127.0.0.1 (playwright's routes cannot carry a BERT-sized body).
const server = createServer((request, response) => {
  const path = new URL(request.url, "http://127.0.0.1").pathname;
  const body = lookup(path);
  if (body === null) {
    response.writeHead(404).end("not found");
    return;
  }
  response.writeHead(200, {
    "Content-Type": MIME[extname(path)] ?? "application/octet-stream",
    "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp",
  }).end(body);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  const version = await browser.version();
  let header = false;
  for (const model of models) {
    const r = await page.evaluate(benchInPage, { model, runs: RUNS });
    if (!header) {
      console.log(`onnxruntime-web ${r.ortVersion} (wasm, SIMD, 1 thread) vs pt2onnx ${r.oursVersion} wasm executor ` +
        `in Chromium ${version} (headless, cross-origin isolated: ${r.isolated}); median of ${RUNS} samples ` +
        `after 3 warm-up runs, each sample a batch of >= 20 ms; ms per run`);
      console.log(TABLE_HEADER);
      header = true;
    }
    console.log(`${model.name.padEnd(16)} ${r.ours.toFixed(3).padStart(10)} ${r.ort.toFixed(3).padStart(10)} ` +
      `${(r.ours / r.ort).toFixed(2).padStart(9)}  ${r.diff.toExponential(2)}`);
  }
} finally {
  await browser.close();
  server.close();
}
