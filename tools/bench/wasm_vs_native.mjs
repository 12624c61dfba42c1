#!/usr/bin/env node
// Benchmark: the WebAssembly build against the native CLI, side by side in
// one run, and a multi-GB .pt2 converted in headless Chromium with the tab's
// peak memory.
//
//   node tools/bench/wasm_vs_native.mjs [--runs 5] [--large path/to/large.pt2 [--large-only]]
//
// Needs what tools/test.sh builds (out/bin/pt2onnx, out/wasm/package,
// out/web/site) and tests/web/node_modules (playwright-core). A large .pt2
// comes from tools/bench/large_model.py (needs torch). Times are medians of
// in-process runs of the same work on both sides, after a second of warm-up
// (in Chromium the columns take turns, one call each per run):
// native is //tools/bench:convert_bench (built here with -c opt: read,
// convert, write the ONNX bytes to memory), wasm is the Emscripten module's
// convert (the same work, output parts handed to JS); the whole API call is
// shown beside it, alone and with its result's Blob built: on bytes (run in
// place on the page's thread) and on a File from disk, as the page converts
// (sent to the module's worker, which reads it through FileReaderSync), and
// with its bytes taken as a Uint8Array (onnxBytes()) instead of a Blob.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { launchBrowser, startServer } from "../../tests/web/browser.mjs";
import { CLI, FIXTURES, PACKAGE, REPO, SITE, requireBuilt } from "../../tests/web/paths.mjs";

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(flag("--runs", "5"));
const LARGE = flag("--large", null);
const LARGE_ONLY = args.includes("--large-only");
const FIXTURE_NAMES = ["cnn", "resnet18_shaped", "gpt_block", "dynamic_batch_seq", "decomposed_cnn",
  "mlp_dict_list", "cnn_torch27"];

for (const [path, what] of [[CLI, "the CLI"], [join(PACKAGE, "pt2onnx.mjs"), "the package"],
  [join(SITE, "index.html"), "the page"]]) requireBuilt(path, what);

const ms = (s) => `${(s * 1000).toFixed(1)} ms`;
const gib = (bytes) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

// Median seconds per file of the native in-process benchmark.
function nativeMedians(inputs) {
  const bazel = (...a) => spawnSync("bazel", a, { encoding: "utf8", cwd: REPO });
  const built = bazel("build", "-c", "opt", "//tools/bench:convert_bench");
  if (built.status !== 0) throw new Error(`building convert_bench failed:\n${built.stderr}`);
  const bin = join(bazel("info", "-c", "opt", "bazel-bin").stdout.trim(), "tools", "bench", "convert_bench");
  const run = spawnSync(bin, [String(RUNS), ...inputs], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`convert_bench failed: ${run.stderr}`);
  return new Map(run.stdout.trim().split("\n").map((l) => l.split(" ")).map(([f, s]) => [f, Number(s)]));
}

// Wall seconds of the CLI converting `input` to `output`.
function nativeWall(input, output) {
  const t = performance.now();
  const run = spawnSync(CLI, [input, "-o", output, "-q"], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`pt2onnx failed: ${run.stderr}`);
  return (performance.now() - t) / 1000;
}

// Resident memory of every process descending from this one (Chromium's
// browser, renderer and helper processes), split by role.
function chromiumMemory() {
  const parent = new Map();
  const info = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const ppid = Number(status.match(/PPid:\s+(\d+)/)[1]);
      const rss = Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      parent.set(Number(pid), ppid);
      info.set(Number(pid), { rss, renderer: cmd.includes("--type=renderer") });
    } catch {
      // the process ended meanwhile
    }
  }
  const isOurs = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return p !== pid;
    return false;
  };
  let renderer = 0;
  let total = 0;
  for (const [pid, { rss, renderer: isRenderer }] of info) {
    if (!isOurs(pid)) continue;
    total += rss;
    if (isRenderer) renderer += rss;
  }
  return { renderer, total };
}

async function sha256(path) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest("hex");
}

// The Emscripten module under node, as pt2onnx.mjs loads it.
async function loadCore() {
  const { convert } = await import(join(PACKAGE, "pt2onnx.mjs"));
  await convert(readFileSync(join(FIXTURES, "cnn", "model.pt2")));  // sets up the glue's node globals
  const { default: create } = await import(join(PACKAGE, "pt2onnx-core.mjs"));
  return create({ wasmBinary: readFileSync(join(PACKAGE, "pt2onnx-core.wasm")) });
}

function bytesReader(bytes) {
  return { size: bytes.length, readInto(o, d) { d.set(bytes.subarray(o, o + d.length)); } };
}

