// The page's Verify action in headless Chromium: convert, click Verify, read
// the table (one row per compared value, histograms as 9-bar charts), the
// verdict, and download the report, whose verification section is the CLI's.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pageHarness } from "./page-harness.mjs";
import { CLI, FIXTURES, requireBuilt } from "./paths.mjs";
import { assertSameAsCli } from "./verify-compare.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
const { openPage, convert, consoleErrors } = pageHarness();

async function convertedPage(name) {
  const page = await openPage();
  const state = await convert(page, async () => {
    await page.setInputFiles("#file-input", join(FIXTURES, name, "model.pt2"));
    await page.click("#convert");
  });
  assert.equal(state, "done", await page.textContent("body"));
  return page;
}

function cliReport(name, flag) {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-verify-"));
  const run = spawnSync(CLI, [join(FIXTURES, name, "model.pt2"), "-o", join(dir, "m.onnx"), "-q", flag,
    `--report=${join(dir, "r.md")}`], { encoding: "utf8" });
  return { status: run.status, stderr: run.stderr, report: readFileSync(join(dir, "r.md"), "utf8"), absJson: null };
}

// Half precision (judged in its dtype's units) and a PT2E-quantized CNN (QDQ) verify in the page as
// in the CLI. The quantized CNN's int8 steps leave its output a few ulps from the reference's, so
// verify compares the intermediates too (as it does whenever the outputs are not bit-identical).
const INTERMEDIATES_SHOWN = new Set(["quantized/pt2e_resnet"]);
for (const [name, intermediates] of [["gpt_block", false], ["cnn", true], ["half/qwen3_bf16", false],
  ["half/mixed_casts", true], ["quantized/pt2e_resnet", false]]) {
  test(`page: Verify on ${name}${intermediates ? " with intermediates" : ""} shows the table and the CLI's report`,
    async () => {
      const page = await convertedPage(name);
      assert.ok(await page.isVisible("#verify-run"));
      if (intermediates) await page.check("#verify-intermediates");
      await page.click("#verify-run");
      await page.waitForSelector('#verify[data-state="passed"], #verify[data-state="failed"], #verify[data-state="error"]',
        { timeout: 120_000 });
      assert.equal(await page.getAttribute("#verify", "data-state"), "passed", await page.textContent("#verify"));
      assert.match(await page.textContent("#verify-verdict"), /Passed/);
      const rows = await page.$$eval("#verify-rows tr", (trs) => trs.map((tr) => ({
        cells: [...tr.children].map((td) => td.textContent),
        bars: [...tr.querySelectorAll("svg")].map((svg) => svg.querySelectorAll("rect").length),
        passed: tr.dataset.passed,
      })));
      const outputs = rows.filter((r) => r.cells[1] === "output");
      assert.ok(outputs.length >= 1);
      assert.equal(rows.length > outputs.length, intermediates || INTERMEDIATES_SHOWN.has(name));
      for (const r of rows) {
        assert.deepEqual(r.bars, [9, 9]);
        assert.ok(Number.isFinite(Number(r.cells[2])) && Number.isFinite(Number(r.cells[3])), r.cells.join(" | "));
      }
      for (const r of outputs) assert.equal(r.passed, "true");

      const [file] = await Promise.all([page.waitForEvent("download"), page.click("#verify-download")]);
      assert.equal(file.suggestedFilename(), "model_report.md");
      const report = readFileSync(await file.path(), "utf8");
      assertSameAsCli({ exitCode: 0, report }, cliReport(name, intermediates ? "--verify-intermediates" : "--verify"));
      await page.context().close();
    });
}

test("page: a cancelled Verify can be run again", async () => {
  const page = await convertedPage("resnet18_shaped");
  // Both clicks in one task: a verification can end before a second round trip would click Cancel.
  await page.evaluate(() => {
    document.getElementById("verify-run").click();
    document.getElementById("verify-cancel").click();
  });
  assert.equal(await page.getAttribute("#verify", "data-state"), "cancelled");
  assert.match(await page.textContent("#verify-status"), /Cancelled/);
  await page.click("#verify-run");
  await page.waitForSelector('#verify[data-state="passed"]', { timeout: 120_000 });
  await page.context().close();
});

test("page: no console errors while verifying", () => {
  assert.deepEqual(consoleErrors, []);
});
