// The time --verify adds, natively and in Chromium (median of N runs each):
//   node tests/web/verify-timing.mjs [--runs 5] [fixture ...]   (default: resnet18_shaped gpt_block)
// Natively: `pt2onnx model.pt2 -o m.onnx -q` against the same with --verify (wall clock of the process).
// In the page: convert() and verify() of the module (its worker), timed on the page, and the part of
// verify() after its own conversion (its report's "verify: ..." stages). verify() copies the .pt2 into
// wasm memory at once where convert() reads a File piece by piece, so the two totals compare poorly.
// Both use the inputs --verify picks (the archive's example inputs, else seeded).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser, startServer } from "./browser.mjs";
import { CLI, FIXTURES, SITE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(SITE, "index.html"), "the page (bazel build //web:site)");

const args = process.argv.slice(2);
let runs = 5;
const runsAt = args.indexOf("--runs");
if (runsAt >= 0) runs = Number(args.splice(runsAt, 2)[1]);
const names = args.length ? args : ["resnet18_shaped", "gpt_block"];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;

function nativeMs(model, extra) {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-timing-"));
  try {
    const t0 = process.hrtime.bigint();
    const run = spawnSync(CLI, [model, "-o", join(dir, "m.onnx"), "-q", ...extra], { encoding: "utf8" });
    const t = Number(process.hrtime.bigint() - t0) / 1e6;
    if (run.status !== 0) throw new Error(run.stderr);
    return t;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const server = await startServer(SITE);
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForSelector('body[data-state="idle"]');
  for (const name of names) {
    const model = join(FIXTURES, name, "model.pt2");
    const plain = [], verified = [];
    for (let i = 0; i < runs; ++i) {
      plain.push(nativeMs(model, []));
      verified.push(nativeMs(model, ["--verify"]));
    }
    const bytes = [...readFileSync(model)];
    const browserTimes = await page.evaluate(async ({ bytes, runs }) => {
      const m = await import("./pt2onnx/pt2onnx.mjs");
      const file = new File([new Uint8Array(bytes)], "model.pt2");
      await m.convert(file);  // loads the worker and the .wasm
      const convert = [], verify = [], stages = [];
      for (let i = 0; i < runs; ++i) {
        let t0 = performance.now();
        await m.convert(file);
        convert.push(performance.now() - t0);
        t0 = performance.now();
        const r = await m.verify(file);
        verify.push(performance.now() - t0);
        if (!r.passed) throw new Error(r.message);
        // Inside verify(): the two engines and the comparison, after its own conversion.
        stages.push(1000 * r.timings.filter((t) => t.stage.startsWith("verify: ")).reduce((a, t) => a + t.seconds, 0));
      }
      return { convert, verify, stages };
    }, { bytes, runs });
    const n = { plain: median(plain), verify: median(verified) };
    const b = { plain: median(browserTimes.convert), verify: median(browserTimes.verify),
      stages: median(browserTimes.stages) };
    console.log(`${name}: native ${ms(n.plain)} -> ${ms(n.verify)} with --verify (+${ms(n.verify - n.plain)}); ` +
      `Chromium convert() ${ms(b.plain)}, verify() ${ms(b.verify)} of which reference + executor + compare ` +
      `${ms(b.stages)}; median of ${runs}`);
  }
} finally {
  await browser.close();
  await server.close();
}