// Median seconds of `f` over `runs` calls, after a second of warm-up: V8
// first runs wasm through its baseline compiler and tiers hot functions up to
// the optimizing one while they run. Self-contained, so the page gets the
// same function (by its source).
async function timedRuns(f, runs) {
  return (await interleavedRuns({ f }, runs)).f;
}

// The same for several functions { key: f }, one call of each in turn per
// run, so that a burst of load on this shared machine falls on every column
// alike instead of on the one being timed: { key: median seconds }.
async function interleavedRuns(fs, runs) {
  const entries = Object.entries(fs);
  for (const t0 = performance.now(); performance.now() - t0 < 1000;) for (const [, f] of entries) await f();
  const times = Object.fromEntries(entries.map(([key]) => [key, []]));
  for (let i = 0; i < runs; i++) {
    for (const [key, f] of entries) {
      const t = performance.now();
      await f();
      times[key].push((performance.now() - t) / 1000);
    }
  }
  return Object.fromEntries(entries.map(([key]) => [key, times[key].sort((a, b) => a - b)[Math.floor(runs / 2)]]));
}

const work = mkdtempSync(join(tmpdir(), "pt2onnx-bench-"));
const server = await startServer(SITE);
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.evaluate(async () => {
    window.pt2onnx = await import("./pt2onnx/pt2onnx.mjs");
    window.core = await (await import("./pt2onnx/pt2onnx-core.mjs")).default();
  });
  await page.evaluate(`window.interleavedRuns = ${interleavedRuns.toString()}`);
  await page.evaluate(() => {
    const input = Object.assign(document.createElement("input"), { type: "file", id: "bench-file", hidden: true });
    document.body.append(input);
  });

  if (!LARGE_ONLY) await compareFixtures(page);
  await page.close();
  if (LARGE) await convertLarge();
} finally {
  await browser.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
}

async function compareFixtures(page) {
  const os = await import("node:os");
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(", ");
  console.log(`pt2onnx wasm vs native (in process, -c opt), median of ${RUNS} runs after 1 s of warm-up ` +
    `(this machine: ${os.cpus().length} cores, load average ${load()})`);
  console.log("core = the converter writing the ONNX bytes to memory on both sides (like for like: the same");
  console.log("checks, arity and shape inference, as the CLI and the API run); convert(bytes) = the whole API call");
  console.log("on a Uint8Array, run in place on the page's thread; convert(File) = the whole call on a File from");
  console.log("disk, as the page makes it (sent to the worker, read there through FileReaderSync, the result sent");
  console.log("back); + Blob = then reading r.onnx (the result's Blobs are built when first read; through the");
  console.log("worker they are built on the page too); + bytes = then r.onnxBytes() (the model's bytes as a");
  console.log("Uint8Array, no Blob). Each cell: median time (its ratio to native).\n");
  const columns = [["node", "wasm core (node)"], ["chromium", "wasm core (Chromium)"], ["api", "convert(bytes)"],
    ["blob", "convert(bytes) + Blob"], ["bytes", "convert(bytes) + bytes"], ["file", "convert(File)"],
    ["fileBlob", "convert(File) + Blob"], ["fileBytes", "convert(File) + bytes"]];
  console.log(`| fixture | size | native | ${columns.map(([, title]) => title).join(" | ")} |`);
  console.log(`|---|---|---|${columns.map(() => "---|").join("")}`);
  const ratios = Object.fromEntries(columns.map(([key]) => [key, []]));
  const natives = nativeMedians(FIXTURE_NAMES.map((name) => join(FIXTURES, name, "model.pt2")));
  const core = await loadCore();
  for (const name of FIXTURE_NAMES) {
    const input = join(FIXTURES, name, "model.pt2");
    const bytes = new Uint8Array(readFileSync(input));
    const native = natives.get(input);
    const times = { node: await timedRuns(() => core.convert(bytesReader(bytes), { outputName: "model.onnx" }, undefined), RUNS) };
    await page.setInputFiles("#bench-file", input);
    Object.assign(times, await page.evaluate(async ({ b64, runs }) => {
      const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const file = document.getElementById("bench-file").files[0];
      const reader = { size: data.length, readInto(o, d) { d.set(data.subarray(o, o + d.length)); } };
      const onnxBytes = async (r) => (r.onnxBytes ? r.onnxBytes() : new Uint8Array(await r.onnx.arrayBuffer()));
      return window.interleavedRuns({
        chromium: () => window.core.convert(reader, { outputName: "model.onnx" }, undefined),
        api: () => window.pt2onnx.convert(data),
        blob: async () => (await window.pt2onnx.convert(data)).onnx,
        // The result's bytes without a Blob (older modules had no onnxBytes(): the Blob read back).
        bytes: async () => onnxBytes(await window.pt2onnx.convert(data)),
        file: () => window.pt2onnx.convert(file),
        fileBlob: async () => (await window.pt2onnx.convert(file)).onnx,
        fileBytes: async () => onnxBytes(await window.pt2onnx.convert(file)),
      }, runs);
    }, { b64: Buffer.from(bytes).toString("base64"), runs: RUNS }));
    for (const [key] of columns) ratios[key].push(times[key] / native);
    console.log(`| ${name} | ${(bytes.length / 1024).toFixed(0)} KiB | ${ms(native)} | ` +
      `${columns.map(([key]) => `${ms(times[key])} (${(times[key] / native).toFixed(2)}x)`).join(" | ")} |`);
  }
  const geo = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
  console.log(`| geometric mean | | | ${columns.map(([key]) => `**${geo(ratios[key]).toFixed(2)}x**`).join(" | ")} |`);
  console.log(`\ngeometric mean wasm/native: core in node ${geo(ratios.node).toFixed(2)}x, in Chromium ` +
    `${geo(ratios.chromium).toFixed(2)}x (goal: within 2x); whole convert() in Chromium (goal: within 1.5x) on bytes ` +
    `${geo(ratios.api).toFixed(2)}x, on a File ${geo(ratios.file).toFixed(2)}x; with the Blob built ` +
    `${geo(ratios.blob).toFixed(2)}x and ${geo(ratios.fileBlob).toFixed(2)}x; with the bytes read (onnxBytes()) ` +
    `${geo(ratios.bytes).toFixed(2)}x and ${geo(ratios.fileBytes).toFixed(2)}x (load average now ${load()})`);
}

