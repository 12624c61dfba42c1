#!/usr/bin/env node
// Takes the README's screenshots from the real page (out/web/site, built by
// tools/test.sh) in headless Chromium: the inspect view before converting, a
// finished conversion (light and dark), the error for a model with unsupported
// operators, a batch of three with the first cancelled, and a phone's width.
//
//   node tools/web/screenshots.mjs [--out web/screenshots]
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser, startServer } from "../../tests/web/browser.mjs";
import { FIXTURES, REPO, SITE, requireBuilt } from "../../tests/web/paths.mjs";

const i = process.argv.indexOf("--out");
const out = i >= 0 ? process.argv[i + 1] : join(REPO, "web", "screenshots");
requireBuilt(join(SITE, "index.html"), "the page");
mkdirSync(out, { recursive: true });
// Upload under the fixture's name, as a user's file would be named.
const uploads = mkdtempSync(join(tmpdir(), "pt2onnx-shots-"));
const upload = (name) => {
  const path = join(uploads, `${name}.pt2`);
  copyFileSync(join(FIXTURES, name, "model.pt2"), path);
  return path;
};

const server = await startServer(SITE);
const browser = await launchBrowser();
try {
  for (const scheme of ["light", "dark"]) {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, colorScheme: scheme });
    await page.goto(server.url);
    await page.waitForSelector('body[data-state="idle"]');
    await page.waitForFunction(() => document.getElementById("version").textContent !== "");
    await page.setInputFiles("#file-input", upload("gpt_block"));
    await page.waitForSelector("#inspect-body:not([hidden])");
    await page.click("#convert");
    await page.waitForSelector('body[data-state="done"]');
    await page.screenshot({ path: join(out, `result-${scheme}.png`), fullPage: true });
    await page.close();
  }
  const ready = (page) => page.waitForFunction(() => document.getElementById("version").textContent !== "");

  let page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await page.goto(server.url);
  await ready(page);
  await page.setInputFiles("#file-input", upload("named_dims"));
  await page.waitForSelector("#inspect-body:not([hidden])");
  await page.fill('#inspect input[data-symbol="s31"]', "batch");
  await page.fill('#inspect input[data-symbol="s27"]', "seq");
  await page.screenshot({ path: join(out, "inspect.png"), fullPage: true });
  await page.close();

  page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  await page.goto(server.url);
  await ready(page);
  await page.setInputFiles("#file-input", upload("unsupported_aten_op"));
  await page.waitForSelector("#inspect-body:not([hidden])");
  await page.click("#convert");
  await page.waitForSelector('body[data-state="error"]');
  await page.screenshot({ path: join(out, "unsupported.png"), fullPage: true });
  await page.close();

  page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  await page.goto(server.url);
  await ready(page);
  await page.setInputFiles("#file-input", ["gpt_block", "cnn", "mlp_dict_list"].map(upload));
  await page.evaluate(() => {
    document.getElementById("convert").click();
    document.querySelector('#queue-list li[data-index="0"] .cancel').click();
  });
  await page.waitForSelector('body[data-state="batch-done"]');
  await page.click("#download-all");
  await page.waitForSelector("#zip-link:not([hidden])");
  await page.screenshot({ path: join(out, "batch.png"), fullPage: true });
  await page.close();

  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(server.url);
  await ready(page);
  await page.setInputFiles("#file-input", upload("named_dims"));
  await page.waitForSelector("#inspect-body:not([hidden])");
  await page.click("#convert");
  await page.waitForSelector('body[data-state="done"]');
  await page.screenshot({ path: join(out, "narrow.png"), fullPage: true });
  await page.close();
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  await server.close();
}
