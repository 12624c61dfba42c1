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

  // A fresh page (its own context, worker and wasm memory), loaded and idle.
  async function openPage() {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    await page.goto(server.url);
    await page.waitForSelector('body[data-state="idle"]');
    return page;
  }

  return { openPage, consoleErrors, get url() { return server.url; } };
}
