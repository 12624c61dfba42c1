// The page in real headless Chromium: upload each fixture, wait for the
// result, download, and compare with what the native CLI writes for the same
// options; corrupt and unsupported files are refused with clear reasons as soon as they are chosen.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { realModels } from "./models.mjs";
import { pageHarness } from "./page-harness.mjs";
import { CLI, FIXTURES, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
const { openPage, convert, consoleErrors } = pageHarness();

// Sets the page's option controls for `options` (the API's names), once a file is chosen: choosing a file
// clears the file-specific ones, and dimensions are named in the inspect view.
async function setOptions(page, options) {
  if (Object.keys(options).length === 0) return;
  await page.evaluate(() => { document.getElementById("options").open = true; });
  if (options.opset !== undefined) await page.selectOption("#opt-opset", String(options.opset));
  if (options.externalData !== undefined) await page.selectOption("#opt-external", options.externalData);
  if (options.inputNames) await page.fill("#opt-input-names", options.inputNames.join(", "));
  if (options.outputNames) await page.fill("#opt-output-names", options.outputNames.join(", "));
  for (const [symbol, name] of Object.entries(options.dimNames ?? {})) {
    await page.fill(`#inspect input[data-symbol="${symbol}"]`, name);
  }
  if (options.optimize === false) await page.uncheck("#opt-optimize");
}

async function convertIn(page, path, options = {}) {
  return convert(page, async () => {
    await page.setInputFiles("#file-input", path);
    if (options.dimNames) await page.waitForSelector("#inspect-body:not([hidden])");
    await setOptions(page, options);
    await page.click("#convert");
  });
}

// Chooses `path` and waits for what inspect() says: its description, or why the file is refused.
async function inspectIn(page, path) {
  await page.setInputFiles("#file-input", path);
  await page.waitForSelector("#inspect-body:not([hidden]), #inspect-refused:not([hidden])");
}

async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
}

const CASES = [
  ["cnn", {}],
  ["resnet18_shaped", { opset: 18 }],
  ["gpt_block", { externalData: "always" }],
  ["dynamic_batch_seq", { dimNames: { s54: "batch" }, inputNames: ["tokens"] }],
  ["mlp_dict_list", { outputNames: ["y0"], optimize: false }],
  ["strided_weights", {}],
  ["decomposed_cnn", { externalData: "always" }],
  ["dtypes", {}],
  ["cnn_torch27", {}],
  ["cnn_torch28", { opset: 23 }],
  ["mlp_dict_list_torch27", {}],
  ["mlp_dict_list_torch28", { opset: 19 }],
  ["cnn", { opset: 24 }],
  ["gpt_block", { opset: 26 }],
];

for (const [name, options] of CASES) {
  test(`page: ${name} ${JSON.stringify(options)} downloads the CLI's exact bytes`, async () => {
    // The page names the output after the uploaded file, like the CLI's default.
    const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-"));
    const upload = join(dir, `${name}.pt2`);
    writeFileSync(upload, readFileSync(join(FIXTURES, name, "model.pt2")));
    const expected = runCli(upload, `${name}.onnx`, options);
    assert.equal(expected.status, 0, expected.stderr);

    const page = await openPage();
    assert.equal(await convertIn(page, upload, options), "done", await page.textContent("body"));
    const onnx = await download(page, "#download-onnx");
    assert.equal(onnx.name, `${name}.onnx`);
    assert.ok(onnx.bytes.equals(expected.onnx), `${name}: downloaded .onnx differs from the CLI's`);
    if (expected.data === null) {
      assert.ok(!(await page.isVisible("#download-data")), "no data file expected");
    } else {
      const data = await download(page, "#download-data");
      assert.equal(data.name, `${name}.onnx.data`);
      assert.ok(data.bytes.equals(expected.data), `${name}: downloaded .onnx.data differs`);
    }
    const summary = await page.textContent("#summary");
    assert.match(summary, /float32|int64|bfloat16/);
    const optimized = (await page.textContent("#sum-optimized")).match(/^([\d,]+) → ([\d,]+)$/);
    assert.ok(optimized, "the optimizer's node counts, translated → optimized");
    assert.ok(Number(optimized[1].replace(/,/g, "")) >= Number(optimized[2].replace(/,/g, "")));
    assert.match(await page.textContent("#report"), /translated \d+ FX nodes/);
    await page.context().close();
  });
}

