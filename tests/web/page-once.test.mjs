// The page says one thing once, as a new user meets it (headless Chromium, 1280 and 390 px wide): a refused
// file's reason shown once, with no Convert offered, and the CLI's own cause (an empty file is "empty"); no
// CLI exit codes or unlinked trackers; a graph-only result named and labelled as such; the result's counts
// explained against the inspection's; name counts checked as soon as the inspection is known; at 390 px
// names that wrap between their parts and a Verify table that keeps its Status column in sight.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { pageHarness } from "./page-harness.mjs";
import { CLI, FIXTURES, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
const { openPage, convert, consoleErrors } = pageHarness();
const work = mkdtempSync(join(tmpdir(), "pt2onnx-once-"));

// A fixture under a user's file name.
function upload(fixture, name) {
  const path = join(work, name);
  copyFileSync(join(FIXTURES, fixture, "model.pt2"), path);
  return path;
}

const cliJson = (args) => {
  const run = spawnSync(CLI, [...args, "--json"], { encoding: "utf8" });
  return JSON.parse(run.stdout);
};

async function choose(page, path) {
  await page.setInputFiles("#file-input", path);
  await page.waitForSelector("#inspect-body:not([hidden]), #inspect-refused:not([hidden])");
}

// How often `text` occurs in what the page shows (hidden elements excluded).
const shownCount = (page, text) => page.evaluate((t) => document.body.innerText.split(t).length - 1, text);

test("an empty file: the CLI's cause (the file is empty), said once, and no conversion offered", async () => {
  const empty = join(work, "empty.pt2");
  writeFileSync(empty, "");
  const cli = spawnSync(CLI, [empty, "-q", "-o", join(work, "empty.onnx")], { encoding: "utf8" });
  assert.equal(cli.status, 4);
  const cause = cli.stderr.trim().replace(/^pt2onnx: error: /, "");
  assert.match(cause, /the file is empty \(0 bytes\)/);
  assert.doesNotMatch(cause, /ZIP/);

  const page = await openPage();
  await choose(page, empty);
  assert.equal(await page.textContent("#inspect-refused-message"), cause);
  assert.equal(await shownCount(page, "the file is empty"), 1);
  assert.ok(await page.isDisabled("#convert"));
  assert.doesNotMatch(await page.textContent("#convert"), /again/);
  assert.match(await page.textContent("#convert-hint"), /choose another file/);
  assert.ok(!(await page.isVisible("#error")));
  await page.context().close();
});

test("unsupported operators: listed once with one advice and the supported list, no Convert offered", async () => {
  const path = upload("unsupported_aten_op", "eye.pt2");
  const inspected = cliJson([path, "--inspect"]);
  const page = await openPage();
  await choose(page, path);
  assert.ok(await page.isVisible("#inspect-unsupported"));
  assert.equal(await page.textContent("#inspect-advice"), inspected.advice);
  assert.equal(await shownCount(page, inspected.advice), 1);
  for (const { key } of inspected.unsupported) assert.equal(await shownCount(page, key), 1, key);
  assert.ok(await page.isDisabled("#convert"));
  assert.match(await page.textContent("#convert-hint"), /operators are translated/);
  // The supported list is beside the unsupported ones, with the same advice when a search finds nothing.
  assert.ok(await page.isVisible("#inspect-unsupported #supported-ops"));
  await page.click("#supported-ops summary");
  await page.waitForSelector("#supported-ops-filter:visible");
  await page.fill("#supported-ops-filter", "no_such_op_at_all");
  assert.equal(await page.textContent("#supported-ops-status"),
    `No supported overload matches "no_such_op_at_all": it is not supported yet. ${inspected.advice}`);
  await page.context().close();
});

test("a failed conversion is not offered again until the file or an option changes", async () => {
  const page = await openPage();
  await choose(page, upload("named_dims", "clash.pt2"));
  await page.evaluate(() => { document.getElementById("options").open = true; });
  await page.fill("#opt-output-names", "x");  // an output named like an input: only the converter sees it
  const state = await convert(page, () => page.click("#convert"));
  assert.equal(state, "error");
  assert.equal(await page.textContent("#convert"), "Convert to ONNX");
  assert.ok(await page.isDisabled("#convert"));
  assert.match(await page.textContent("#convert-hint"), /Change the file or an option/);
  assert.match(await page.textContent("#error-advice"), /Check the names/);
  await page.fill("#opt-output-names", "y");
  assert.ok(!(await page.isDisabled("#convert")));
  assert.ok(!(await page.isVisible("#convert-hint")));
  await page.context().close();
});

test("no CLI exit codes and no tracker without a link: what happened and what to do", async () => {
  const page = await openPage();
  await choose(page, upload("unsupported_aten_op", "eye2.pt2"));
  const words = /exit code|issue tracker|\(exit \d\)|invalid_input|unsupported \(/i;
  assert.doesNotMatch(await page.evaluate(() => document.body.innerText), words);
  // A conversion error, through a batch (no inspection first): the message and advice, no codes.
  await page.setInputFiles("#file-input", [join(work, "eye2.pt2"), upload("cnn", "cnn.pt2")]);
  await convert(page, () => page.click("#convert"), { states: ["batch-done"] });
  await page.click('#queue-list li[data-index="0"] .details');
  await page.waitForSelector("#error:not([hidden])");
  const shown = await page.evaluate(() => document.getElementById("error").innerText);
  assert.doesNotMatch(shown, words);
  assert.equal(await page.getAttribute("#error", "data-code"), "unsupported");
  assert.match(shown, /What to do, in order/);
  assert.equal(shown.split("What to do, in order").length - 1, 1, "the advice once");
  assert.ok(await page.isVisible("#error #supported-ops"));
  await page.context().close();
});

test("graph only: its own name, its weights 'not included', and Apply weights gives the full model back", async () => {
  const path = upload("cnn", "cnn.pt2");
  const page = await openPage();
  await choose(page, path);
  await page.evaluate(() => { document.getElementById("options").open = true; });
  assert.equal(await page.getAttribute("#opt-output-name", "placeholder"), "cnn.onnx");
  await page.check("#opt-no-weights");
  assert.equal(await page.getAttribute("#opt-output-name", "placeholder"), "cnn.graph.onnx");
  assert.equal(await convert(page, () => page.click("#convert")), "done");
  assert.match(await page.textContent("#result-title"), /cnn\.pt2 → cnn\.graph\.onnx \(graph only\)/);
  assert.match(await page.textContent("#sum-bytes"), /^not included/);
  assert.match(await page.textContent("#graph-only-note"), /holds no weights/);
  const [file] = await Promise.all([page.waitForEvent("download"), page.click("#download-onnx")]);
  assert.equal(file.suggestedFilename(), "cnn.graph.onnx");
  const graph = join(work, "cnn.graph.onnx");
  writeFileSync(graph, readFileSync(await file.path()));
  assert.ok(readFileSync(graph).equals(runCli(path, "cnn.graph.onnx", {}, ["--no-weights"]).onnx));

  await page.setInputFiles("#apply-onnx", graph);
  await page.setInputFiles("#apply-pt2", path);
  await page.click("#apply-run");
  await page.waitForSelector('body[data-apply="done"], body[data-apply="error"]');
  const [full] = await Promise.all([page.waitForEvent("download"), page.click("#apply-download-onnx")]);
  assert.equal(full.suggestedFilename(), "cnn.onnx");
  assert.ok(readFileSync(await full.path()).equals(runCli(path, "cnn.onnx").onnx));
  await page.context().close();
});

// The numbers the explanation gives are the CLI's: inspect's FX nodes and weights, and a conversion's
// without the optimizer (what translation wrote) and with it.
for (const fixture of ["ops/cond_nested", "resnet18_shaped"]) {
  test(`the result's counts are explained against the inspection's: ${fixture}`, async () => {
    const path = upload(fixture, `${fixture.replace("/", "_")}.pt2`);
    const inspected = cliJson([path, "--inspect"]);
    const optimized = cliJson([path, "-o", join(work, "o.onnx"), "-q"]);
    const translated = cliJson([path, "-o", join(work, "t.onnx"), "-q", "--no-optimize"]);
    const page = await openPage();
    await choose(page, path);
    assert.equal(await convert(page, () => page.click("#convert")), "done");
    const fmt = (n) => new Intl.NumberFormat("en-US").format(n);
    const bytes = (n) => page.evaluate(async (v) => (await import("./format.mjs")).formatBytes(v), n);
    if (inspected.fxNodes !== optimized.fxNodes) {
      const nodes = await page.textContent("#counts-nodes");
      assert.match(nodes, new RegExp(`${fmt(inspected.fxNodes)} FX nodes: ${fmt(optimized.fxNodes)} in its main ` +
        `graph and ${fmt(inspected.fxNodes - optimized.fxNodes)} inside the subgraphs`));
    } else {
      assert.ok(!(await page.isVisible("#counts-nodes")));
    }
    assert.match(await page.textContent("#counts-optimizer"),
      new RegExp(`^Translation gave ${fmt(translated.onnxNodes)} ONNX nodes, the optimizer left ${fmt(optimized.onnxNodes)}: `));
    const stored = inspected.weights.reduce((n, w) => n + w.bytes, 0);
    if (stored !== translated.initializerBytes || translated.initializerBytes !== optimized.initializerBytes) {
      const weights = await page.textContent("#counts-weights");
      if (stored > translated.initializerBytes) {
        assert.ok(weights.includes(`Translation wrote ${await bytes(translated.initializerBytes)} of the ` +
          `${await bytes(stored)} of weights`), weights);
      }
      if (translated.initializerBytes !== optimized.initializerBytes) {
        assert.ok(weights.includes(`The optimizer then changed the weights to ${await bytes(optimized.initializerBytes)}: `),
          weights);
      }
    }
    await page.context().close();
  });
}

test("more names than the program's inputs or outputs is said once the inspection is known, before converting",
  async () => {
    const page = await openPage();
    await choose(page, upload("named_dims", "names.pt2"));
    await page.evaluate(() => { document.getElementById("options").open = true; });
    await page.fill("#opt-input-names", "a, b, c, d");
    assert.equal(await page.textContent("#opt-input-names-error"),
      "4 names for a program that has 3 inputs (x, mask, z): remove 1 name.");
    await page.fill("#opt-output-names", "p, q, r");
    assert.equal(await page.textContent("#opt-output-names-error"),
      "3 names for a program that has 2 outputs (div, add): remove 1 name.");
    await page.click("#convert");
    assert.equal(await page.evaluate(() => document.body.dataset.state), "idle", "no conversion started");
    assert.ok(!(await page.isVisible("#progress-area")));
    assert.ok(!(await page.isVisible("#error")));
    // Fixed, it converts as the CLI does with those names.
    await page.fill("#opt-input-names", "a, b, c");
    await page.fill("#opt-output-names", "");
    assert.equal(await convert(page, () => page.click("#convert")), "done");
    await page.context().close();
  });

// Text nodes of names that wrap inside a word: dom.mjs's breakable() splits a name at its parts, so a
// name's text node on two lines is a break inside a word.
const midWordBreaks = (page) => page.evaluate(() => {
  const found = [];
  const names = document.querySelectorAll("td code, .file-name, #result-title, #inspect-title, a.button, .histogram .op");
  for (const el of names) {
    if (!el.offsetParent) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (/\s/.test(node.textContent.trim()) || node.textContent.trim().length < 2) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) found.push(node.textContent);
    }
  }
  return found;
});