// The large model converted by the CLI and by the page, timed, with the tab's
// peak memory; the page's downloads compared with the CLI's files.
async function convertLarge() {
  {
    if (!existsSync(LARGE)) throw new Error(`no such file: ${LARGE}`);
    const size = statSync(LARGE).size;
    console.log(`\nlarge model: ${LARGE} (${gib(size)})`);
    const nativeDir = mkdtempSync(join(work, "native-"));
    // Named as the page names its download, so the two outputs compare file by file.
    const base = LARGE.split("/").pop().replace(/\.pt2$/, "");
    const nativeTime = nativeWall(LARGE, join(nativeDir, `${base}.onnx`));
    console.log(`native CLI: ${nativeTime.toFixed(2)} s (wall, process)`);

    const context = await browser.newContext({ acceptDownloads: true });
    const tab = await context.newPage();
    await tab.goto(server.url);
    await tab.waitForSelector('body[data-state="idle"]');
    const before = chromiumMemory();
    let peak = { ...before };
    const sampler = setInterval(() => {
      const m = chromiumMemory();
      peak = { renderer: Math.max(peak.renderer, m.renderer), total: Math.max(peak.total, m.total) };
    }, 50);
    await tab.setInputFiles("#file-input", LARGE);
    const t = performance.now();
    await tab.click("#convert");
    await tab.waitForSelector('body[data-state="done"], body[data-state="error"]', { timeout: 600_000 });
    const seconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    const state = await tab.evaluate(() => document.body.dataset.state);
    if (state !== "done") throw new Error(`conversion failed: ${await tab.textContent("#error-message")}`);
    console.log(`Chromium page: ${seconds.toFixed(2)} s from click to result ` +
      `(${(seconds / nativeTime).toFixed(2)}x native)`);
    console.log(`peak memory during conversion: renderer processes (tab + its worker) ${mib(peak.renderer)} ` +
      `(${mib(before.renderer)} before), all Chromium processes ${mib(peak.total)} ` +
      `(${mib(before.total)} before); the input is ${gib(size)}`);

    const downloads = [];
    for (const selector of ["#download-onnx", "#download-data"]) {
      if (!(await tab.isVisible(selector))) continue;
      const [d] = await Promise.all([tab.waitForEvent("download"), tab.click(selector)]);
      downloads.push({ name: d.suggestedFilename(), path: await d.path() });
    }
    for (const d of downloads) {
      const same = (await sha256(d.path)) === (await sha256(join(nativeDir, d.name)));
      console.log(`download ${d.name}: ${gib(statSync(d.path).size)}, ${same ? "identical to" : "DIFFERS from"} the CLI's`);
      if (!same) process.exitCode = 1;
    }
    await context.close();
  }
}