// The real-model zoo: every model that converts (no "blocked_by") downloads the CLI's bytes.
test("page: every real-model fixture that converts downloads the CLI's exact bytes", async () => {
  const models = realModels().filter((m) => m.blockedBy.length === 0);
  assert.ok(models.length >= 10, `only ${models.length} convertible real-model fixtures`);
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-"));
  const mismatched = [];
  for (const { name, path } of models) {
    const upload = join(dir, `${name}.pt2`);
    writeFileSync(upload, readFileSync(path));
    const expected = runCli(upload, `${name}.onnx`);
    assert.equal(expected.status, 0, `${name}: ${expected.stderr}`);
    const page = await openPage();
    assert.equal(await convertIn(page, upload), "done", `${name}: ${await page.textContent("body")}`);
    const onnx = await download(page, "#download-onnx");
    if (onnx.name !== `${name}.onnx` || !onnx.bytes.equals(expected.onnx)) mismatched.push(name);
    await page.context().close();
  }
  assert.deepEqual(mismatched, []);
});

test("page: a corrupt file shows the CLI's error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-"));
  const bytes = readFileSync(join(FIXTURES, "cnn", "model.pt2"));
  const broken = join(dir, "broken.pt2");
  writeFileSync(broken, bytes.subarray(0, bytes.length - 100));
  const cli = runCli(broken, "broken.onnx");
  assert.equal(cli.status, 4);

  const page = await openPage();
  await inspectIn(page, broken);
  const message = (await page.textContent("#inspect-refused-message")).trim();
  assert.equal(`pt2onnx: error: ${message}`, cli.stderr.trim());
  assert.equal(await page.getAttribute("#inspect-refused", "data-code"), "invalid_input");
  assert.ok(await page.isDisabled("#convert"));
  assert.ok(!(await page.isVisible("#download-onnx")));
  await page.context().close();
});

test("page: a text file is refused with advice", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-"));
  const notes = join(dir, "notes.txt");
  writeFileSync(notes, "not a model");
  const page = await openPage();
  await inspectIn(page, notes);
  assert.match(await page.textContent("#inspect-refused-message"), /not a \.pt2 file/);
  assert.ok(!(await page.isVisible("#file-warning")), "the refusal says it: no second warning");
  await page.context().close();
});

test("page: a file from torch 2.5 is refused with the advice to re-export", async () => {
  const page = await openPage();
  await inspectIn(page, join(FIXTURES, "cnn_torch25", "model.pt2"));
  assert.match(await page.textContent("#inspect-refused-message"), /re-export/);
  await page.context().close();
});

test("page: a clashing output rename points at the Options, not the file", async () => {
  const page = await openPage();
  const state = await convertIn(page, join(FIXTURES, "named_dims", "model.pt2"), { outputNames: ["x"] });
  assert.equal(state, "error");
  assert.equal(await page.getAttribute("#error", "data-code"), "invalid_input");
  assert.match(await page.textContent("#error-advice"), /Check the names/);
  await page.context().close();
});

test("page: unsupported operators are listed before converting", async () => {
  const page = await openPage();
  await inspectIn(page, join(FIXTURES, "unsupported_aten_op", "model.pt2"));
  const ops = await page.$$eval("#inspect-unsupported-ops li", (items) => items.map((li) => li.textContent));
  assert.ok(ops.length >= 1);
  assert.ok(ops.every((op) => op.startsWith("aten::")), ops.join("; "));
  assert.ok(await page.isDisabled("#convert"));
  await page.context().close();
});

test("page: no console errors", () => {
  assert.deepEqual(consoleErrors, []);
});