for (const width of [1280, 390]) {
  test(`at ${width} px names wrap between their parts and the Verify table keeps its Status column`, async () => {
    const page = await openPage();
    await page.setViewportSize({ width, height: 900 });
    const path = upload("named_dims", "a_model_with_a_rather_long_file_name_for_a_phone.pt2");
    await choose(page, path);
    await page.evaluate(() => { document.getElementById("options").open = true; });
    await page.fill("#opt-input-names", "input_ids_for_the_encoder, attention_mask_of_the_batch");
    assert.equal(await convert(page, () => page.click("#convert")), "done");
    await page.check("#verify-intermediates");
    await page.click("#verify-run");
    await page.waitForSelector('#verify[data-state="passed"], #verify[data-state="failed"]', { timeout: 120_000 });
    assert.deepEqual(await midWordBreaks(page), []);
    const status = await page.$$eval("#verify-rows td.status", (tds) => tds.map((td) => {
      const r = td.getBoundingClientRect();
      return { left: r.left, right: r.right, width: r.width, text: td.textContent };
    }));
    assert.ok(status.length >= 2);
    const viewport = await page.evaluate(() => document.documentElement.clientWidth);
    for (const s of status) {
      assert.ok(s.width > 0 && s.left >= 0 && s.right <= viewport, JSON.stringify(s));
      assert.match(s.text, /^(ok|differs)$/);
    }
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
    await page.context().close();
  });
}

test("no console errors", () => {
  assert.deepEqual(consoleErrors, []);
});
