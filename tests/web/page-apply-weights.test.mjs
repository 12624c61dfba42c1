// The page's "Apply weights": a graph-only ONNX model (written by the CLI with --no-weights) and another .pt2
// of the same program, picked on the page in headless Chromium; the downloads must be the bytes of a direct
// conversion of that .pt2 by the native CLI. A .pt2 that does not fit shows the CLI's error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, startServer } from "./browser.mjs";
import { runCli } from "./cli.mjs";
import { CLI, FIXTURES, SITE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(SITE, "index.html"), "the page (bazel build //web:site)");

const SWAP = join(FIXTURES, "weight_swap");
let server;
let browser;
let work;

before(async () => {
  server = await startServer(SITE);
  browser = await launchBrowser();
  work = mkdtempSync(join(tmpdir(), "pt2onnx-page-apply-"));
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

async function openPage() {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForSelector('body[data-state="idle"]');
  return page;
}

async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
}

// The graph of `pt2` without weights, written by the CLI as `work/<name>`.
function graphOnly(pt2, name, flags = []) {
  const out = join(work, name);
  const run = spawnSync(CLI, [pt2, "-o", out, "-q", "--no-weights", ...flags], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return out;
}

const CASES = [
  { base: "base.pt2", tuned: "finetuned.pt2", options: {} },
  { base: "base.pt2", tuned: "finetuned.pt2", options: { externalData: "always" } },
  { base: "folded_base.pt2", tuned: "folded_finetuned.pt2", options: { optimize: false } },
];

for (const { base, tuned, options } of CASES) {
  test(`Apply weights on the page = direct conversion: ${base} -> ${tuned} ${JSON.stringify(options)}`, async () => {
    const graph = graphOnly(join(SWAP, base), "m.onnx", options.optimize === false ? ["--no-optimize"] : []);
    const page = await openPage();
    if (options.externalData || options.optimize === false) await page.click("#options summary");
    if (options.externalData) await page.selectOption("#opt-external", options.externalData);
    if (options.optimize === false) await page.uncheck("#opt-optimize");
    assert.ok(await page.isDisabled("#apply-run"));
    await page.setInputFiles("#apply-onnx", graph);
    await page.setInputFiles("#apply-pt2", join(SWAP, tuned));
    await page.click("#apply-run");
    await page.waitForSelector('body[data-apply="done"], body[data-apply="error"]');
    assert.equal(await page.evaluate(() => document.body.dataset.apply), "done",
      await page.textContent("#apply-error"));
    const direct = runCli(join(SWAP, tuned), "m.onnx", options);
    assert.equal(direct.status, 0, direct.stderr);
    const onnx = await download(page, "#apply-download-onnx");
    assert.equal(onnx.name, "m.onnx");
    assert.ok(onnx.bytes.equals(direct.onnx), "the .onnx differs from the CLI's direct conversion");
    if (direct.data) {
      const data = await download(page, "#apply-download-data");
      assert.equal(data.name, "m.onnx.data");
      assert.ok(data.bytes.equals(direct.data), "the .onnx.data differs from the CLI's direct conversion");
    } else {
      assert.ok(!(await page.isVisible("#apply-download-data")));
    }
    await page.context().close();
  });
}

test("Apply weights on the page: a .pt2 of another program is refused with the CLI's message", async () => {
  const graph = graphOnly(join(SWAP, "base.pt2"), "g.onnx");
  const page = await openPage();
  await page.setInputFiles("#apply-onnx", graph);
  await page.setInputFiles("#apply-pt2", join(SWAP, "wider.pt2"));
  await page.click("#apply-run");
  await page.waitForSelector('body[data-apply="error"]');
  const message = await page.textContent("#apply-error");
  assert.match(message, /do not fit/);
  assert.doesNotMatch(message, /invalid_input|exit code/);  // what happened, not the CLI's codes
  assert.equal(await page.getAttribute("#apply-error", "data-code"), "invalid_input");
  assert.ok(!(await page.isVisible("#apply-download-onnx")));
  await page.context().close();
});
