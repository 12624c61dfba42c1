#!/usr/bin/env node
// Takes the README's screenshots from the real page (out/web/site, built by
// tools/test.sh) in headless Chromium: a finished conversion, and the error
// for a model with unsupported operators.
//
//   node tools/web/screenshots.mjs [--out web/screenshots]
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, startServer } from "../../tests/web/browser.mjs";
import { FIXTURES, REPO, SITE, requireBuilt } from "../../tests/web/paths.mjs";

const i = process.argv.indexOf("--out");
const out = i >= 0 ? process.argv[i + 1] : join(REPO, "web", "screenshots");
requireBuilt(join(SITE, "index.html"), "the page");
mkdirSync(out, { recursive: true });

const server = await startServer(SITE);
const browser = await launchBrowser();
try {
  for (const scheme of ["light", "dark"]) {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, colorScheme: scheme });
    await page.goto(server.url);
    await page.waitForSelector('body[data-state="idle"]');
    if (scheme === "light") await page.screenshot({ path: join(out, "start.png") });
    await page.setInputFiles("#file-input", join(FIXTURES, "gpt_block", "model.pt2"));
    await page.click("#convert");
    await page.waitForSelector('body[data-state="done"]');
    await page.screenshot({ path: join(out, `result-${scheme}.png`), fullPage: true });
    await page.close();
  }
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  await page.goto(server.url);
  await page.setInputFiles("#file-input", join(FIXTURES, "unsupported_aten_op", "model.pt2"));
  await page.click("#convert");
  await page.waitForSelector('body[data-state="error"]');
  await page.screenshot({ path: join(out, "unsupported.png"), fullPage: true });
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  await server.close();
}
