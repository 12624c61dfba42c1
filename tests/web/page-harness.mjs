// The page tests' shared set-up: one static server for the site and one
// headless Chromium per test file (started before its tests, closed after),
// a fresh page per test, and the console errors of every page, which each
// file asserts empty in its last test.
//
//   import { pageHarness } from "./page-harness.mjs";
//   const harness = pageHarness();
//   test("...", async () => {
//     const page = await harness.openPage();
//     ...
//   });
//   test("no console errors", () => assert.deepEqual(harness.consoleErrors, []));
//
// harness.convert(page, steps) runs a conversion's steps and waits for its outcome; see there for what
// happens when a page shows none in time.
import { join } from "node:path";
import { after, before } from "node:test";
import { launchBrowser, startServer } from "./browser.mjs";
import { SITE, requireBuilt } from "./paths.mjs";

export function pageHarness(site = SITE) {
  requireBuilt(join(site, "index.html"), "the page (bazel build //web:site)");
  let server;
  let browser;
  const consoleErrors = [];

  before(async () => {
    server = await startServer(site);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const logs = new WeakMap();  // page -> its last console lines and unfinished requests, for a stall's report
  let stalls = 0;

  // A fresh page (its own context, worker and wasm memory), loaded and idle.
  async function openPage() {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const log = { lines: [], pending: new Set() };
    logs.set(page, log);
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
      log.lines.push(`${m.type()}: ${m.text()}`);
      if (log.lines.length > 30) log.lines.shift();
    });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    page.on("request", (r) => log.pending.add(r.url()));
    page.on("requestfinished", (r) => log.pending.delete(r.url()));
    page.on("requestfailed", (r) => { log.pending.delete(r.url()); log.lines.push(`request failed: ${r.url()}`); });
    await page.goto(server.url);
    await page.waitForSelector('body[data-state="idle"]');
    return page;
  }

  // What a page shows while no outcome comes: its state, progress, workers, console and open requests.
  async function describe(page) {
    const shown = await page.evaluate(() => ({
      state: document.body.dataset.state,
      progress: document.getElementById("progress-label")?.textContent,
      error: document.getElementById("error-message")?.textContent,
    })).catch((e) => ({ unreadable: String(e) }));
    const log = logs.get(page) ?? { lines: [], pending: new Set() };
    return JSON.stringify({ ...shown, workers: page.workers().map((w) => w.url()), pendingRequests: [...log.pending],
      console: log.lines }, null, 1);
  }

  // Runs `steps(page)` (choose the file, set options, click Convert) and waits up to `timeout` ms for
  // body's data-state to be one of `states`; returns it. A conversion that shows no outcome in time (seen
  // once in CI on a file that converts in under a second everywhere else) is reported on stderr with what
  // the page showed, and its steps run once more in the reloaded page; a second stall in the same test
  // file fails the test with both reports.
  async function convert(page, steps, { states = ["done", "error"], timeout = 60_000 } = {}) {
    const selector = states.map((s) => `body[data-state="${s}"]`).join(", ");
    const attempt = async () => {
      await steps(page);
      await page.waitForSelector(selector, { timeout });
      return page.evaluate(() => document.body.dataset.state);
    };
    try {
      return await attempt();
    } catch (err) {
      if (err?.name !== "TimeoutError") throw err;
      const report = await describe(page);
      stalls++;
      process.stderr.write(`# page stall ${stalls} (no outcome within ${timeout} ms): ${report}\n`);
      if (stalls > 1) throw new Error(`a second page stall in this file: ${report}`);
      await page.reload();
      await page.waitForSelector('body[data-state="idle"]');
      return attempt();
    }
  }

  return { openPage, convert, consoleErrors, get url() { return server.url; } };
}
